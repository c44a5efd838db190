"""The `hipify-py` executable: the command line (cli/main.py) with collection paused while it starts,
and, for a translation run, the translator process started before it is imported (workers/early.py).
Each such trick is switchable (util/startup.py, HIPIFY_PY_PLAIN)."""

from __future__ import annotations

import sys

from hipify_py.util.startup import finish, pause_collection
from hipify_py.workers import early


def main() -> None:
    pause_collection()  # why before the import: importing the command line is most of a small run's start-up
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
