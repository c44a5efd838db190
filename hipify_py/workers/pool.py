"""One set of -j workers for translation and for side work (the compiles of --verify), made with
ProcessPoolExecutor: also the way a system without fork translates (execute.py).

A side task is a thread that waits on a child process (hipcc); it takes a worker slot like a chunk of
files being translated, so -j bounds everything that runs at once. The side says which tasks are
ready (a compile whose includes are all written); those start first, because a compile takes seconds
and the translation of a file milliseconds: started early, compiles overlap the rest of the translation.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Protocol

from hipify_py.run import process as file_work  # why the module: tests replace file_work.process
from hipify_py.workers.prefork import has_sources, inline, prepare

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from hipify_py.run.discover import Found
    from hipify_py.run.outcome import FileOutcome, RunSettings


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
    pooled = not serial and bool(files)
    prepare(settings, has_sources(found.kind for found in files), pooled and _FORK)
    procs = process_pool(jobs) if pooled else None
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
            # why a timeout: the kernel may hand a Ctrl-C to any thread that does not block it (a compile's
            # thread, the pool's own); Python then only flags the main thread, which must wake to raise
            # KeyboardInterrupt: blocked until a future ends, it noticed Ctrl-C only when a compile ended
            done, _ = wait(running, timeout=_POLL_SECONDS, return_when=FIRST_COMPLETED)
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


_FORK = hasattr(os, "fork")
_POLL_SECONDS = 0.25  # the longest a Ctrl-C waits for the main thread (see shared())


def process_pool(jobs: int) -> ProcessPoolExecutor:
    """The pool: forked where there is fork, after prefork.prepare() loaded what its workers inherit."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if _FORK else "spawn")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker)


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
