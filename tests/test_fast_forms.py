"""Faster forms of standard-library calls on a file's path (run/process.py, util/fileio.py,
engine/options.py): each must give what the standard form gives."""

from __future__ import annotations

import dataclasses
import os
import pickle
from pathlib import Path

import pytest

from hipify_py.engine.options import Options, with_filename
from hipify_py.run.process import _relative
from hipify_py.util import fileio


@pytest.mark.parametrize(
    "options",
    [Options(), Options(roc=True, hip_version="6.4", ignore_rules=frozenset({"HIP101"}), filename="a.cu")],
)
def test_with_filename_is_dataclasses_replace(options: Options) -> None:
    fast, slow = with_filename(options, "dir/b.cu"), dataclasses.replace(options, filename="dir/b.cu")
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert pickle.dumps(fast) == pickle.dumps(slow)
    assert options.filename != "dir/b.cu"  # the original is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.filename = "c.cu"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("path", "root"),
    [
        ("/a/b/c.cu", "/a"),
        ("/a/b/c.cu", "/a/b"),
        ("a/b/c.cu", "a"),
        ("a/b/c.cu", "."),
        ("c.cu", "."),
        ("/a/b", "/"),
        ("//a/b", "/"),  # POSIX keeps a leading `//` as its own root
        ("//x/a", "//x"),
        ("/ab/c", "/a"),  # a prefix of the text, not of the parts
        ("/a", "/a"),
    ],
)
def test_relative_is_relative_to(path: str, root: str) -> None:
    out = Path("/out")
    try:
        expected: Path | None = out / Path(path).relative_to(Path(root))
    except ValueError:
        expected = None
    try:
        got: Path | None = out / _relative(Path(path), Path(root))
    except ValueError:
        got = None
    assert got == expected and str(got) == str(expected)


@pytest.mark.parametrize("size", [0, 1, 100, 70_000, 300_000])
def test_read_source_stat_reads_the_whole_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "f.cu"
    path.write_bytes(bytes(b % 255 + 1 for b in range(size)))
    data, st = fileio.read_source_stat(path)
    assert data == path.read_bytes() and st.st_size == size


def test_read_to_end_reads_past_the_stat_size(tmp_path: Path) -> None:
    """A file that grew after its stat is read whole, as a file object's read() reads it."""
    path = tmp_path / "f.cu"
    path.write_bytes(b"x" * 200_000)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert fileio._read_to_end(fd, 10) == b"x" * 200_000
    finally:
        os.close(fd)


@pytest.mark.parametrize("name", ["f.cu", "sub/f.cu"])
def test_temp_file_is_next_to_its_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The temp file's directory and name come from os.path.split: a bare name's is the current one."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    fd, temp = fileio._temp_file(Path(name))
    os.close(fd)
    made = Path(temp).resolve()
    assert made.parent == (tmp_path / name).parent
    assert made.name.startswith(f".f.cu{fileio.TEMP_MARK}{os.getpid()}.")
    fileio.write_replacing(Path(name), b"x", None)
    assert (tmp_path / name).read_bytes() == b"x"
