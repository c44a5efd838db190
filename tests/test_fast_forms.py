"""Faster forms of standard-library calls on a file's path (run/process.py, util/fileio.py,
engine/options.py): each must give what the standard form gives."""

from __future__ import annotations

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
def test_with_filename_is_replace(options: Options) -> None:
    assert Options._fields[-1] == "filename"  # with_filename builds the tuple on that
    fast, slow = with_filename(options, "dir/b.cu"), options._replace(filename="dir/b.cu")
    assert type(fast) is Options
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert pickle.dumps(fast) == pickle.dumps(slow)
    assert options.filename != "dir/b.cu"  # the original is left as it was
    with pytest.raises(AttributeError):
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


def _program(directory: Path, name: str, mode: int = 0o755) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(mode)
    return path


@pytest.mark.skipif(os.name != "posix", reason="util/commands.which defers to shutil.which off POSIX")
def test_which_is_shutil_which(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from hipify_py.util.commands import which

    a, b, c, d = (tmp_path / n for n in "abcd")
    _program(a, "hipcc", 0o644)  # not executable: skipped
    _program(b, "hipcc")
    (c / "hipcc").mkdir(parents=True)  # a directory: skipped
    _program(d, "other")
    paths = [
        os.pathsep.join(map(str, (a, c, b, d))),
        os.pathsep.join(map(str, (d, d, b))),
        os.pathsep.join(map(str, (a, c))),
        str(tmp_path / "missing"),
        "",
        os.pathsep,
    ]
    for path in paths:
        for name in ("hipcc", "other", str(b / "hipcc"), str(a / "hipcc"), "b/hipcc"):
            assert which(name, path) == shutil.which(name, path=path), (name, path)
    monkeypatch.chdir(tmp_path)
    for environ_path in (str(b), "", None):
        if environ_path is None:
            monkeypatch.delenv("PATH")
        else:
            monkeypatch.setenv("PATH", environ_path)
        assert which("hipcc") == shutil.which("hipcc"), environ_path
        assert which("b/hipcc") == shutil.which("b/hipcc") == "b/hipcc"
