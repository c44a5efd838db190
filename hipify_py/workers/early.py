"""A translator process started with the command, before the command line is imported.

Why: before its first file was translated, a run's own process spent about 65 ms on one CPU after the
interpreter's start: click and the command line's modules (about 40 ms), then the translation pipeline,
tree-sitter's grammar and the mapping tables (about 25 ms). The second part does not depend on the
command line, so `start()` forks at start-up a process that loads it on another CPU meanwhile; the
run then hands it the files (`Early.send`) and reads back their outcomes (`Early.outcomes`). It
translates them itself, or forks the workers (workers/forked.py) that do, from its loaded state, after
the same prefork.prepare() as every way of running workers (execute.py hands it the job). It is the
start-up trick `early`: `HIPIFY_PY_PLAIN=early` turns it off (util/startup.py).

Guarantees are those of forked.py: the process ignores Ctrl-C (the run handles it), and when the run
stops reading (an exception, Ctrl-C, the run killed) its writes fail and it lets its workers finish
the chunk they are in; a run stopped before its last outcome waits for it, so no file is left
half-written. A run that does not use it (help, a cache hit for every file, --verify, a failure
before the run) closes the job pipe: it exits without doing anything.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hipify_py.util import startup
from hipify_py.workers.forked import WorkerDied, decode, fork_child, read_message, write_message

if TYPE_CHECKING:
    from hipify_py.run.discover import Found
    from hipify_py.run.outcome import FileOutcome, RunSettings

# files translated in-process are sent this many at a time: one message and one pickle each, and what
# the process finishes after a Ctrl-C
_INLINE_CHUNK = 8


class Early:
    """The run's handle on the translator process: its pid, the pipe ends to send the job on and to
    read the outcomes from. One job at most; `close()` when there is none."""

    __slots__ = ("job", "pid", "results")

    def __init__(self, pid: int, job: int, results: int) -> None:
        self.pid, self.job, self.results = pid, job, results

    def send(self, files: Sequence[Found], settings: RunSettings, jobs: int) -> bool:
        """Hand over the job: `files` translated with `settings` by up to `jobs` processes. False when
        the process is gone (nothing was translated: the caller translates instead)."""
        from hipify_py.workers.prefork import inline

        roots: dict[Path, int] = {}
        # why strings: unpickling a Path parses it again; the workers make the paths of their own files
        items = [(str(found.path), roots.setdefault(found.root, len(roots)), found.kind) for found in files]
        job = (items, list(roots), settings, jobs, inline(jobs, files))
        try:
            write_message(self.job, pickle.dumps(job, -1))
        except OSError:
            return False
        return True

    def outcomes(self, count: int) -> Generator[FileOutcome, None, None]:
        """The job's `count` outcomes in order; WorkerDied when the process ends before the last.
        Closing the iterator before the last outcome arrived waits for the process (it finishes the
        files it is writing); after it, every file is written and nothing is waited for."""
        done = 0
        try:
            while done < count:
                payload = read_message(self.results)
                if payload is None:
                    raise WorkerDied(f"translator process {self.pid} ended without its results")
                chunk = decode(payload)
                done += len(chunk)
                yield from chunk
        finally:
            self.close(wait=done < count)

    def close(self, wait: bool = False) -> None:
        """Close both pipes (the process then ends after what it is writing); `wait`: until it has."""
        for fd in (self.job, self.results):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.job = self.results = -1
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0 if wait else os.WNOHANG)


def wanted(argv: Sequence[str]) -> bool:
    """Is this command line a translation run? A guess from its words (click has not parsed it yet):
    a wrong yes costs a process that imports and exits, a wrong no the time this saves."""
    words = set(argv[1:])
    return (
        hasattr(os, "fork")
        and "convert" in words
        and not words & {"-h", "--help", "--version", "--verify"}
        and startup.on("early")
    )


def load_shared() -> None:
    """Import, before forking, the modules both the run and the translator process import (dataclasses
    with inspect, shutil, the option, finding, table and per-file modules: ~15 ms): once instead of in
    each. It shifts no time onto the run's own path (it imports them anyway), and the translator process
    is ready as early (it has that much less to import)."""
    import hipify_py.analysis.defines
    import hipify_py.data.derived
    import hipify_py.data.installed
    import hipify_py.engine.rule_texts
    import hipify_py.run.outcome
    import hipify_py.run.process  # noqa: F401


def start() -> Early | None:
    """Fork the translator process (see the module's docstring); None where there is no fork."""
    job_read, job_write = os.pipe()
    result_read, result_write = os.pipe()
    try:
        pid = fork_child(lambda: _child(job_read, result_write), (job_write, result_read))
    except OSError:  # out of processes: the run translates itself
        for fd in (job_read, job_write, result_read, result_write):
            os.close(fd)
        return None
    os.close(job_read)
    os.close(result_write)
    return Early(pid, job_write, result_read)


def _child(jobs: int, results: int) -> None:
    _detach_output()
    with contextlib.suppress(BrokenPipeError):  # the run stopped reading: nothing left to do
        _serve(jobs, results)


def _detach_output() -> None:
    """Standard streams to /dev/null. Why: a caller that reads the command's output to its end (pre-commit,
    subprocess.run) would otherwise wait for this process too, also when the run did not need it; what
    the translation says travels in the outcomes, and the run prints it."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _serve(jobs: int, results: int) -> None:
    _load()
    # why stoppable: a job that arrives meanwhile goes first; its target's tables load next anyway, and
    # a job for another target (--hip-version) no longer waits for the rest of a wrong guess (~3 ms)
    _load_likely_target(lambda: bool(select.select([jobs], [], [], 0)[0]))
    message = read_message(jobs)
    if message is None:  # the run did not need us
        return
    items, roots, settings, count, serial = pickle.loads(message)
    payloads = _payloads(items, roots, settings, count, serial)
    with contextlib.closing(payloads):  # why: its workers are waited for
        for payload in payloads:
            write_message(results, payload)


def _load() -> None:
    """What every translation needs, whatever the command line says: the pipeline's modules, the
    grammar and the shipped mapping tables (per-target tables come with the job: prefork.prepare)."""
    from hipify_py.engine.parser import warm_up
    from hipify_py.pipeline.translate import default_tables

    warm_up()
    default_tables()


def _load_likely_target(stop: Callable[[], bool]) -> None:
    """The rule tables of the HIP a run without --hip-version targets, while the run is still reading
    its command line (a pool loads them before forking; a wrong guess costs ~3 ms), until `stop()`."""
    version = None if stop() else _likely_target()
    if version is not None:
        from hipify_py.engine.options import Options
        from hipify_py.pipeline.translate import preload_rule_tables

        preload_rule_tables(Options(hip_version=version), stop)


def _likely_target() -> str | None:
    """The installed HIP as the run's default target finds it (data/target.py), when the answer is
    already remembered: probing hipcc here would race the run doing the same."""
    from hipify_py.data.target import installed_hip
    from hipify_py.util.locations import cache_root

    found = installed_hip(cache_dir=cache_root(), probe=False)
    return found.version if found is not None else None


_Item = tuple[str, int, str]  # a file of the job: its path, the index of its root, its kind


def _payloads(
    items: Sequence[_Item], roots: Sequence[Path], settings: RunSettings, jobs: int, serial: bool
) -> Iterator[bytes]:
    """The job's outcomes, pickled a chunk at a time: translated here when a pool would not pay off
    (`serial`: prefork.inline), else by forked workers whose pickled chunks are passed on as they are."""
    from hipify_py.run.discover import Found
    from hipify_py.run.process import process
    from hipify_py.util.lazyre import save_programs
    from hipify_py.workers.forked import encode
    from hipify_py.workers.prefork import fork_workers, has_sources, prepare

    def work(item: _Item) -> FileOutcome:
        path, root, kind = item
        return process(Found(Path(path), roots[root], kind), settings)

    prepare(settings, has_sources(kind for _, _, kind in items), fork=not serial)
    if not serial:
        yield from fork_workers(work, items, (path for path, _, _ in items), jobs)
        return
    for start in range(0, len(items), _INLINE_CHUNK):
        payload = encode(work, items[start : start + _INLINE_CHUNK])
        if start + _INLINE_CHUNK >= len(items):
            # why before the last payload: the regex programs this process built are kept for the
            # next run (lazyre saves at exit, which os._exit skips), while the run still waits
            save_programs()
        yield payload
