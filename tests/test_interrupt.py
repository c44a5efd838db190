"""Interrupted in-place runs (SIGKILL of the process group, of one worker, of the parent; Ctrl-C): every
file is either exactly old or exactly new, leftovers are only recognisable temp files, a re-run finishes.

The kills land at random moments (seeded) after the run has written its first file.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO

from hipify_py.util.fileio import TEMP_MARK, remove_stale_temps

# slow: every test converts a 400-file tree in subprocesses with an empty cache, then kills or interrupts it
pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc and signals"),
    pytest.mark.slow,
]

FILES = 400
DIRS = 20


def _env() -> dict[str, str]:
    return dict(os.environ, HIPIFY_PY_CACHE_DIR="", PYTHONPATH=str(REPO))


def _convert(*args: object) -> list[str]:
    return [sys.executable, "-m", "hipify_py", "convert", *map(str, args)]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A tree of FILES CUDA files (the examples, repeated) and its expected conversion (via -o)."""
    sources = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".cu", ".cuh"))
    root = tmp_path_factory.mktemp("corpus") / "tree"
    for i in range(FILES):
        src = sources[i % len(sources)]
        target = root / f"d{i % DIRS}" / f"f{i}{src.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(src.read_bytes())
    out = root.parent / "expected"
    subprocess.run(_convert("-o", out, "-q", "-j2", root), env=_env(), check=True)
    old, new = _snapshot(root), _snapshot(out)
    assert old.keys() == new.keys() and sum(old[k] != new[k] for k in old) == FILES
    return root, old, new


def _fresh_copy(corpus: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path) -> Path:
    _, old, _ = corpus
    tree = tmp_path / "tree"
    for rel, data in old.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    return tree


def _start(tree: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            _convert("--in-place", "-q", *extra, tree),
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # its own process group, so killpg reaches the workers too
        )
    return proc, log


def _wait_for_first_write(proc: subprocess.Popen[bytes], tree: Path) -> None:
    """Until a file has been replaced (a directory's mtime moves) or the process ends."""
    dirs = sorted(p for p in tree.iterdir() if p.is_dir())
    before = [d.stat().st_mtime_ns for d in dirs]
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if [d.stat().st_mtime_ns for d in dirs] != before:
            return
        time.sleep(0.005)


def _live_processes(field: int, value: int) -> list[int]:
    """Pids of non-zombie processes whose /proc stat field (1: ppid, 2: process group) equals `value`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[field]) == value and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _children(pid: int) -> list[int]:
    return _live_processes(1, pid)


def _group_alive(pgid: int) -> list[int]:
    return _live_processes(2, pgid)


def _check_old_or_new(tree: Path, old: dict[str, bytes], new: dict[str, bytes]) -> int:
    """Every file exactly old or exactly new; anything else must be one of our temp files.
    Returns how many files are new."""
    converted = 0
    for rel, data in _snapshot(tree).items():
        if rel not in old:
            assert TEMP_MARK in Path(rel).name, f"unexpected file {rel}"
            continue
        assert data in (old[rel], new[rel]), f"{rel} is neither the old nor the new content"
        converted += data == new[rel]
    assert all((tree / rel).exists() for rel in old), "a file went missing"
    return converted


def _rerun_finishes(tree: Path, new: dict[str, bytes]) -> None:
    proc = subprocess.run(
        _convert("--in-place", "-q", "-j2", tree), env=_env(), capture_output=True, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert _snapshot(tree) == new  # complete, and the temp files of the killed run are gone


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_of_the_process_group(corpus, tmp_path: Path, seed: int) -> None:
    _, old, new = corpus
    tree = _fresh_copy(corpus, tmp_path)
    proc, _ = _start(tree, tmp_path, "-j2")
    _wait_for_first_write(proc, tree)
    time.sleep(random.Random(seed).uniform(0.0, 0.4))
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    _check_old_or_new(tree, old, new)
    _rerun_finishes(tree, new)


@pytest.mark.parametrize("depth", [1, 2], ids=["a-child", "a-grandchild"])
def test_sigkill_of_one_worker(corpus, tmp_path: Path, depth: int) -> None:
    """The run's children are its workers, or the early translator process (workers/early.py) whose
    children are the workers: killing either kind stops the run with the same message."""
    _, old, new = corpus
    tree = _fresh_copy(corpus, tmp_path)
    proc, log = _start(tree, tmp_path, "-j2")
    _wait_for_first_write(proc, tree)
    workers = _children(proc.pid)
    assert workers, "the run was expected to use a process pool"
    if depth == 2:
        workers = [w for child in workers for w in _children(child)]
        if not workers:
            pytest.skip("the run's children forked no workers of their own (no early process)")
    os.kill(workers[0], signal.SIGKILL)
    assert proc.wait(timeout=60) == 2
    assert "a worker process died" in log.read_text()
    assert _check_old_or_new(tree, old, new) < FILES
    _rerun_finishes(tree, new)


def test_sigkill_of_the_parent_stops_its_workers(corpus, tmp_path: Path) -> None:
    _, old, new = corpus
    tree = _fresh_copy(corpus, tmp_path)
    proc, _ = _start(tree, tmp_path, "-j2")
    _wait_for_first_write(proc, tree)
    assert _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    deadline = time.monotonic() + 30
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _group_alive(proc.pid), "orphaned workers kept running"
    _check_old_or_new(tree, old, new)
    _rerun_finishes(tree, new)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_with_a_message(corpus, tmp_path: Path, jobs: str) -> None:
    _, old, new = corpus
    for attempt in range(3):  # why: on a loaded machine this test may not run until the whole run is over
        tree = _fresh_copy(corpus, tmp_path / str(attempt))
        proc, log = _start(tree, tmp_path / str(attempt), "-j", jobs)
        _wait_for_first_write(proc, tree)
        if proc.poll() is None:
            break
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
    assert proc.wait(timeout=60) == 130
    assert "interrupted; every file is either unchanged or fully converted" in log.read_text()
    assert _check_old_or_new(tree, old, new) < FILES
    assert not [p for p in tree.rglob("*") if TEMP_MARK in p.name]  # a clean stop leaves no temp file
    _rerun_finishes(tree, new)


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid that no longer runs
    dead = tmp_path / f".a.cu{TEMP_MARK}{gone.pid}.k2j4h5g6"
    alive = tmp_path / f".b.cu{TEMP_MARK}{os.getpid()}.x9y8z7w6"  # a concurrent run still writing
    other = tmp_path / ".a.cu.swp"
    for path in (dead, alive, other):
        path.write_bytes(b"partial")
    (tmp_path / "a.cu").write_bytes(b"cudaFree(p);\n")
    proc = subprocess.run(
        _convert("--in-place", "-q", tmp_path), env=_env(), capture_output=True, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert not dead.exists() and alive.exists() and other.exists()
    assert remove_stale_temps([tmp_path]) == []  # nothing left to remove


def test_ctrl_c_inside_a_write_is_held_until_the_temp_file_is_gone(tmp_path: Path, monkeypatch) -> None:
    """A Ctrl-C that lands while the temp file exists (here: right after mkstemp created it, before its
    name is known to the caller) is raised only after the rename: no temp file is left behind."""
    from hipify_py.util import fileio

    made = fileio._temp_file

    def interrupted_mkstemp(target: Path) -> tuple[int, str]:
        created = made(target)
        os.kill(os.getpid(), signal.SIGINT)  # delivered now: between mkstemp and its caller
        return created

    monkeypatch.setattr(fileio, "_temp_file", interrupted_mkstemp)
    target = tmp_path / "a.cu"
    target.write_bytes(b"old\n")
    with pytest.raises(KeyboardInterrupt):
        fileio.atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert not [p for p in tmp_path.iterdir() if TEMP_MARK in p.name]


class _BlockingSide:
    """One side task that runs until stop(), like a compile until it is killed; the task hands a Ctrl-C
    to its own thread first, as the kernel may (any thread that does not block SIGINT can get it)."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.given = False

    def file_done(self, outcome: object) -> None:
        pass

    def translation_done(self) -> None:
        pass

    def next_task(self) -> Callable[[], object] | None:
        if self.given:
            return None
        self.given = True
        return self._task

    def _task(self) -> None:
        time.sleep(0.5)  # why: the main thread is waiting by then
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        self.stopped.wait(30)

    def task_done(self, task: object, result: object) -> None:
        pass

    def stop(self) -> None:
        self.stopped.set()


def test_ctrl_c_that_reaches_another_thread_stops_the_run_at_once() -> None:
    """The main thread, waiting on the side's tasks, raises KeyboardInterrupt at once although the signal
    reached a task's thread: it used to notice only when a task ended (a compile: up to its timeout)."""
    from hipify_py.workers.pool import shared

    side = _BlockingSide()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # also where the suite ignores it
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            for _ in shared((), None, 2, side):  # type: ignore[arg-type]
                pass
    finally:
        signal.signal(signal.SIGINT, previous)
    assert side.stopped.is_set()  # stop() ended the task
    assert time.monotonic() - start < 10  # not the task's 30 s
