"""`run()`: a run's files, in order: the hits of the result cache (run/cache_hits.py), the others worked
on by `execute()` (execute.py: in this process, in workers or in the early translator process), then
the project-wide settle step (run/settle.py). Each file's work (run/process.py) returns a small
FileOutcome; the run gathers them for the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hipify_py.project.option_macros import pending
from hipify_py.run.cache_hits import from_cache, open_cache, remember
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings
from hipify_py.run.process import output_dirs
from hipify_py.run.settle import settle_options
from hipify_py.util.fileio import (
    remove_stale_temps,
)
from hipify_py.workers.early import Early
from hipify_py.workers.execute import execute

if TYPE_CHECKING:
    from hipify_py.workers.pool import SideWork

# why no top-level import of translate/difflib/multiprocessing (here and in execute.py): a warm run
# where every file is a cache hit must not pay for tree-sitter, the mapping tables or a process pool
# (see run/result_cache.py).

# A run that translates fewer files does not translate what it wrote once more: that is the
# pre-commit hook on a few staged files, whose latency is the user's wait, and the next run translating
# those few files costs what doing it now would. A tree converted in place is re-run fast (all hits).
REMEMBER_WRITTEN_FROM = 16


def run(
    files: Sequence[Found],
    settings: RunSettings,
    on_done: Callable[[FileOutcome], None] | None = None,
    on_progress: Callable[[FileOutcome], None] | None = None,
    side: SideWork | None = None,
    early: Early | None = None,
) -> list[FileOutcome]:
    """Process all files, in parallel when it pays off; outcomes in input order. `side`: work that
    shares the workers and learns of each outcome (--verify's compiles, workers.py); done on return.
    `early`: the translator process the command started (workers/early.py), to translate in; closed on return.

    `on_progress` sees each outcome as it comes; `on_done` sees it final, in input order: from the first
    file with findings that wait for the whole project (option_macros) on, once the run is complete."""
    jobs = settings.jobs or os.cpu_count() or 1
    if settings.mode in (Mode.IN_PLACE, Mode.OUTPUT_TREE):  # temp files of a run that was killed
        remove_stale_temps(output_dirs(files, settings))
    cache = open_cache(files, settings)
    ready: list[FileOutcome | None] = [None] * len(files)
    if cache is not None and cache.results:
        # why only then: with no result stored for the project nothing can hit, and looking up meant
        # reading and hashing every file here, before any worker started (the workers hash what they
        # read, and remember() indexes it); a fresh install's first run and a cleared cache
        ready = [from_cache(found, settings, cache) for found in files]
    todo = [found for found, done in zip(files, ready, strict=True) if done is None]
    if len(todo) < REMEMBER_WRITTEN_FROM:
        settings = settings._replace(remember_written=False)
    computed = execute(todo, settings, jobs, side, early)
    outcomes: list[FileOutcome] = []
    held: list[FileOutcome] = []
    try:
        for found, done in zip(files, ready, strict=True):
            outcome = done or next(computed)
            if cache is not None and not outcome.cached:
                remember(cache, found, outcome, settings)
            outcomes.append(outcome)
            if side is not None:
                side.file_done(outcome)
            if on_progress is not None:
                on_progress(outcome)
            if held or pending(outcome.diagnostics):
                held.append(outcome)
            elif on_done is not None:
                on_done(outcome)
        if side is not None:
            for _ in computed:  # the side work left when every file is done
                pass
    finally:
        # why: an exception above must stop the workers (and the side's work) now, not at exit; and
        # the early process is waited for when its last outcome is in
        computed.close()
        if cache is not None:
            cache.save(len(files))
    if held:
        settle_options(files, outcomes, settings)
        for outcome in held:
            if on_done is not None:
                on_done(outcome)
    return outcomes
