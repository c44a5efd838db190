"""The start-up tricks, in one place, each one switchable (docs/performance.md: what each saves, which
test guards it).

`HIPIFY_PY_PLAIN=1` turns every trick off, for debugging: the command is then a plain Python program
(no fork before the command line, the collector as usual, patterns compiled by `re`, click's own
parser, the interpreter's own exit). `HIPIFY_PY_PLAIN=early,exit` turns off only those named. Outputs
are the same either way (tests/test_startup.py runs the command both ways).

The tricks (names for HIPIFY_PY_PLAIN):
- `gc`: no cyclic collection while the command starts; what start-up made is frozen (never scanned
  again) when a process starts translating (`pause_collection`, `resume_collection`);
- `early`: the translator process forked before click and the command line are imported, which loads
  the pipeline and the tables on the other CPU meanwhile (workers/early.py, started by cli/entry.py);
- `regex`: the regex engine's programs kept between runs in a marshal file and handed to `_sre.compile`
  instead of built again by `re` (util/lazyre.py `ProgramStore`);
- `exit`: the atexit handlers and a flush, then `os._exit`, without the interpreter's teardown (`finish`);
- `click`: `-j2`, `-q` matched as short options first (`short_options_first`, cli/main.py `_Command`).

Not switchable, because it is a choice of types and not a run-time act: `Options` and the per-file
records are NamedTuples, not dataclasses (importing `dataclasses` pulls in `inspect`;
tests/test_speed.py `test_start_up_imports_no_heavy_module` keeps it out).
"""

from __future__ import annotations

import atexit
import functools
import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn

PLAIN_ENV = "HIPIFY_PY_PLAIN"
TRICKS = ("gc", "early", "regex", "exit", "click")


def on(trick: str) -> bool:
    """Is `trick` (one of TRICKS) in use? Read each time: tests set the variable per run."""
    plain = os.environ.get(PLAIN_ENV, "")
    if plain in ("", "0"):
        return True
    return plain not in ("1", "all") and trick not in plain.split(",")


def pause_collection() -> None:
    """No cyclic collection while the command starts. Why: start-up (the imports, the unpickled tables)
    makes a few hundred thousand objects that live until the process exits and no cyclic garbage; the
    collector scanned them again and again as they piled up (about 5% of the instructions before the
    first file was translated)."""
    if on("gc"):
        gc.disable()


def resume_collection() -> None:
    """Collect again from here on; what exists now is frozen: never scanned again, and a forked worker
    does not write to the pages it shares with the run. Nothing to do when never paused (the package
    used as a library, the tests, the trick off). A run whose files the early process translates leaves
    it paused: it only gathers outcomes."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()


def finish(code: object) -> NoReturn:
    """End the process as `SystemExit(code)` would, without the interpreter's teardown.

    why: after the run, the interpreter clears every module and frees every object one by one (the
    command line, the outcomes, the tables in a run that translated itself): 3-9 ms of a 400-file run,
    more than its slowest file. What a normal exit does that matters still happens, in its order: the
    atexit handlers (lazyre stores its programs there, tempfile and multiprocessing clean up), then the
    standard streams are flushed (a flush that fails exits 120, as Python does). With a thread still
    running (nothing of ours leaves one) or the trick off, the exit is the normal one."""
    if not on("exit") or any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
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


_PARSER_PARTS = ("_process_opts", "_match_short_opt", "_long_opt", "_opt_prefixes")


def short_options_first(parser: Any, normalizes: bool) -> Any:
    """Let click's option parser take `-j2`, `-q` straight as short options.

    why: click first tries every option argument as a long option, and its failed try builds a
    NoSuchOption whose "did you mean" list (difflib over every long option, plus gettext) is thrown
    away when the short-option match then succeeds: ~1.5 ms of a run's start-up for `-o D -j2 -q`.
    The shortcut takes the path click itself takes next, and only for arguments click would send
    there (one leading dash, not a long option's name, no `=`); without the parser internals it
    relies on (another click), with a token normalizer (`normalizes`) or the trick off, parsing is
    click's own."""
    if on("click") and not normalizes and all(hasattr(parser, name) for name in _PARSER_PARTS):
        parser._process_opts = functools.partial(_process_opts, parser, parser._process_opts)
    return parser


def _process_opts(parser: Any, process: Callable[[str, Any], None], arg: str, state: Any) -> None:
    if "=" in arg or arg[:2] in parser._opt_prefixes or arg in parser._long_opt:
        process(arg, state)
    else:  # what click does after its long-option try failed
        parser._match_short_opt(arg, state)
