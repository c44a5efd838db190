"""What every way of running workers does before the work: whether forking pays off at all (`inline`),
the one routine that makes a process ready to translate or to fork the workers that do (`prepare`:
tables and grammar loaded, then collection resumed), and forking them with the files read ahead
meanwhile (`fork_workers`). The run's own process (execute.py), the early translator process
(early.py) and the shared pool of --verify (pool.py) all go through it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from hipify_py.util.startup import resume_collection

if TYPE_CHECKING:
    from hipify_py.run.discover import Found
    from hipify_py.run.outcome import RunSettings

T = TypeVar("T")
R = TypeVar("R")

INLINE_BELOW = 8  # files: fewer are translated in the run's own process
# ... and so are up to INLINE_FILES files of fewer than INLINE_BYTES in all (see inline())
INLINE_FILES, INLINE_BYTES = 128, 128 * 1024


def inline(jobs: int, files: Sequence[Found]) -> bool:
    """Translate in one process, without workers? A pool costs about 40 ms of CPU before its first result
    (the pool's imports, every rule table loaded for the workers to inherit, the forks, the workers'
    start and exit) and pays off only when the translation it shares is larger. On 2 CPUs
    (docs/performance.md), 64 files of ~50 lines (100 KB) took 0.14 s in the run's own process and
    0.18 s with two workers; 400 such files (590 KB), 0.35 s and 0.25 s. The file cap bounds the stat
    calls."""
    if jobs <= 1 or len(files) < INLINE_BELOW:
        return True
    return len(files) <= INLINE_FILES and _bytes_below(files, INLINE_BYTES)


def _bytes_below(files: Sequence[Found], limit: int) -> bool:
    total = 0
    for found in files:
        with contextlib.suppress(OSError):  # why: a file gone or unreadable is reported by its worker
            total += os.stat(found.path).st_size
        if total >= limit:
            return False
    return True


def prepare(settings: RunSettings, sources: bool, fork: bool) -> None:
    """Make this process ready to translate (`fork`: to fork the workers that do): the mapping tables
    (with the run's --extra-mappings) and the grammar, and for forked workers every rule table of the
    run's target and the regex programs, loaded once here for them to inherit instead of loading them
    each (translate.preload_rule_tables); then collection resumed, what was loaded frozen (util/startup.py).
    `sources`: the job has a CUDA/C++ source (a build file needs none of the tables)."""
    if sources:
        from hipify_py.engine.parser import warm_up
        from hipify_py.pipeline.translate import default_tables

        default_tables(settings.extra_mappings)
        warm_up()
        if fork:
            from hipify_py.pipeline.translate import preload_rule_tables
            from hipify_py.util.lazyre import load_programs

            preload_rule_tables(settings.options)
            load_programs()
    resume_collection()  # why after the tables: the workers inherit them frozen


def has_sources(kinds: Iterable[str]) -> bool:
    return any(kind == "source" for kind in kinds)


def fork_workers(
    work: Callable[[T], R], items: Sequence[T], paths: Iterable[str], jobs: int
) -> Generator[bytes, None, None]:
    """`work` over `items` in `jobs` forked workers (forked.py), their pickled chunks in order; `paths`,
    the items' files, are read ahead meanwhile by this process, which otherwise only waits for results."""
    from hipify_py.util.fileio import reading_ahead
    from hipify_py.workers.forked import forked_payloads

    return forked_payloads(work, items, jobs, fork_chunk(len(items), jobs), reading_ahead(paths))


def fork_chunk(files: int, jobs: int) -> int:
    """Files a forked worker is sent at a time, at most (the last tasks are smaller: forked._Chunks).
    Why small chunks: a chunk costs a few bytes to send, and the last ones decide when the slowest
    worker ends (16 chunks a worker: a 400-file run's tail is ~12 files, not 50)."""
    return max(1, min(64, files // (jobs * 16)))
