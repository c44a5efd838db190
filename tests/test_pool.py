"""Where a run translates: in its own process for small jobs, in a pool of workers otherwise (workers/)."""

from __future__ import annotations

from pathlib import Path

from hipify_py.run.discover import Found
from hipify_py.workers import pool


def _files(tmp_path: Path, count: int, size: int) -> list[Found]:
    found = []
    for i in range(count):
        path = tmp_path / f"f{i}.cu"
        path.write_bytes(b"x" * size)
        found.append(Found(path, tmp_path, "source"))
    return found


def test_one_job_or_a_handful_of_files_is_translated_inline(tmp_path: Path) -> None:
    big = _files(tmp_path, pool.INLINE_BELOW - 1, pool.INLINE_BYTES)
    assert pool.inline(1, _files(tmp_path, 2 * pool.INLINE_FILES, 10))
    assert pool.inline(4, big)


def test_small_files_are_translated_inline_up_to_the_byte_and_file_limits(tmp_path: Path) -> None:
    count = pool.INLINE_BELOW * 2
    assert pool.inline(2, _files(tmp_path, count, pool.INLINE_BYTES // count - 1))
    assert not pool.inline(2, _files(tmp_path, count, pool.INLINE_BYTES // count + 1))
    assert not pool.inline(2, _files(tmp_path, pool.INLINE_FILES + 1, 1))


def test_a_missing_file_counts_as_empty(tmp_path: Path) -> None:
    files = _files(tmp_path, pool.INLINE_BELOW, 10)
    files[0].path.unlink()
    assert pool.inline(2, files)
