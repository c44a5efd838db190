"""A one-line progress bar on stderr for runs over many files.

Shown only when stderr is a terminal, the run has more than THRESHOLD files and --quiet is off.
Anything else printed during the run must call clear() first, so a diagnostic never lands in the
middle of the bar; the bar is redrawn on the next advance().
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

THRESHOLD = 50
REDRAW_SECONDS = 0.1


class Progress:
    def __init__(self, total: int, stream: TextIO, enabled: bool, unit: str = "files") -> None:
        self.total, self.stream, self.enabled, self.unit = total, stream, enabled, unit
        self.done = 0
        self.more: dict[str, list[int]] = {}  # other counters on the same line: unit -> [done, total]
        self.drawn = False
        self.last = 0.0

    def advance(self, n: int = 1, unit: str | None = None) -> None:
        if unit is None or unit == self.unit:
            self.done += n
        else:
            self.more[unit][0] += n
        if not self.enabled:
            return
        now = time.monotonic()
        finished = self.done >= self.total and all(d >= t for d, t in self.more.values())
        if self.drawn and now - self.last < REDRAW_SECONDS and not finished:
            return
        self.last = now
        import shutil  # why here: ~3 ms of every run's start-up (util/commands.py), for a terminal's width

        columns = shutil.get_terminal_size().columns
        more = tuple((d, t, u) for u, (d, t) in self.more.items())
        self.stream.write("\r" + render(self.done, self.total, columns, self.unit, more) + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def close(self) -> None:
        self.clear()


def render(
    done: int, total: int, columns: int, unit: str = "files", more: tuple[tuple[int, int, str], ...] = ()
) -> str:
    """`[#####.....]  12/345 files` fitted to the terminal width; `more` counters follow
    (`, 3/40 TUs`) and count in the bar."""
    counters = ((done, total, unit), *more)
    label = " " + ", ".join(f"{d}/{t} {u}" for d, t, u in counters)
    done, total = sum(c[0] for c in counters), sum(c[1] for c in counters)
    width = max(10, min(50, columns - len(label) - 3))
    filled = width * done // total if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}]{label}"


def progress_for(
    total: int,
    quiet: bool,
    stream: TextIO | None = None,
    unit: str = "files",
    threshold: int = THRESHOLD,
    more: tuple[tuple[str, int, int], ...] = (),
) -> Progress:
    """`threshold`: more items than this show a bar. `more`: other counters on the line, (unit, total,
    threshold) each (compiles take seconds each: verify's TUs show the bar from 2)."""
    stream = stream or sys.stderr
    wanted = any(n > limit for _, n, limit in ((unit, total, threshold), *more))
    progress = Progress(total, stream, not quiet and wanted and _isatty(stream), unit)
    progress.more = {name: [0, n] for name, n, _ in more}
    return progress


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
