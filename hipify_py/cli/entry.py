"""The `hipify-py` executable: the command line (cli/main.py) with collection paused while it starts,
and, for a translation run, the translator process started before it is imported (run/early.py)."""

from __future__ import annotations

import sys

from hipify_py.run import early
from hipify_py.util import collect


def main() -> None:
    collect.pause()  # why before the import: importing the command line is most of a small run's start-up
    translator = None
    if early.wanted(sys.argv):
        early.load_shared()
        translator = early.start()
    from hipify_py.cli.main import main as command_line

    command_line(obj=translator)
