"""Cyclic garbage collection paused while the command starts.

Start-up (the imports, the unpickled tables) makes a few hundred thousand objects that live until the
process exits, and no cyclic garbage; the collector scanned them again and again as they piled up
(about 5% of the instructions before the first file is translated, docs/speed.md round 4). The
command's entry point pauses it; a process resumes it before it translates, after freezing what start-up
made: never scanned again, and a forked worker does not write to the pages it shares with the run. A run
whose files the early process translates (workers/early.py) leaves it paused: it only gathers outcomes.
"""

from __future__ import annotations

import gc


def pause() -> None:
    gc.disable()


def resume() -> None:
    """Collect again from here on; what exists now is frozen. Nothing to do when never paused (the
    package used as a library, the tests)."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()
