"""The `hipify-py` executable: the command line (cli/main.py) with collection paused while it starts,
and, for a translation run, the translator process started before it is imported (workers/early.py)."""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

from hipify_py.util import collect
from hipify_py.workers import early


def main() -> None:
    collect.pause()  # why before the import: importing the command line is most of a small run's start-up
    translator = None
    if early.wanted(sys.argv):
        early.load_shared()
        translator = early.start()
    from hipify_py.cli.main import main as command_line

    try:
        command_line(obj=translator)
    except SystemExit as done:
        finish(done.code)
    finish(0)


def finish(code: object) -> NoReturn:
    """End the process as `SystemExit(code)` would, without the interpreter's teardown.

    why: after the run, the interpreter clears every module and frees every object one by one (the
    command line, the outcomes, the tables in a run that translated itself): 3-9 ms of a 400-file run,
    more than its slowest file. What a normal exit does that matters still happens, in its order: the
    atexit handlers (lazyre stores its programs there, tempfile and multiprocessing clean up), then the
    standard streams are flushed (a flush that fails exits 120, as Python does). With a thread still
    running (nothing of ours leaves one) the exit is the normal one, which waits for it."""
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # SystemExit("message"): printed, status 1
        print(code, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`), a closed stream
            status = 120
    os._exit(status)
