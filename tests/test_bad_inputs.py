"""Bad inputs through the CLI: each gets a clear message, the run goes on, no byte is lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hipify_py.cli.main import main
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.util import fileio
from hipify_py.workers import prefork

CUDA = b"#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 16); cudaFree(*p); }\n"
HIP = translate(CUDA, Options()).text
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def in_place(*paths: Path, jobs: int = 1) -> Result:
    return CliRunner().invoke(main, ["convert", "--in-place", "-j", str(jobs), *map(str, paths)])


@pytest.fixture
def good(tmp_path: Path) -> Path:
    """A normal CUDA file next to the bad input: it must be converted whatever happens to the other."""
    path = tmp_path / "good.cu"
    path.write_bytes(CUDA)
    return path


def test_sample_needs_conversion() -> None:
    assert HIP != CUDA and b"hipMalloc" in HIP


def test_binary_file_is_skipped_and_kept(tmp_path: Path, good: Path) -> None:
    blob = bytes(range(256)) * 4  # NUL bytes: not source text
    (tmp_path / "blob.cu").write_bytes(blob)
    result = in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert "blob.cu: skipped: binary file" in result.stderr
    assert (tmp_path / "blob.cu").read_bytes() == blob
    assert good.read_bytes() == HIP


def test_utf16_file_is_skipped_with_its_own_message(tmp_path: Path, good: Path) -> None:
    wide = "\ufeff// wide\ncudaFree(p);\n".encode("utf-16-le")
    (tmp_path / "wide.cu").write_bytes(wide)
    result = in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert "wide.cu: skipped: UTF-16 text is not supported" in result.stderr
    assert (tmp_path / "wide.cu").read_bytes() == wide and good.read_bytes() == HIP


@pytest.mark.parametrize(
    "comment",
    ["// café, naïve, ½\n".encode("latin-1"), "// 中文注释：分配显存\n".encode("gbk")],
    ids=["latin-1", "gbk"],
)
def test_invalid_utf8_is_converted_byte_for_byte(tmp_path: Path, good: Path, comment: bytes) -> None:
    with pytest.raises(UnicodeDecodeError):
        comment.decode("utf-8")
    source = comment + CUDA + comment
    (tmp_path / "enc.cu").write_bytes(source)
    result = in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert "enc.cu: changed: not valid UTF-8" in result.stderr
    out = (tmp_path / "enc.cu").read_bytes()
    assert out.startswith(comment) and out.endswith(comment)  # the undecodable bytes are untouched
    assert out == comment + HIP + comment
    assert good.read_bytes() == HIP


def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "dos.cu"
    path.write_bytes(CUDA.replace(b"\n", b"\r\n"))
    assert in_place(path).exit_code == 0
    out = path.read_bytes()
    assert b"hipMalloc" in out
    assert out.count(b"\n") == out.count(b"\r\n") == CUDA.count(b"\n")


def test_utf8_bom_is_kept_first(tmp_path: Path) -> None:
    path = tmp_path / "bom.cu"
    path.write_bytes(b"\xef\xbb\xbf" + CUDA)
    assert in_place(path).exit_code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + HIP


def test_empty_file_stays_empty(tmp_path: Path, good: Path) -> None:
    (tmp_path / "empty.cu").write_bytes(b"")
    result = in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "empty.cu").read_bytes() == b""
    assert good.read_bytes() == HIP


@pytest.mark.slow
def test_ten_megabyte_file(tmp_path: Path) -> None:
    body = (
        b"void step(float* d, const float* h, size_t n) {\n"
        b"  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);  // copy in\n"
        b"}\n"
    )
    copies = 10 * 1024 * 1024 // len(body) + 1
    path = tmp_path / "big.cu"
    path.write_bytes(b"#include <cuda_runtime.h>\n" + body * copies)
    result = in_place(path)
    assert result.exit_code == 0, result.output
    out = path.read_bytes()
    assert out.count(b"hipMemcpy(d, h, n, hipMemcpyHostToDevice);") == copies
    assert b"cuda" not in out


def test_symlink_loop_is_reported_and_the_run_goes_on(tmp_path: Path, good: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop").symlink_to("..")
    result = in_place(tmp_path)
    assert "symlink loop" in result.stderr
    assert result.exit_code == 2  # reported as a problem, after converting everything else
    assert good.read_bytes() == HIP


def test_symlinked_file_stays_a_link_and_its_target_is_converted(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "k.cu"
    target.write_bytes(CUDA)
    link = tmp_path / "link.cu"
    link.symlink_to(target)
    assert in_place(link).exit_code == 0
    assert link.is_symlink() and target.read_bytes() == HIP


@pytest.mark.skipif(AS_ROOT, reason="root reads a chmod 000 file; see the monkeypatched variant below")
def test_unreadable_file_chmod_000(tmp_path: Path, good: Path) -> None:
    locked = tmp_path / "locked.cu"
    locked.write_bytes(CUDA)
    locked.chmod(0)
    try:
        result = in_place(tmp_path)
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 2
    assert "locked.cu: error: permission denied" in result.stderr
    assert locked.read_bytes() == CUDA and good.read_bytes() == HIP


def test_unreadable_file_any_user(tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root-proof variant: the open itself fails with EACCES, as for another user's 0600 file."""
    locked = tmp_path / "locked.cu"
    locked.write_bytes(CUDA)
    real_open = os.open

    def deny(path: str | os.PathLike[str], *args: int, **kwargs: int) -> int:
        if Path(path).name == "locked.cu":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "open", deny)
    result = in_place(tmp_path)
    monkeypatch.undo()
    assert result.exit_code == 2
    assert "locked.cu: error: permission denied" in result.stderr
    assert locked.read_bytes() == CUDA and good.read_bytes() == HIP


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_like_a_source_does_not_hang_the_run(tmp_path: Path, good: Path) -> None:
    os.mkfifo(tmp_path / "pipe.cu")  # opening it for reading would block until a writer comes
    result = in_place(tmp_path)
    assert result.exit_code == 0, result.output
    assert "pipe.cu: skipped: not a regular file" in result.stderr
    assert good.read_bytes() == HIP


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_reading_ahead_skips_what_it_cannot_advise_and_never_blocks(tmp_path: Path, good: Path) -> None:
    os.mkfifo(tmp_path / "pipe.cu")  # opened without O_NONBLOCK, it would block until a writer comes
    (tmp_path / "dir.cu").mkdir()
    names = ("pipe.cu", "dir.cu", "missing.cu", "good.cu")
    assert len(list(fileio.reading_ahead([str(tmp_path / n) for n in names], batch=2))) == 2
    assert good.read_bytes() == CUDA  # nothing is changed, nothing raised


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the early process and its workers need fork")
def test_a_forked_run_reads_ahead_its_files_and_the_bad_ones_still_get_their_message(
    tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(prefork.INLINE_FILES + 1):  # why so many: fewer are translated without workers
        (tmp_path / f"k{n}.cu").write_bytes(CUDA)
    os.mkfifo(tmp_path / "pipe.cu")
    advised: list[str] = []
    real = fileio._advise_reading
    monkeypatch.setattr(fileio, "_advise_reading", lambda path: advised.append(path) or real(path))
    result = CliRunner().invoke(main, ["convert", "-o", str(tmp_path / "out"), "-j", "2", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "pipe.cu: skipped: not a regular file" in result.stderr
    assert (tmp_path / "out" / "k128.cu").read_bytes() == HIP
    # the steps run while the workers translate (the first batch at least); the rest may be dropped once
    # every result is in
    assert len(advised) >= 16 and {Path(p).parent for p in advised} == {tmp_path}


def test_read_only_file_is_refused_with_in_place(tmp_path: Path, good: Path) -> None:
    frozen = tmp_path / "frozen.cu"
    frozen.write_bytes(CUDA)
    frozen.chmod(0o444)
    result = in_place(tmp_path)
    assert result.exit_code == 2
    assert "frozen.cu: error: read-only file: not modified" in result.stderr
    assert frozen.read_bytes() == CUDA and (frozen.stat().st_mode & 0o777) == 0o444
    assert good.read_bytes() == HIP


def test_nonexistent_path_exits_2_and_the_others_are_converted(tmp_path: Path, good: Path) -> None:
    result = in_place(tmp_path / "nope", good, tmp_path / "nope.cu")
    assert result.exit_code == 2
    assert "nope: no such file or directory" in result.stderr
    assert "nope.cu: no such file or directory" in result.stderr
    assert good.read_bytes() == HIP
