"""Tests for build-file translation (CMake and Makefiles).

Fixture pairs live in tests/fixtures/buildfiles/<case>/: any build file F with a sibling
F.expected is a case; an optional options.yaml gives the BuildOptions and an optional
F.diagnostics lists the expected diagnostics as `RULE severity line:col <text at the span>`.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from hipify_py.buildfiles import BuildOptions, build_file_kind, translate_cmake, translate_makefile
from hipify_py.engine.diagnostics import Diagnostic, Severity

FIXTURES = Path(__file__).parent / "fixtures" / "buildfiles"
CASES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.with_name(p.name + ".expected").exists())


def _options(case: Path) -> BuildOptions:
    path = case.parent / "options.yaml"
    raw = yaml.safe_load(path.read_text()) if path.exists() else {}
    if "offload_arch" in raw:
        raw["offload_arch"] = tuple(raw["offload_arch"])
    return BuildOptions(**raw)


def _translate(name: str, source: bytes, opts: BuildOptions) -> tuple[bytes, list[Diagnostic]]:
    kind = build_file_kind(name)
    assert kind is not None, name
    return (translate_cmake if kind == "cmake" else translate_makefile)(source, opts)


def _describe(source: bytes, d: Diagnostic) -> str:
    text = source[d.start : d.end].decode().splitlines()[0] if d.end > d.start else ""
    return f"{d.rule} {d.severity} {d.line}:{d.col} {text}".rstrip()


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(FIXTURES)) for p in paths]


def test_fixtures_are_discovered() -> None:
    kinds = {build_file_kind(p.name) for p in CASES}
    assert kinds == {"cmake", "make"} and len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_fixture(case: Path) -> None:
    source = case.read_bytes()
    out, diags = _translate(case.name, source, _options(case))
    assert out == case.with_name(case.name + ".expected").read_bytes()
    expected_diags = case.with_name(case.name + ".diagnostics")
    if expected_diags.exists():
        assert [_describe(source, d) for d in diags] == expected_diags.read_text().splitlines()


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_idempotent(case: Path) -> None:
    opts = _options(case)
    once = _translate(case.name, case.read_bytes(), opts)[0]
    assert _translate(case.name, once, opts)[0] == once


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_diagnostic_positions_are_consistent(case: Path) -> None:
    """line/col/source_line agree with the byte offsets, for every diagnostic of every fixture."""
    source = case.read_bytes()
    for d in _translate(case.name, source, _options(case))[1]:
        line_start = source.rfind(b"\n", 0, d.start) + 1
        assert d.line == source.count(b"\n", 0, d.start) + 1
        assert d.col == d.start - line_start + 1
        line_end = source.find(b"\n", d.start)
        line = source[line_start : len(source) if line_end < 0 else line_end].rstrip(b"\r")
        assert d.source_line == line.decode()
        assert d.rule in ("HIP401", "HIP402", "HIP404", "HIP405", "HIP406")
        assert d.severity in (Severity.INFO, Severity.WARNING)


# --- targeted checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("CMakeLists.txt", "cmake"),
        ("src/cuda.cmake", "cmake"),
        ("Makefile", "make"),
        ("sub/makefile", "make"),
        ("GNUmakefile", "make"),
        ("rules.mk", "make"),
        ("x.make", "make"),
        ("kernel.cu", None),
        ("CMakeLists.txt.expected", None),
    ],
)
def test_build_file_kind(path: str, kind: str | None) -> None:
    assert build_file_kind(path) == kind


def test_options_reject_unknown_library_family() -> None:
    with pytest.raises(ValueError, match="hip_libraries"):
        BuildOptions(hip_libraries="cuda")


def test_cmake_comments_and_messages_untouched() -> None:
    src = (
        b"# enable_language(CUDA) here\n"
        b'message(STATUS "CUDA::cublas and CMAKE_CUDA_FLAGS")\n'
        b"#[[ CUDA::cudart\n  nvcc ]]\n"
        b'option(USE_GPU "build the CUDA path" ON)\n'
        b'set(GPU_KIND "amd" CACHE STRING "CUDA or HIP")\n'
    )
    out, diags = translate_cmake(src, BuildOptions())
    assert out == src and diags == []


def test_cmake_quoted_flag_list_is_rewritten() -> None:
    src = b'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -arch=sm_80 --use_fast_math")\n'
    out, diags = translate_cmake(src, BuildOptions(offload_arch=("gfx90a", "gfx942")))
    flags = b"--offload-arch=gfx90a --offload-arch=gfx942 -ffast-math"
    assert out == b'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} ' + flags + b'")\n'
    assert [(d.rule, d.severity, src[d.start : d.end]) for d in diags] == [
        ("HIP404", Severity.INFO, b"-arch=sm_80"),
        ("HIP402", Severity.INFO, b"--use_fast_math"),
    ]


def test_cmake_language_property_added_once() -> None:
    src = b"add_executable(a k.cu)\nadd_executable(b k.cu m.cu)\n"
    out, _ = translate_cmake(src, BuildOptions())
    assert out.count(b"set_source_files_properties") == 2
    assert b"set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)" in out
    assert b"set_source_files_properties(m.cu PROPERTIES LANGUAGE HIP)" in out


def test_cmake_unknown_cuda_target_position() -> None:
    src = b"target_link_libraries(app PRIVATE CUDA::cupti)\n"
    out, diags = translate_cmake(src, BuildOptions())
    assert out == src
    [d] = diags
    assert (d.rule, d.severity, d.line, d.col, src[d.start : d.end]) == (
        "HIP401",
        Severity.WARNING,
        1,
        35,
        b"CUDA::cupti",
    )


def test_make_gencode_collapses_and_does_not_duplicate() -> None:
    src = (
        b"F = -gencode arch=compute_70,code=sm_70 -gencode=arch=compute_80,code=sm_80 --offload-arch=gfx90a\n"
    )
    out, diags = translate_makefile(src, BuildOptions())
    assert out == b"F = --offload-arch=gfx90a\n" and [d.rule for d in diags] == ["HIP404"]


def test_make_recipe_comment_untouched() -> None:
    src = b"a: a.cu\n\tnvcc -o a a.cu # was: nvcc -arch=sm_70\n"
    out, _ = translate_makefile(src, BuildOptions())
    assert out == b"a: a.cu\n\thipcc -o a a.cu # was: nvcc -arch=sm_70\n"


def test_make_flag_diagnostic_position() -> None:
    src = b"NVCCFLAGS := -O3 \\\n  -Xptxas -v \\\n  -std=c++17\n"
    out, diags = translate_makefile(src, BuildOptions())
    assert out == b"NVCCFLAGS := -O3 \\\n  -std=c++17\n"
    [d] = diags
    assert (d.rule, d.severity, d.line, d.col, d.source_line) == (
        "HIP402",
        Severity.WARNING,
        2,
        3,
        "  -Xptxas -v \\",
    )
    assert src[d.start : d.end] == b"-Xptxas"


# --- real tools -----------------------------------------------------------------------------------

CUDA_PROJECT = b"""cmake_minimum_required(VERSION 3.21)
project(tiny LANGUAGES CXX)
enable_language(CUDA)
set(CMAKE_CUDA_ARCHITECTURES 80)
find_package(CUDAToolkit REQUIRED)
add_executable(tiny main.cpp kernel.cu)
set_target_properties(tiny PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
target_compile_options(tiny PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr;-lineinfo>")
target_link_libraries(tiny PRIVATE CUDA::cudart)
"""
KERNEL = b"""#include <hip/hip_runtime.h>
__global__ void add_one(int *p) { p[threadIdx.x] += 1; }
void launch(int *p) { add_one<<<1, 32>>>(p); }
"""
MAIN = b"""void launch(int *p);
int main() { return 0; }
"""


def _hip_cmake_setup(tmp_path: Path) -> tuple[list[str], dict[str, str]] | None:
    """cmake -D options and environment that let CMake's HIP language work with this machine's HIP.

    CMake 3.25 wants <rocm root>/lib/cmake/hip-lang/hip-lang-config.cmake and a ROCm clang++.
    A ROCm install has both. Debian's packages put the config under /usr/lib/<multiarch>/cmake
    and the device libraries under /usr/lib/<multiarch>/amdgcn/bitcode, so the test points CMake at
    a stand-in ROCm root (a symlink to the config), tells clang where HIP lives, and adds the
    multiarch cmake dir to CMAKE_PREFIX_PATH for hip-lang's own dependencies (amd_comgr).
    """
    rocm = Path(os.environ.get("ROCM_PATH", "/opt/rocm"))
    if (rocm / "lib/cmake/hip-lang/hip-lang-config.cmake").exists() and (rocm / "llvm/bin/clang++").exists():
        return [f"-DCMAKE_HIP_COMPILER={rocm}/llvm/bin/clang++", f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={rocm}"], {}
    configs = glob.glob("/usr/lib/*/cmake/hip-lang/hip-lang-config.cmake")
    bitcode = glob.glob("/usr/lib/*/amdgcn/bitcode")
    clangs = sorted(
        glob.glob("/usr/lib/llvm-*/bin/clang++"), key=lambda p: int(p.split("-")[1].split("/")[0])
    )
    if not (configs and bitcode and clangs):
        return None
    root = tmp_path / "rocm-root"
    (root / "lib/cmake").mkdir(parents=True)
    (root / "lib/cmake/hip-lang").symlink_to(Path(configs[0]).parent)
    env = {
        "HIPFLAGS": f"--rocm-path=/usr --hip-device-lib-path={bitcode[0]}",
        "CMAKE_PREFIX_PATH": str(Path(configs[0]).parent.parent),
    }
    return [f"-DCMAKE_HIP_COMPILER={clangs[-1]}", f"-DCMAKE_HIP_COMPILER_ROCM_ROOT={root}"], env


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=300
    )


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_converted_cmake_project_configures_and_builds(tmp_path: Path) -> None:
    """Configure and build the converted project with CMake's real HIP language support."""
    converted, _ = translate_cmake(CUDA_PROJECT, BuildOptions())
    assert b"enable_language(HIP)" in converted
    assert b"set_source_files_properties(kernel.cu PROPERTIES LANGUAGE HIP)" in converted
    setup = _hip_cmake_setup(tmp_path)
    if setup is None:
        pytest.skip("no HIP toolchain CMake can use (ROCm or Debian's hipcc/clang/hip-lang packages)")
    defines, env = setup
    src = tmp_path / "proj"
    src.mkdir()
    (src / "CMakeLists.txt").write_bytes(converted)
    (src / "kernel.cu").write_bytes(KERNEL)
    (src / "main.cpp").write_bytes(MAIN)
    env = {**env, "HIP_PLATFORM": "amd"}
    configure = _run(["cmake", "-S", ".", "-B", "build", *defines], src, env)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    flags = (src / "build/CMakeFiles/tiny.dir/flags.make").read_text()
    assert "--offload-arch=gfx90a" in flags and "-fgpu-rdc" in flags  # kernel.cu is compiled as HIP
    build = _run(["cmake", "--build", "build"], src, env)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (src / "build/tiny").exists()


CMAKE_COMMANDS_KEPT = frozenset(
    {"if", "elseif", "else", "endif", "foreach", "endforeach", "while", "endwhile"}
    | {"set", "unset", "list", "string", "math", "return", "break", "continue"}
)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_converted_cmake_fixtures_parse(tmp_path: Path) -> None:
    """Every converted CMake fixture goes through cmake's own parser (cmake -P).

    Script mode cannot run project-level commands, so a wrapper turns every other command used
    in the file into a no-op macro and include()s the converted file: cmake still parses all of
    it and runs its control flow, which catches unbalanced parentheses, quotes and if/endif.
    """
    for case in (c for c in CASES if build_file_kind(c.name) == "cmake"):
        converted = case.with_name(case.name + ".expected")
        names = {
            line.split("(")[0].strip().lower()
            for line in converted.read_text().splitlines()
            if "(" in line and line.split("(")[0].strip().isidentifier()
        }
        stubs = "".join(f"macro({n})\nendmacro()\n" for n in sorted(names - CMAKE_COMMANDS_KEPT))
        wrapper = tmp_path / f"{case.parent.name}.cmake"
        wrapper.write_text(stubs + f'include("{converted.as_posix()}")\n')
        result = _run(["cmake", "-P", str(wrapper)], tmp_path, {})
        assert result.returncode == 0, f"{case}: {result.stderr}"


MAKEFILE = b"""NVCC ?= nvcc
NVCCFLAGS := -O2 -gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80 \\
\t--expt-relaxed-constexpr -Xcompiler -Wall
LDLIBS := -lcudart

app: main.o kernel.o
\t$(NVCC) $(NVCCFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.cu
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@
"""
MAIN_CU = b"""#include <hip/hip_runtime.h>
void launch(int *p);
int main() { int *p = nullptr; (void)hipMalloc(&p, 32 * sizeof(int)); launch(p); return 0; }
"""


def _converted_make_project(tmp_path: Path) -> Path:
    converted, _ = translate_makefile(MAKEFILE, BuildOptions())
    (tmp_path / "Makefile").write_bytes(converted)
    (tmp_path / "kernel.cu").write_bytes(KERNEL)
    (tmp_path / "main.cu").write_bytes(MAIN_CU)
    return tmp_path


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_converted_makefile_dry_run(tmp_path: Path) -> None:
    proj = _converted_make_project(tmp_path)
    result = _run(["make", "-n"], proj, {})
    assert result.returncode == 0, result.stderr
    commands = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(commands) == 3
    for command in commands:
        assert command.startswith("hipcc ") and command.count("--offload-arch=gfx90a") == 1
        assert "nvcc" not in command and "gencode" not in command and "-Xcompiler" not in command
    assert "-lcudart" not in commands[-1]


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed: cannot compile HIP code")
def test_converted_makefile_builds_with_hipcc(tmp_path: Path) -> None:
    """A real compile and link of a one-kernel program (.cu sources: hipcc compiles them as HIP)."""
    proj = _converted_make_project(tmp_path)
    # HIP_PLATFORM=amd: this machine also has nvcc, which hipcc would otherwise pick
    result = _run(["make"], proj, {"HIP_PLATFORM": "amd"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (proj / "app").exists()
