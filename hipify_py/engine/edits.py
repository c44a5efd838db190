"""Byte edits and their application.

Rules never rewrite text themselves: they return Edit objects and the core applies them in one
pass, so every untouched byte stays byte-identical.

Two kinds of edit cooperate with other rules' edits instead of clashing with them (argument-level
adaptations need both, see hipify_py/analysis/callargs.py):
- a *covering* edit (`covers=True`) replaces a whole span (an argument replaced by a constant or
  deleted); what other edits do strictly inside it is dropped (a rename inside a deleted argument),
  insertions at its two ends are kept (they belong to the neighbours).
- a *copy* edit (`copy=(start, end)`) inserts source[start:end] as the other edits leave it (a moved
  or duplicated argument keeps its renames) at the place of COPY_MARK in its text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

COPY_MARK = b"\0"  # never in generated text otherwise; stands for the copied bytes in a copy edit


class Edit(NamedTuple):
    start: int  # byte offset, inclusive
    end: int  # byte offset, exclusive (start == end: insertion)
    text: bytes
    covers: bool = False  # replaces what other edits do strictly inside [start, end)
    copy: tuple[int, int] | None = None  # source span inserted at COPY_MARK, with its own edits


class OverlappingEditsError(ValueError):
    """Two rules tried to rewrite the same bytes: always a bug in a rule."""


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Apply edits in one pass.

    Identical duplicates are merged; several insertions at one offset keep their emission order
    (sorting is stable); a replacement that intersects another edit raises (unless one covers the other).
    """
    ordered = applied_edits(source, edits)
    out: list[bytes] = []
    pos = 0
    prev: Edit | None = None
    for edit in ordered:
        if edit.start < pos or edit.end < edit.start or edit.end > len(source):
            raise OverlappingEditsError(f"edit {edit!r} overlaps {prev!r}")
        out.append(source[pos : edit.start])
        out.append(edit.text)
        pos = edit.end
        prev = edit
    out.append(source[pos:])
    return b"".join(out)


def applied_edits(source: bytes, edits: Iterable[Edit]) -> list[Edit]:
    """The plain edits apply_edits applies, in its order (duplicates merged, copies and covers resolved);
    verify maps compiler positions back through them."""
    unique = list(dict.fromkeys(edits))
    if any(e.covers or e.copy is not None for e in unique):
        unique = _resolve(source, unique)
    return sorted(unique, key=lambda e: (e.start, e.end != e.start, e.end))


def _inside(edit: Edit, start: int, end: int) -> bool:
    """Strictly inside [start, end): insertions at either end are not (they belong to the neighbours)."""
    if edit.start == edit.end:
        return start < edit.start < end
    return start <= edit.start and edit.end <= end


def _resolve(source: bytes, edits: list[Edit]) -> list[Edit]:
    """Copies become plain insertions; edits inside covering edits are dropped."""
    plain = [e for e in edits if e.copy is None and not e.covers]
    out: list[Edit] = []
    for e in edits:
        if e.copy is not None:
            a, b = e.copy
            # insertions at the copied span's ends are its own here (a wrapped argument moves wrapped)
            inner = [Edit(x.start - a, x.end - a, x.text) for x in plain if a <= x.start and x.end <= b]
            e = Edit(e.start, e.end, e.text.replace(COPY_MARK, apply_edits(source[a:b], inner)), e.covers)
        out.append(e)
    covering = [e for e in out if e.covers]
    return [e for e in out if e.covers or not any(_inside(e, c.start, c.end) for c in covering if c is not e)]
