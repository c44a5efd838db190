"""Helpers never collide: a shim hipify-py writes steps aside where the project defines the name (in a
header the file includes, in any branch hipcc compiles) and, on HIP's NVIDIA platform, where CUDA does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.cli.main import main
from hipify_py.data.shim_table import definition, load_table, nvidia_condition
from hipify_py.pipeline.translate import default_tables
from hipify_py.rules.shims import defined_helpers

# a header that gives the HIP build its own __vsub4 (CUDA has one), as projects ported by hand do
HEADER = b"""#pragma once
#ifdef __HIP_PLATFORM_AMD__
__device__ inline unsigned int __vsub4(unsigned int a, unsigned int b) {
  unsigned int r = 0;
  for (int i = 0; i < 32; i += 8) r |= ((((a >> i) & 0xffu) - ((b >> i) & 0xffu)) & 0xffu) << i;
  return r;
}
#endif
"""
MAIN = b"""#include <cstdio>
#include "common.h"
__global__ void k(unsigned int* out, const unsigned int* a, const unsigned int* b) {
  const int i = threadIdx.x;
  out[i] = __vsub4(a[i], b[i]) ^ __vcmpne4(a[i], b[i]);
}
int main() {
  unsigned int* d = nullptr;
  cudaMalloc(&d, 64);
  k<<<1, 4>>>(d, d, d);
  cudaFree(d);
  return 0;
}
"""


def _project(root: Path) -> Path:
    """main.cu -> common.h (quoted, the file's folder) -> <util/simd.h> (angled, the run's root)."""
    (root / "src").mkdir(parents=True)
    (root / "util").mkdir()
    (root / "util" / "simd.h").write_bytes(HEADER)
    (root / "src" / "common.h").write_bytes(b"#pragma once\n#include <util/simd.h>\n")
    (root / "src" / "main.cu").write_bytes(MAIN)
    return root


def _convert(root: Path, out: Path, version: str) -> bytes:
    args = ["convert", str(root), "-o", str(out), "--hip-version", version, "-j", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return (out / "src" / "main.cu").read_bytes()


@pytest.mark.parametrize("chain", params())
def test_header_definition_for_amd_settles_the_helper(
    chain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hipcc = require(chain)
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    root = _project(tmp_path / "proj")
    out = tmp_path / "out"
    text = _convert(root, out, chain.version)
    assert b"HIPIFY_PY_SHIM___vsub4" not in text  # the header's own is used
    assert b"#define HIPIFY_PY_SHIM___vcmpne4" in text  # nobody defines this one
    assert b"!defined(__HIP_PLATFORM_NVIDIA__)" in text
    compiled = out / "src" / "main.hip"
    compiled.write_bytes(text)  # hipcc -x hip reads it either way; the name says what it is
    proc = syntax_check(hipcc, compiled, f"-I{out}")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_findings_and_the_cache_follow_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No HIP134/HIP101 at the uses the header settles; a header that loses its definition makes the
    cached result of the file that includes it stale (the file itself did not change)."""
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    root = _project(tmp_path / "proj")
    runner = CliRunner()
    args = ["convert", str(root), "--check", "--hip-version", "7.2", "-j", "1", "--show", "info"]
    first = runner.invoke(main, args)
    assert "`__vsub4` is not in" not in first.output and "`__vcmpne4` is not in HIP 7.2" in first.output
    assert "HIP101" not in first.output
    again = runner.invoke(main, args)
    assert again.output == first.output  # a hit, the same findings
    (root / "util" / "simd.h").write_bytes(b"#pragma once\n")
    text = _convert(root, tmp_path / "out", "7.2")
    assert b"#define HIPIFY_PY_SHIM___vsub4" in text
    after = runner.invoke(main, args)
    assert "`__vsub4` is not in HIP 7.2" in after.output


def test_only_the_closure_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A definition in a header the file does not include is someone else's: the file gets its shim."""
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    root = _project(tmp_path / "proj")
    (root / "src" / "common.h").write_bytes(b"#pragma once\n")
    text = _convert(root, tmp_path / "out", "5.2")
    assert b"#define HIPIFY_PY_SHIM___vsub4" in text


def test_defined_helpers_reads_code_only() -> None:
    tables = default_tables()
    names = ("__vsub4", "__vadd4", "__vcmpne4", "__dp4a", "__vabs4")
    source = b"""// __device__ unsigned int __vadd4(unsigned int, unsigned int);  (a comment)
const char* s = "unsigned int __vabs4(unsigned int);";
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 300
__device__ unsigned int __vcmpne4(unsigned int a, unsigned int b);
#endif
#ifndef __HIP_PLATFORM_AMD__
#else
__device__ unsigned int __vsub4(unsigned int a, unsigned int b);
#endif
#define __dp4a(a, b, c) my_dp4a(a, b, c)
unsigned int use(unsigned int a) { return __vabs4(a); }
"""
    assert defined_helpers(source, names, tables) == {"__vsub4", "__dp4a"}
    assert defined_helpers(b"#define HIPIFY_PY_SHIM___vadd4\n", names, tables) == {"__vadd4"}


def _preprocessed(text: bytes, *defines: str) -> bytes:
    cpp = shutil.which("cpp")
    if cpp is None:
        pytest.skip("no C preprocessor")
    proc = subprocess.run([cpp, "-P", *defines], input=text, capture_output=True, check=True)
    return proc.stdout


@pytest.mark.parametrize("cuda", [None, "11.0", "12.2", "12.8"])
def test_nvidia_condition_matches_the_cuda_release(cuda: str | None) -> None:
    block = b"#if 1" + nvidia_condition(cuda).encode() + b"\nOURS\n#endif\n"
    assert b"OURS" in _preprocessed(block)  # AMD
    nvidia = "-D__HIP_PLATFORM_NVIDIA__"
    for major, minor in ((11, 8), (12, 1), (12, 4), (13, 0)):
        cuda_defines = (f"-D__CUDACC_VER_MAJOR__={major}", f"-D__CUDACC_VER_MINOR__={minor}")
        cuda_has_it = cuda is not None and (major, minor) >= tuple(int(p) for p in cuda.split("."))
        assert (b"OURS" in _preprocessed(block, nvidia, *cuda_defines)) != cuda_has_it, (major, minor)


def test_names_cuda_defines_are_guarded() -> None:
    """Every shim of a CUDA name says from which CUDA release CUDA has it (hip* names: CUDA has none;
    a device overload of a HIP host function steps aside on NVIDIA through its own guard)."""
    for shim in load_table():
        # a macro shim (CubDebugExit) steps aside wherever the name is defined already, CUB's included
        own_guard = "__HIP_PLATFORM_NVIDIA__" in (shim.guard or "") or f"defined({shim.name})" in (
            shim.guard or ""
        )
        assert (shim.cuda is None) == (shim.function.startswith("hip") or own_guard), shim.name
        text = definition(shim, "7.2").decode()
        # the block's own guard (a helper's body may still branch for the NVIDIA platform itself)
        guard = next(line for line in text.splitlines() if line.startswith("#if"))
        nvidia_guard = "__HIP_PLATFORM_NVIDIA__" in (shim.guard or "")
        assert ("__HIP_PLATFORM_NVIDIA__" in guard) == (shim.cuda is not None or nvidia_guard), shim.name
