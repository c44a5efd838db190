"""`execute(files, settings, jobs)`: the one function that has a run's files worked on (run/process.py,
one file at a time), whichever processes do it. The ways, chosen here and nowhere else:

- `side` work (--verify's compiles): one set of -j workers shared by translation and compiles
  (pool.py `shared`, a ProcessPoolExecutor); also how a system without fork translates;
- the `early` translator process the executable started before the command line (early.py): it
  translates the files itself or forks the workers that do, from what it loaded meanwhile;
- else this process: the files translated here when workers would not pay off (prefork.inline),
  else by forked workers (forked.py).

Each way makes its process ready with the same routine (prefork.prepare) before the first file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING

from hipify_py.run import process as file_work  # why the module: tests replace file_work.process
from hipify_py.workers.prefork import fork_workers, has_sources, inline, prepare

if TYPE_CHECKING:
    from hipify_py.run.discover import Found
    from hipify_py.run.outcome import FileOutcome, RunSettings
    from hipify_py.workers.early import Early
    from hipify_py.workers.pool import SideWork


def execute(
    files: Sequence[Found],
    settings: RunSettings,
    jobs: int,
    side: SideWork | None = None,
    early: Early | None = None,
) -> Generator[FileOutcome, None, None]:
    """The outcomes of `files` in order (with `side`: then the side's remaining tasks, when iterated to
    the end). `early` is handed the job when it can take it, else closed. Closing the generator before
    its end stops the workers; each finishes the file it is writing."""
    if early is not None and (side is not None or not files or not early.send(files, settings, jobs)):
        early.close()  # not needed, or gone before it got the job: this process has the files worked on
        early = None
    if early is not None:
        # why the collector stays paused: this process only gathers outcomes, which live to the end or die
        # by reference count (no cycles); its 17 collections in a 400-file run took ~1.5 ms of the CPU the
        # workers share with it
        return early.outcomes(len(files))
    if side is None and _FORK:
        return _here(files, settings, jobs)
    from hipify_py.workers.pool import shared

    return shared(files, settings, jobs, side or _NoSide())


_FORK = hasattr(os, "fork")  # else the shared pool's executor translates (a system without fork)


def _here(files: Sequence[Found], settings: RunSettings, jobs: int) -> Generator[FileOutcome, None, None]:
    serial = inline(jobs, files)
    prepare(settings, has_sources(found.kind for found in files), fork=not serial)
    if serial:
        for found in files:
            yield file_work.process(found, settings)
        return
    from functools import partial

    from hipify_py.workers.forked import decode

    work = partial(file_work.process, settings=settings)
    payloads = fork_workers(work, files, (str(found.path) for found in files), jobs)
    try:
        for payload in payloads:
            yield from decode(payload)
    finally:
        payloads.close()  # why: the workers are waited for now, not at exit


class _NoSide:
    """No work beside the translation (a system without fork translating in the shared pool)."""

    def file_done(self, outcome: FileOutcome) -> None:
        pass

    def translation_done(self) -> None:
        pass

    def next_task(self) -> Callable[[], object] | None:
        return None

    def task_done(self, task: Callable[[], object], result: object) -> None:
        pass

    def stop(self) -> None:
        pass
