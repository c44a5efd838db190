"""A one-line progress bar on stderr for runs over many files.

Shown only when stderr is a terminal, the run has more than THRESHOLD files and --quiet is off.
Anything else printed during the run must call clear() first, so a diagnostic never lands in the
middle of the bar; the bar is redrawn on the next advance().
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

THRESHOLD = 50
REDRAW_SECONDS = 0.1


class Progress:
    def __init__(self, total: int, stream: TextIO, enabled: bool, unit: str = "files") -> None:
        self.total, self.stream, self.enabled, self.unit = total, stream, enabled, unit
        self.done = 0
        self.drawn = False
        self.last = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.drawn and now - self.last < REDRAW_SECONDS and self.done < self.total:
            return
        self.last = now
        columns = shutil.get_terminal_size().columns
        self.stream.write("\r" + render(self.done, self.total, columns, self.unit) + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        self.clear()


def render(done: int, total: int, columns: int, unit: str = "files") -> str:
    """`[#####.....]  12/345 files` fitted to the terminal width."""
    label = f" {done}/{total} {unit}"
    width = max(10, min(50, columns - len(label) - 3))
    filled = width * done // total if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}]{label}"


def progress_for(
    total: int, quiet: bool, stream: TextIO | None = None, unit: str = "files", threshold: int = THRESHOLD
) -> Progress:
    """`threshold`: more items than this show a bar (compiles take seconds each: verify shows it from 2)."""
    stream = stream or sys.stderr
    enabled = not quiet and total > threshold and _isatty(stream)
    return Progress(total, stream, enabled, unit)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
