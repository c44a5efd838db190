"""Rename policy (.cu -> .hip/.cpp, .cuh -> .hip.h/.h) and the quoted includes that follow it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli.main import main
from hipify_py.run.output_names import make_plan, new_name, update_includes


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    ("name", "policy", "expected"),
    [
        ("k.cu", "hip", "k.hip"),
        ("k.cuh", "hip", "k.hip.h"),
        ("k.cu", "cpp", "k.cpp"),
        ("k.cuh", "cpp", "k.h"),
        ("k.cu", "none", None),
        ("k.cpp", "hip", None),
        ("k.h", "hip", None),
        (".cu", "hip", None),
    ],
)
def test_new_name(name: str, policy: str, expected: str | None) -> None:
    assert new_name(name, policy) == expected


def test_unknown_policy_is_rejected() -> None:
    with pytest.raises(ValueError, match="rename policy"):
        make_plan([Path("a.cu")], "hipify")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


TREE = {
    "common/util.cuh": (
        '#pragma once\n#include "types.cuh"\ninline void sync() { cudaDeviceSynchronize(); }\n'
    ),
    "common/types.cuh": "#pragma once\ntypedef float real;\n",
    "kernels/k.cu": (
        '#include "../common/util.cuh"\n'
        '#include "k.cuh"\n'
        "/* old layout:\n"
        '#include "k.cuh"\n'
        "*/\n"
        'const char *s = "#include \\"k.cuh\\"";\n'
        "__global__ void k() {}\n"
    ),
    "kernels/k.cuh": "#pragma once\n__global__ void k();\n",
    "main.cpp": '#include "kernels/k.cuh"\n#include "util.cuh"\n#include <cuda_runtime.h>\nint main() {}\n',
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.21)\nproject(demo LANGUAGES CXX CUDA)\n"
        "add_executable(demo main.cpp kernels/k.cu)\n"
    ),
}


def test_update_includes_only_touches_include_strings(tmp_path: Path) -> None:
    _write(tmp_path, TREE)
    plan = make_plan([tmp_path / rel for rel in TREE], "hip")
    text = (tmp_path / "kernels/k.cu").read_bytes()
    new, count = update_includes(text, tmp_path / "kernels/k.cu", plan)
    assert count == 2
    assert new.splitlines()[:2] == [b'#include "../common/util.hip.h"', b'#include "k.hip.h"']
    # the commented-out include and the string literal stay as they were
    assert new.splitlines()[2:] == text.splitlines()[2:]


def test_bare_basename_only_when_unique(tmp_path: Path) -> None:
    _write(tmp_path, {"a/x.cuh": "", "b/x.cuh": "", "b/y.cuh": "", "main.cpp": ""})
    plan = make_plan(list(tmp_path.rglob("*.cuh")), "cpp")
    src = b'#include "x.cuh"\n#include "y.cuh"\n#include "b/x.cuh"\n'
    new, count = update_includes(src, tmp_path / "main.cpp", plan)
    assert new == b'#include "x.cuh"\n#include "y.h"\n#include "b/x.h"\n'
    assert count == 2


@pytest.mark.parametrize("mode", ["--in-place", "-o"])
def test_rename_tree_with_includes(tmp_path: Path, mode: str) -> None:
    src = tmp_path / "src"
    _write(src, TREE)
    out = tmp_path / "out" if mode == "-o" else src
    args = ["convert", str(src), "--rename", "hip", *(["-o", str(out)] if mode == "-o" else ["--in-place"])]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert names == [
        "CMakeLists.txt",
        "common/types.hip.h",
        "common/util.hip.h",
        "kernels/k.hip",
        "kernels/k.hip.h",
        "main.cpp",
    ]
    main_cpp = (out / "main.cpp").read_text()
    assert '#include "kernels/k.hip.h"' in main_cpp and '#include "util.hip.h"' in main_cpp
    assert '#include "types.hip.h"' in (out / "common/util.hip.h").read_text()
    assert "hipDeviceSynchronize" in (out / "common/util.hip.h").read_text()
    kernel = (out / "kernels/k.hip").read_text()
    assert '#include "../common/util.hip.h"' in kernel and '/* old layout:\n#include "k.cuh"' in kernel
    assert "kernels/k.hip" in (out / "CMakeLists.txt").read_text()
    if mode == "-o":  # the input tree is untouched
        assert sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()) == sorted(TREE)


def test_in_place_rename_keeps_backup(tmp_path: Path) -> None:
    _write(tmp_path, {"k.cu": "void f() { cudaDeviceSynchronize(); }\n"})
    args = ["convert", "--in-place", "--rename", "cpp", "--backup", ".orig", str(tmp_path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "k.cu").exists()
    assert (tmp_path / "k.cu.orig").read_text() == "void f() { cudaDeviceSynchronize(); }\n"
    assert "hipDeviceSynchronize" in (tmp_path / "k.cpp").read_text()


def test_rename_refuses_foreign_target_and_continues(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {"a.cu": "void f() { cudaDeviceSynchronize(); }\n", "a.hip": "// mine\n", "b.cu": "int x;\n"},
    )
    args = ["convert", "--in-place", "--rename", "hip", str(tmp_path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 2
    assert "already exists" in result.output
    assert (tmp_path / "a.hip").read_text() == "// mine\n"
    assert (tmp_path / "a.cu").read_text() == "void f() { cudaDeviceSynchronize(); }\n"
    assert (tmp_path / "b.hip").read_text() == "int x;\n" and not (tmp_path / "b.cu").exists()


def test_interrupted_rename_is_completed_by_a_rerun(tmp_path: Path) -> None:
    """A run killed between writing k.hip and removing k.cu leaves both; the re-run finishes it."""
    _write(tmp_path, {"k.cu": "void f() { cudaDeviceSynchronize(); }\n"})
    runner = CliRunner()
    converted = runner.invoke(main, ["convert", str(tmp_path / "k.cu")], catch_exceptions=False).stdout_bytes
    assert b"hipDeviceSynchronize" in converted
    (tmp_path / "k.hip").write_bytes(converted)
    result = runner.invoke(main, ["convert", "-i", "--rename", "hip", str(tmp_path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "k.cu").exists()
    assert (tmp_path / "k.hip").read_bytes() == converted


def test_rename_from_config_and_no_rename_override(tmp_path: Path) -> None:
    _write(tmp_path, {".hipify-py.toml": 'rename = "cpp"\n', "src/k.cu": "int x;\n"})
    runner = CliRunner()
    result = runner.invoke(
        main, ["convert", "-i", "--no-rename", str(tmp_path / "src")], catch_exceptions=False
    )
    assert result.exit_code == 0 and (tmp_path / "src/k.cu").exists()
    result = runner.invoke(main, ["convert", "-i", str(tmp_path / "src")], catch_exceptions=False)
    assert (
        result.exit_code == 0 and (tmp_path / "src/k.cpp").exists() and not (tmp_path / "src/k.cu").exists()
    )


def test_diff_shows_renames_in_git_format(tmp_path: Path) -> None:
    _write(tmp_path, {"a.cu": '#include "k.cuh"\nint x;\n', "k.cuh": "int y;\n"})
    result = CliRunner().invoke(main, ["convert", "--diff", "--rename", "hip", str(tmp_path)])
    a, k = (tmp_path / "a.cu").as_posix(), (tmp_path / "k.cuh").as_posix()
    assert f"rename from {a}\nrename to {a[:-3]}.hip\n" in result.stdout
    assert f"diff --git a/{k} b/{k[:-4]}.hip.h\nrename from {k}\n" in result.stdout  # a pure rename
    assert '+#include "k.hip.h"' in result.stdout
    assert sorted(p.name for p in tmp_path.glob("*.*")) == ["a.cu", "k.cuh"]  # nothing written
