"""File discovery: .gitignore honouring, include globs, and mixed CUDA/HIP trees left untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli.main import main
from hipify_py.run.discover import discover, git_ignored

CUDA = b"#include <cuda_runtime.h>\nvoid f(float **p) { cudaMalloc(p, 4); }\n"
HIP = b"#include <hip/hip_runtime.h>\nvoid f(float **p) { (void)hipMalloc(p, 4); }\n"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))


def _tree(root: Path) -> Path:
    for rel in ("src/a.cu", "build/gen.cu", "src/tmp.gen.cu", "src/deep/b.cu"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(CUDA)
    (root / ".gitignore").write_text("build/\n*.gen.cu\n")
    return root


def _git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def _names(root: Path, **kwargs: object) -> list[str]:
    files, problems = discover([root], **kwargs)  # type: ignore[arg-type]
    assert not problems
    return [f.path.relative_to(root).as_posix() for f in files]


@needs_git
def test_gitignore_honoured_in_a_work_tree(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _git_init(root)
    assert _names(root, gitignore=True) == ["src/a.cu", "src/deep/b.cu"]
    assert _names(root, gitignore=False) == ["build/gen.cu", "src/a.cu", "src/deep/b.cu", "src/tmp.gen.cu"]


@needs_git
def test_gitignore_from_a_subdirectory_of_the_repo(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _git_init(root)
    files, _ = discover([root / "src"], gitignore=True)
    assert [f.path.name for f in files] == ["a.cu", "b.cu"]
    assert git_ignored(root / "src") == frozenset({os.path.join(str(root / "src"), "tmp.gen.cu")})


@needs_git
def test_tracked_file_matching_gitignore_is_kept(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _git_init(root)
    subprocess.run(["git", "-C", str(root), "add", "-f", "src/tmp.gen.cu"], check=True)
    assert "src/tmp.gen.cu" in _names(root, gitignore=True)


def test_not_a_repository_ignores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "plain")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # do not find an enclosing repo
    assert len(_names(root, gitignore=True)) == 4


def test_git_missing_ignores_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "repo")
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert len(_names(root, gitignore=True)) == 4


@needs_git
def test_cli_gitignore_and_explicit_files(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _git_init(root)
    runner = CliRunner()
    result = runner.invoke(main, ["convert", "--check", str(root)], catch_exceptions=False)
    assert "build/gen.cu" not in result.output and "src/a.cu" in result.output
    result = runner.invoke(main, ["convert", "--check", "--no-gitignore", str(root)], catch_exceptions=False)
    assert "build/gen.cu" in result.output
    # a file named on the command line is converted even when git ignores it
    named = root / "build" / "gen.cu"
    result = runner.invoke(
        main, ["convert", "--check", str(named), str(root / "src")], catch_exceptions=False
    )
    assert str(named) in result.output


def test_include_globs(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    # fnmatch globs on the path relative to the walked directory (`*` also matches `/`)
    assert _names(root, include=["*.gen.cu"], gitignore=False) == ["src/tmp.gen.cu"]
    assert _names(root, include=["*/deep/*", "build/*"], gitignore=False) == ["build/gen.cu", "src/deep/b.cu"]


def test_mixed_tree_hip_files_untouched(tmp_path: Path) -> None:
    """Item 3 of the brief: in a mixed tree only the CUDA files are rewritten."""
    root = tmp_path / "mixed"
    (root / "hip").mkdir(parents=True)
    (root / "cuda").mkdir()
    (root / "hip" / "done.cpp").write_bytes(HIP)
    (root / "hip" / "kernel.cu").write_bytes(HIP)
    (root / "cuda" / "todo.cu").write_bytes(CUDA)
    old = 1_600_000_000
    for path in (root / "hip").iterdir():
        os.utime(path, (old, old))
    result = CliRunner().invoke(main, ["convert", "--in-place", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for path in (root / "hip").iterdir():
        assert path.read_bytes() == HIP
        assert path.stat().st_mtime == old
    assert b"hipMalloc" in (root / "cuda" / "todo.cu").read_bytes()


def test_force_exclude_applies_exclude_to_named_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "t")
    monkeypatch.chdir(root)  # pre-commit names staged files relative to the repository root
    named = [Path("src/a.cu"), Path("build/gen.cu"), Path("src/deep/b.cu")]

    def taken(**kwargs: object) -> list[str]:
        files, problems = discover(named, **kwargs)  # type: ignore[arg-type]
        assert not problems
        return [f.path.as_posix() for f in files]

    assert taken(exclude=["build"]) == ["build/gen.cu", "src/a.cu", "src/deep/b.cu"]  # named: taken
    assert taken(exclude=["build"], force_exclude=True) == ["src/a.cu", "src/deep/b.cu"]
    assert taken(exclude=["src/deep/*"], force_exclude=True) == ["build/gen.cu", "src/a.cu"]
    # an absolute name is matched by its path relative to the working directory
    files, _ = discover([root / "build" / "gen.cu"], exclude=["build/*"], force_exclude=True)
    assert files == []


def test_force_exclude_from_config_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "t")
    (root / ".hipify-py.toml").write_text('exclude = ["build"]\nforce-exclude = true\n')
    monkeypatch.chdir(root)
    result = CliRunner().invoke(
        main, ["convert", "--check", "build/gen.cu", "src/a.cu"], catch_exceptions=False
    )
    assert "would convert src/a.cu" in result.output and "gen.cu" not in result.output
    assert result.exit_code == 1
    result = CliRunner().invoke(main, ["convert", "--check", "build/gen.cu"], catch_exceptions=False)
    assert result.exit_code == 0 and "0 file(s) scanned" in result.output


def _os_walk_reference(top: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """What the walk yielded when it was os.walk plus an lstat per file (the semantics _walk keeps)."""
    from hipify_py.run.discover import SKIP_DIRS

    files: list[str] = []
    problems: list[tuple[str, str]] = []
    seen: set[tuple[int, int]] = set()

    def onerror(err: OSError) -> None:
        problems.append((str(err.filename), f"cannot read directory: {err.strerror}"))

    for dirpath, dirnames, filenames in os.walk(top, followlinks=True, onerror=onerror):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen:
            problems.append((dirpath, "symlink loop: directory already visited, skipped"))
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            file = Path(dirpath) / name
            if file.is_symlink() and not file.exists():
                problems.append((str(file), "broken symlink, skipped"))
                continue
            files.append(str(file))
    return files, problems


def test_walk_keeps_os_walk_semantics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Links to directories are walked once (a loop is reported), broken links and unreadable
    directories are reported, skipped directories are not entered: as os.walk's walk did."""
    root = tmp_path / "t"
    for rel in ("b.cu", "a/z.cu", "a/b/c.h", "a/.git/x.cu", "c/d.cuh", "c/e/f.cu", "node_modules/m.cu"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(CUDA)
    (root / "a" / "up").symlink_to("..")  # a loop
    (root / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.cu").write_bytes(CUDA)
    (root / "c" / "gone.cu").symlink_to(root / "nowhere.cu")
    (root / "c" / "fifo.cu").write_bytes(b"")
    locked = root / "c" / "e"
    real_scandir = os.scandir

    def scandir(path: str) -> object:  # why not chmod: root reads a 000 directory
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    expected_files, expected_problems = _os_walk_reference(root)
    files, problems = discover([root])
    assert [str(f.path) for f in files] == sorted(expected_files)
    assert [(str(p.path), p.message) for p in problems] == expected_problems
    assert any("symlink loop" in message for _, message in expected_problems)
    assert any(message.startswith("cannot read directory") for _, message in expected_problems)
    assert any(path.endswith("outside/o.cu") or "link" in path for path in expected_files)


def test_cpp_spellings_of_real_projects_are_converted(tmp_path: Path) -> None:
    """`.H`/`.C` (AMReX), `.inc` (Kokkos' desul), `.ipp`/`.tpp`/`.tcc`/`.icc`, `.c++`/`.h++`, and CUDA
    headers named `.hu` (LightGBM) or `.cuinc`: C++ and CUDA as projects name them."""
    names = ["a.H", "b.C", "c.inc", "d.ipp", "e.tpp", "f.c++", "g.h++", "h.hu", "i.cuinc", "j.tcc", "k.icc"]
    names += ["notes.txt", "data.bin"]
    for name in names:
        (tmp_path / name).write_bytes(CUDA)
    assert _names(tmp_path, build_files=False) == sorted(names[:-2])
    result = CliRunner().invoke(main, ["convert", str(tmp_path), "-q", "--in-place"])
    assert result.exit_code == 0, result.output
    assert all(b"hipMalloc" in (tmp_path / n).read_bytes() for n in names[:-2])
    assert (tmp_path / "notes.txt").read_bytes() == CUDA


def test_headers_named_without_an_extension_are_converted(tmp_path: Path) -> None:
    """libcu++-style headers (cuCollections' `cuco/detail/__config`): a file with no extension whose first
    directive after comments opens a header. Makefiles' and scripts' `#` lines, text and binary are not."""
    headers = {
        "__config": b"// -*- C++ -*-\n/* licence */\n#pragma once\n",
        "atomic": b"//===---===//\n#ifndef _CUCO_ATOMIC\n#define _CUCO_ATOMIC\n",
        "dense": b'#include "core"\n',
    }
    others = {
        "Makefile.rules": b"# rules\n",  # an extension: not sniffed
        "rules": b"# if you want CUDA, set CUDA=1\nall:\n\tnvcc a.cu\n",
        "run": b"#!/bin/sh\n#include <x>\n",
        "LICENSE": b"Copyright\n#ifndef X\n",
        "blob": b"#pragma once\n\0\1\2",
    }
    for name, text in {**headers, **others}.items():
        (tmp_path / name).write_bytes(text + CUDA)
    assert _names(tmp_path, build_files=False) == sorted(headers)
    result = CliRunner().invoke(main, ["convert", str(tmp_path), "-q", "--in-place"])
    assert result.exit_code == 0, result.output
    assert all(b"hipMalloc" in (tmp_path / n).read_bytes() for n in headers)
    assert all(b"hipMalloc" not in (tmp_path / n).read_bytes() for n in others)


def test_files_of_other_extensions_holding_cuda_code_are_converted(tmp_path: Path) -> None:
    """A file with an extension no C++ file has, beside CUDA files, is converted when its text holds CUDA
    code: neutral's `cuda/neutral.k` (kernels neutral.cu includes), a CMake template `kernels.cu.in`.
    Python, text, documentation, HIP's `.hip`, build files and binaries are not, nor files with no CUDA
    in them, nor files in a folder without a CUDA file (where IREE keeps thousands of .mlir files)."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "kernels.k").write_bytes(b"__global__ void k() {}\n" + CUDA)
    sources = {
        "neutral.cu": b'#include "neutral.k"\n',
        "neutral.k": b'#include "shared.h"\n__global__ void k(float* x) { x[0] = 1; }\n' + CUDA,
        "kernels.cu.in": b"#define N @N@\n" + CUDA,
        "launch.kern": b"void g(float* x) { k<<<1, 32>>>(x); cudaDeviceSynchronize(); }\n",
    }
    others = {
        "inline.py": b'src = """__global__ void k() {}"""\n' + CUDA,
        "README.md": b"```cuda\n__global__ void k() {}\n```\n" + CUDA,
        "k.hip": b"__global__ void k() {}\n" + CUDA,
        "Makefile.cuda": b"# __global__\n" + CUDA,
        "conflict.k": b"<<<<<<< HEAD\n>>>>>>> branch\ncudaMalloc(p, 4);\n",
        "heredoc.cfg2": b"cat <<< $x; cudaMalloc(p, 4)\n",
        "blob.k": b"\0\1__global__\n" + CUDA,
        "old.cu~": CUDA,
        ".k.cu.hipify-py-tmp.123.ab12cd": CUDA,  # an interrupted run's temp file: removed, not converted
        ".swap.k": b"__global__ void k() {}\n" + CUDA,
    }
    for name, text in {**sources, **others}.items():
        (tmp_path / name).write_bytes(text)
    assert _names(tmp_path, build_files=False) == sorted(sources)
    result = CliRunner().invoke(main, ["convert", str(tmp_path), "-q", "--in-place"])
    assert result.exit_code == 0, result.output
    assert all(b"cuda" not in (tmp_path / n).read_bytes() for n in sources)
    temp = ".k.cu.hipify-py-tmp.123.ab12cd"
    assert not (tmp_path / temp).exists()  # a stale temp file: the run removes it (util/fileio.py)
    assert all((tmp_path / n).read_bytes() == text for n, text in others.items() if n != temp)
    assert b"cudaMalloc" in (tmp_path / "elsewhere" / "kernels.k").read_bytes()


def test_makefile_variants_are_build_files(tmp_path: Path) -> None:
    """`Makefile.cuda` (neutral), `makefile.nvidia`, `Makefile.inc`: Makefiles built with `make -f` or
    included, converted as Makefiles; automake's `Makefile.am`/`Makefile.in` are not Makefiles."""
    text = b"NVCC = nvcc\nLDFLAGS = -lcudart\n"
    makefiles = ["Makefile.cuda", "makefile.nvidia", "Makefile.inc", "rules.mk"]
    for name in [*makefiles, "Makefile.am", "Makefile.in"]:
        (tmp_path / name).write_bytes(text)
    files, _ = discover([tmp_path])
    assert sorted(f.path.name for f in files if f.kind == "build") == sorted(makefiles)
    result = CliRunner().invoke(main, ["convert", str(tmp_path), "-q", "--in-place"])
    assert result.exit_code == 0, result.output
    assert all(b"hipcc" in (tmp_path / n).read_bytes() for n in makefiles)
    assert (tmp_path / "Makefile.am").read_bytes() == text
