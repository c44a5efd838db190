"""The `hipify-py` executable: the command line (cli/main.py) with collection paused while it starts."""

from __future__ import annotations

from hipify_py.util import collect


def main() -> None:
    collect.pause()  # why before the import: importing the command line is most of a small run's start-up
    from hipify_py.cli.main import main as command_line

    command_line()
