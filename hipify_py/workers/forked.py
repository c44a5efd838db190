"""Forked workers for a translation run: `forked_map(fn, items, jobs, size)` is `map(fn, items)` over
`jobs` processes made with fork(), results in order.

Why not ProcessPoolExecutor for this: importing it (multiprocessing, concurrent.futures: sockets,
logging, queues) cost about 10 ms before the first fork, and it starts a manager and a feeder thread
and pickles the run's settings with every chunk: a tenth of a 400-small-file run
(docs/performance.md). A forked worker already holds `fn` and `items`, so a task is a chunk number
(4 bytes) and a result the chunk's pickled outcomes. --verify's shared workers (which also run
compiles) and systems without fork keep the executor (workers/pool.py); workers/execute.py chooses.

Guarantees the run relies on (tests/test_interrupt.py): workers ignore Ctrl-C and finish the chunk
they are in; a worker that dies stops the run (WorkerDied); a worker whose parent dies stops after
its chunk (its next read of the task pipe ends, or its write of the result fails).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_LENGTH = 8  # bytes of a result's length prefix
_PREFETCH = 2  # chunks a worker holds (the one it translates and the next), so it never waits on us


_ENDED = object()  # what next() gives for a `meanwhile` with no step left


class WorkerDied(Exception):
    """A worker process ended without sending its chunk's results (killed, out of memory)."""


class _Worker:
    """The parent's view of one worker: its pid, the pipe ends it reads tasks from / we read results
    from, and the chunks sent to it in order (it answers them in that order)."""

    __slots__ = ("pending", "pid", "results", "tasks")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.pending: list[int] = []


class _Chunks(Generic[T]):
    """`items` cut into tasks of at most `size` items, smaller towards the end (guided self-scheduling:
    a task is at most what is left over twice the workers). Why: the last tasks decide when the slower
    worker ends while the other waits; with 12-file tasks to the end, the two workers of a
    400-small-file run ended 6.4 ms apart on average (now 0.6 ms)."""

    __slots__ = ("items", "starts")

    def __init__(self, items: Sequence[T], size: int, jobs: int) -> None:
        self.items = items
        self.starts = [0]
        left = len(items)
        while left:
            left -= max(1, min(size, left // (2 * jobs)))
            self.starts.append(len(items) - left)

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, number: int) -> Sequence[T]:
        return self.items[self.starts[number] : self.starts[number + 1]]


def forked_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    size: int,
    meanwhile: Iterator[object] | None = None,
) -> Iterator[R]:
    """fn over items in `jobs` forked workers, `size` items a task; yields the results in order.

    Closing the iterator early (an exception in the caller, Ctrl-C) lets each worker finish the chunk
    it is in and waits for it, so no file is left half-written."""
    for payload in forked_payloads(fn, items, jobs, size, meanwhile):
        yield from decode(payload)


def forked_payloads(
    fn: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    size: int,
    meanwhile: Iterator[object] | None = None,
) -> Iterator[bytes]:
    """forked_map's chunks as the workers pickled them (`decode` reads one), in order: what a process
    that only relays them (workers/early.py) passes on without unpickling. The steps of `meanwhile` run
    once the workers hold their first tasks, one at a time while no result is waiting: passing results
    on and feeding tasks come first."""
    chunks = _Chunks(items, max(1, size), jobs)
    workers: list[_Worker] = []
    try:
        for _ in range(min(jobs, len(chunks))):
            workers.append(_start(fn, chunks, workers))
        yield from _results(chunks, workers, meanwhile)
    finally:
        _stop(workers)


def encode(fn: Callable[[T], R], chunk: Sequence[T]) -> bytes:
    """One chunk's results, pickled; an exception is pickled instead, for `decode` to raise."""
    try:
        return pickle.dumps((True, [fn(item) for item in chunk]), -1)
    except Exception as err:  # why: the parent re-raises it, as ProcessPoolExecutor did
        return pickle.dumps((False, _picklable(err)), -1)


def decode(payload: bytes) -> list:
    """The results `encode` pickled (or the exception it caught, raised)."""
    ok, value = pickle.loads(payload)
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _start(fn: Callable[[T], R], chunks: _Chunks[T], running: list[_Worker]) -> _Worker:
    task_read, task_write = os.pipe()
    result_read, result_write = os.pipe()
    # why close: a worker holding another's (or its own) task pipe's write end would never see the end
    # of it when the parent dies
    pid = fork_child(
        lambda: _serve(fn, chunks, task_read, result_write),
        (task_write, result_read, *(f for w in running for f in (w.tasks, w.results))),
    )
    os.close(task_read)
    os.close(result_write)
    return _Worker(pid, task_write, result_read)


def fork_child(body: Callable[[], object], close: Sequence[int]) -> int:
    """Fork a child that closes the fds `close`, ignores Ctrl-C (the parent's to handle), runs `body`
    and exits (status 1 when it raised); the parent gets its pid."""
    for stream in (sys.stdout, sys.stderr):  # why: buffered output would be printed twice
        stream.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            for fd in close:
                os.close(fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            body()
            code = 0
        finally:
            os._exit(code)
    return pid


def _serve(fn: Callable[[T], R], chunks: _Chunks[T], tasks: int, results: int) -> None:
    """Read chunk numbers until the parent closes the pipe; answer each with its pickled results."""
    while True:
        raw = _read_exactly(tasks, 4)
        if raw is None:
            return
        payload = encode(fn, chunks[int.from_bytes(raw, "little")])
        try:
            write_message(results, payload)
        except BrokenPipeError:  # the parent is gone
            return


def _picklable(err: Exception) -> Exception:
    try:
        pickle.dumps(err)
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")
    return err


def _results(
    chunks: _Chunks[T], workers: list[_Worker], meanwhile: Iterator[object] | None = None
) -> Iterator[bytes]:
    following = iter(range(len(chunks)))
    for worker in workers:
        _feed(worker, following, _PREFETCH)
    done: dict[int, bytes] = {}
    wanted = 0
    while wanted < len(chunks):
        while wanted in done:
            yield done.pop(wanted)
            wanted += 1
        if wanted == len(chunks):
            break
        busy = {w.results: w for w in workers if w.pending}
        # why a step only when nothing waits: a slow step (files on a network file system) must not
        # hold back the results or leave a worker without its next task
        ready, _, _ = select.select(list(busy), [], [], None if meanwhile is None else 0)
        if not ready and meanwhile is not None:
            if next(meanwhile, _ENDED) is _ENDED:
                meanwhile = None
            continue
        for fd in ready:
            worker = busy[fd]
            done[worker.pending.pop(0)] = _receive(worker)
            _feed(worker, following, 1)


def _feed(worker: _Worker, following: Iterator[int], count: int) -> None:
    for number in following:
        worker.pending.append(number)
        try:
            _write_all(worker.tasks, number.to_bytes(4, "little"))
        except BrokenPipeError:
            raise WorkerDied(f"worker process {worker.pid} ended") from None
        if len(worker.pending) >= count:
            return


def _receive(worker: _Worker) -> bytes:
    body = read_message(worker.results)
    if body is None:
        raise WorkerDied(f"worker process {worker.pid} ended without its results")
    return body


def read_message(fd: int) -> bytes | None:
    """One length-prefixed message (`write_message`), or None when the pipe ends first."""
    head = _read_exactly(fd, _LENGTH)
    return None if head is None else _read_exactly(fd, int.from_bytes(head, "little"))


def write_message(fd: int, payload: bytes) -> None:
    _write_all(fd, len(payload).to_bytes(_LENGTH, "little") + payload)


def _stop(workers: list[_Worker]) -> None:
    """Close the pipes and wait for every worker: each ends after the chunks it holds (a result nobody
    reads any more fails to be written instead of blocking)."""
    for worker in workers:
        os.close(worker.tasks)
        os.close(worker.results)
    for worker in workers:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(worker.pid, 0)


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from a pipe, or None when it ends first."""
    parts, left = [], size
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts) if len(parts) != 1 else parts[0]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
