"""Where a run translates: in its own process for small jobs, in workers otherwise (workers/prefork.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipify_py.run.discover import Found
from hipify_py.workers import prefork


def _files(tmp_path: Path, count: int, size: int) -> list[Found]:
    found = []
    for i in range(count):
        path = tmp_path / f"f{i}.cu"
        path.write_bytes(b"x" * size)
        found.append(Found(path, tmp_path, "source"))
    return found


def test_one_job_or_a_handful_of_files_is_translated_inline(tmp_path: Path) -> None:
    big = _files(tmp_path, prefork.INLINE_BELOW - 1, prefork.INLINE_BYTES)
    assert prefork.inline(1, _files(tmp_path, 2 * prefork.INLINE_FILES, 10))
    assert prefork.inline(4, big)


def test_small_files_are_translated_inline_up_to_the_byte_and_file_limits(tmp_path: Path) -> None:
    count = prefork.INLINE_BELOW * 2
    assert prefork.inline(2, _files(tmp_path, count, prefork.INLINE_BYTES // count - 1))
    assert not prefork.inline(2, _files(tmp_path, count, prefork.INLINE_BYTES // count + 1))
    assert not prefork.inline(2, _files(tmp_path, prefork.INLINE_FILES + 1, 1))


def test_a_missing_file_counts_as_empty(tmp_path: Path) -> None:
    files = _files(tmp_path, prefork.INLINE_BELOW, 10)
    files[0].path.unlink()
    assert prefork.inline(2, files)


@pytest.mark.parametrize("fork", [True, False], ids=["forked workers", "executor (no fork)"])
def test_every_way_gives_the_outcomes_of_the_run_itself(
    tmp_path: Path, fork: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """execute(): forked workers, and the executor pool a system without fork uses, give the outcomes
    and files of translating in the run's own process, in order."""
    from hipify_py.engine.options import Options
    from hipify_py.run.outcome import Mode, RunSettings
    from hipify_py.workers import execute

    src = tmp_path / "src"
    src.mkdir()
    found = []
    for i in range(20):
        path = src / f"k{i}.cu"
        path.write_bytes(b"#include <cuda_runtime.h>\nvoid f%d(float* p) { cudaMalloc(&p, %d); }\n" % (i, i))
        found.append(Found(path, src, "source"))

    def outcomes(out: Path, jobs: int) -> list[tuple]:
        settings = RunSettings(Mode.OUTPUT_TREE, Options(hip_version="6.4"), output_dir=out, jobs=jobs)
        done = list(execute.execute(found, settings, jobs))
        return [(o.path, o.status, dict(o.counts), o.output.relative_to(out).as_posix()) for o in done]

    alone = outcomes(tmp_path / "alone", 1)
    monkeypatch.setattr(prefork, "INLINE_FILES", 0)  # why: 20 tiny files would be translated inline
    monkeypatch.setattr(execute, "_FORK", fork)
    assert outcomes(tmp_path / "shared", 2) == alone
    trees = [
        {p.relative_to(tmp_path / name): p.read_bytes() for p in (tmp_path / name).rglob("*") if p.is_file()}
        for name in ("alone", "shared")
    ]
    assert trees[0] == trees[1] and len(trees[0]) == 20
