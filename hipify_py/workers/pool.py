"""One set of -j workers for translation and for side work (the compiles of --verify).

A side task is a thread that waits on a child process (hipcc); it takes a worker slot like a chunk of
files being translated, so -j bounds everything that runs at once. The side says which tasks are
ready (a compile whose includes are all written); those start first, because a compile takes seconds
and the translation of a file milliseconds: started early, compiles overlap the rest of the translation.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from hipify_py.run import process as file_work  # why the module: tests replace file_work.process
from hipify_py.util import collect

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from hipify_py.run.discover import Found
    from hipify_py.run.outcome import FileOutcome, RunSettings

INLINE_BELOW = 8  # files: fewer are translated in the run's own process
# ... and so are up to INLINE_FILES files of fewer than INLINE_BYTES in all (see inline())
INLINE_FILES, INLINE_BYTES = 128, 128 * 1024


class SideWork(Protocol):
    """What runs beside the translation; every method is called from the run's main thread."""

    def file_done(self, outcome: FileOutcome) -> None:
        """A file's outcome is final (its output written)."""

    def translation_done(self) -> None:
        """Every file's outcome is final."""

    def next_task(self) -> Callable[[], object] | None:
        """A task ready to start (it runs in a thread), or None."""

    def task_done(self, task: Callable[[], object], result: object) -> None: ...

    def stop(self) -> None:
        """Ctrl-C or a failure: end the running tasks now (called from the main thread)."""


def shared(
    files: Sequence[Found], settings: RunSettings, jobs: int, side: SideWork
) -> Generator[FileOutcome, None, None]:
    """The outcomes of `files` in order, then (when iterated to the end) the side's remaining tasks.

    The caller tells `side` about each outcome it receives (and about outcomes it had without
    translating) before asking for the next one; this generator calls translation_done() after the last."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    jobs = max(1, jobs)
    serial = inline(jobs, files)
    size = 1 if serial else max(1, min(16, len(files) // (jobs * 4)))
    indexed = list(enumerate(files))
    chunks = deque(indexed[i : i + size] for i in range(0, len(indexed), size))
    finished: dict[int, FileOutcome] = {}
    running: dict[Future, Callable[[], object] | None] = {}  # None: a chunk of files being translated
    threads = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="hipify-py-side")
    procs = None if serial or not files else process_pool(jobs, files, settings)
    collect.resume()
    if procs is not None:  # why first: the pool forks its workers at the first submit, before any thread
        running[procs.submit(_process_chunk, chunks.popleft(), settings)] = None
    emitted, told = 0, False
    try:
        while True:
            while emitted in finished:
                yield finished.pop(emitted)
                emitted += 1
            if emitted == len(files) and not told:
                told = True
                side.translation_done()
            while len(running) < jobs:
                task = side.next_task()
                if task is None:
                    break
                running[threads.submit(task)] = task
            if chunks and len(running) < jobs:
                if procs is None:
                    ((i, found),) = chunks.popleft()
                    finished[i] = file_work.process(found, settings)
                else:
                    running[procs.submit(_process_chunk, chunks.popleft(), settings)] = None
                continue
            if not running:  # nothing to translate, to wait for or to start
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                task = running.pop(future)
                if task is None:
                    finished.update(future.result())
                else:
                    side.task_done(task, future.result())
    except BaseException:  # Ctrl-C, a dead worker, the caller closing us: nothing new starts
        side.stop()
        for future in running:
            future.cancel()
        threads.shutdown(wait=True, cancel_futures=True)  # the tasks clean up after their processes
        if procs is not None:
            procs.shutdown(wait=True, cancel_futures=True)  # files in flight are written whole
        raise
    threads.shutdown()
    if procs is not None:
        procs.shutdown()


def _process_chunk(chunk: Sequence[tuple[int, Found]], settings: RunSettings) -> dict[int, FileOutcome]:
    return {i: file_work.process(found, settings) for i, found in chunk}


def process_pool(jobs: int, files: Sequence[Found], settings: RunSettings) -> ProcessPoolExecutor:
    """The one pool factory (translation and --verify's shared workers alike): fork where there is
    fork, and then the rule tables loaded before the workers are made, so each inherits them instead
    of loading them again (translate.preload_rule_tables)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    if context.get_start_method() == "fork":
        preload(settings, files)
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker)


def preload(settings: RunSettings, files: Sequence[Found]) -> None:
    """Before forking: every rule table loaded once, for the workers to inherit."""
    if any(found.kind == "source" for found in files):
        preload_tables(settings)


def preload_tables(settings: RunSettings) -> None:
    """The rule tables of the run's target and the regex programs, for the workers to inherit."""
    from hipify_py.pipeline.translate import preload_rule_tables
    from hipify_py.util.lazyre import load_programs

    preload_rule_tables(settings.options)
    load_programs()


def inline(jobs: int, files: Sequence[Found]) -> bool:
    """Translate in the run's own process? A pool costs about 40 ms of CPU before its first result (the
    pool's imports, every rule table loaded for the workers to inherit, the forks, the workers' start and
    exit) and pays off only when the translation it shares is larger. On 2 CPUs (docs/speed.md, round 3),
    64 files of ~50 lines (100 KB) took 0.14 s in the run's own process and 0.18 s with two workers;
    400 such files (590 KB), 0.35 s and 0.25 s. The file cap bounds the stat calls."""
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


def _init_worker() -> None:
    # Ctrl-C is handled by the parent, which stops the pool; workers must not print tracebacks.
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A killed parent (SIGKILL) leaves its workers blocked forever on the task queue: stop instead.
    A file being written stays old; its temp file is removed by the next run (remove_stale_temps)."""
    import time

    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def iterate(files: Sequence[Found], settings: RunSettings, jobs: int) -> Generator[FileOutcome, None, None]:
    if inline(jobs, files):
        collect.resume()
        for found in files:
            yield file_work.process(found, settings)
        return
    if hasattr(os, "fork"):
        from functools import partial

        from hipify_py.util.fileio import reading_ahead
        from hipify_py.workers.forked import forked_map

        preload(settings, files)
        collect.resume()  # why after the tables: the workers inherit them frozen
        work = partial(file_work.process, settings=settings)
        ahead = reading_ahead(str(found.path) for found in files)  # as workers/early.py does
        yield from forked_map(work, files, jobs, fork_chunk(len(files), jobs), ahead)
        return
    chunk = max(1, min(64, len(files) // (jobs * 4)))
    with process_pool(jobs, files, settings) as pool:
        collect.resume()
        try:
            yield from pool.map(file_work.process, files, _repeat(settings, len(files)), chunksize=chunk)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def fork_chunk(files: int, jobs: int) -> int:
    """Files a forked worker is sent at a time, at most (the last tasks are smaller: forked._Chunks).
    Why small chunks: a chunk costs a few bytes to send, and the last ones decide when the slowest
    worker ends (16 chunks a worker: a 400-file run's tail is ~12 files, not 50)."""
    return max(1, min(64, files // (jobs * 16)))


def _repeat(value: RunSettings, n: int) -> Iterable[RunSettings]:
    return (value for _ in range(n))
