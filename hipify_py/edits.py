"""Byte edits and their application.

Rules never rewrite text themselves: they return Edit objects and the core applies them in one
pass, so every untouched byte stays byte-identical.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple


class Edit(NamedTuple):
    start: int  # byte offset, inclusive
    end: int  # byte offset, exclusive (start == end: insertion)
    text: bytes


class OverlappingEditsError(ValueError):
    """Two rules tried to rewrite the same bytes: always a bug in a rule."""


def apply_edits(source: bytes, edits: Iterable[Edit]) -> bytes:
    """Apply edits in one pass.

    Identical duplicates are merged; several insertions at one offset keep their emission order
    (sorting is stable); a replacement that intersects another edit raises.
    """
    unique = list(dict.fromkeys(edits))
    ordered = sorted(unique, key=lambda e: (e.start, e.end != e.start, e.end))
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
