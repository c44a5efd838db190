"""Byte spans of a file."""

from __future__ import annotations

from collections.abc import Iterable


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans with overlapping or touching ones joined: an offset lies in one of them iff it lies
    in one of the inputs (so a bisection over them answers "is it in any")."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
