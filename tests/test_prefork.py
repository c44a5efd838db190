"""Where a run translates: in its own process for small jobs, in workers otherwise (workers/prefork.py)."""

from __future__ import annotations

from pathlib import Path

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
