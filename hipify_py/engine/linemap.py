"""Map positions in a translated file back to the original file through the edits that were applied.

A translation is a list of non-overlapping byte edits (edits.apply_edits). Keeping, for every edit,
where it started in the original, the bytes it replaced and the length of its new text is enough to
map any translated offset back to an original offset AND to rebuild the original text from the
translated one (so `--in-place`, where the original is gone, still shows the CUDA line).

A file is rewritten in one layer (translate() applies its edits and the renamed includes at once);
`Layers` keeps the form of several `Moves` tuples, applied from the last back to the first.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from hipify_py.engine.edits import Edit, applied_edits

# (original start, original bytes replaced, length of the new text), sorted by original start
Move = tuple[int, bytes, int]
Moves = tuple[Move, ...]
Layers = tuple[Moves, ...]


def moves_of(source: bytes, edits: Iterable[Edit]) -> Moves:
    """The moves of `edits` as apply_edits applies them (same order, duplicates merged)."""
    ordered = applied_edits(source, edits)
    return tuple(
        (e.start, source[e.start : e.end], len(e.text)) for e in ordered if e.text != source[e.start : e.end]
    )


class OffsetMap:
    """Translated offset -> original offset for one layer of moves."""

    def __init__(self, moves: Moves) -> None:
        self.moves = moves
        new_starts: list[int] = []
        delta = 0  # translated offset - original offset before the current move
        for start, old, new_len in moves:
            new_starts.append(start + delta)
            delta += new_len - len(old)
        self.new_starts = new_starts

    def to_original(self, offset: int) -> int:
        """The original offset of a translated one. Inside a replacement: the same relative position
        clamped to the replaced bytes (`hipMalloc` col 5 -> `cudaMalloc` col 5); inside an insertion:
        where it was inserted."""
        i = bisect.bisect_right(self.new_starts, offset) - 1
        if i < 0:
            return offset
        start, old, new_len = self.moves[i]
        new_start = self.new_starts[i]
        if offset < new_start + new_len:
            return start + min(offset - new_start, max(len(old) - 1, 0))
        return start + len(old) + (offset - new_start - new_len)

    def original_text(self, translated: bytes) -> bytes:
        """Undo the moves: the original bytes, rebuilt from the translated ones."""
        out: list[bytes] = []
        pos = 0
        for (_, old, new_len), new_start in zip(self.moves, self.new_starts, strict=True):
            out += [translated[pos:new_start], old]
            pos = new_start + new_len
        out.append(translated[pos:])
        return b"".join(out)


def to_original(layers: Layers, offset: int) -> int:
    for moves in reversed(layers):
        offset = OffsetMap(moves).to_original(offset)
    return offset


def original_text(layers: Layers, translated: bytes) -> bytes:
    text = translated
    for moves in reversed(layers):
        text = OffsetMap(moves).original_text(text)
    return text


def offset_of(text: bytes, line: int, col: int) -> int:
    """Byte offset of a 1-based line and 1-based byte column (clang counts bytes), clamped to the text."""
    pos = 0
    for _ in range(line - 1):
        nl = text.find(b"\n", pos)
        if nl == -1:
            return len(text)
        pos = nl + 1
    end = text.find(b"\n", pos)
    end = len(text) if end == -1 else end
    return min(pos + max(col - 1, 0), end)
