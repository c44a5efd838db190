"""A project's own HIP mapping of CUDA names (its compatibility header) wins over the tables' where they
differ: the shared code of a mixed CUDA/HIP header takes the project's name, which its HIP branches are
written against (cudawrappers' macros.hpp: `#define CUDA_MEMCPY3D hipMemcpy3DParms`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.analysis.project_aliases import defined_aliases, used_aliases
from hipify_py.cli.main import main
from hipify_py.pipeline.translate import default_tables

# the project's HIP-side names for CUDA ones, reached through an angled include in a HIP branch
MACROS = b"""#pragma once
#ifdef __HIP_PLATFORM_AMD__
#define CUDA_MEMCPY3D hipMemcpy3DParms
#define cuMemcpy3D hipMemcpy3D
#define cudaStream_t hipStream_t
#endif
"""
WRAPPER = b"""#pragma once
#include <cstring>
#if !defined(__HIP__)
#include <cuda.h>
#else
#include <hip/hip_runtime.h>
#include <wrap/macros.hpp>
#endif

struct Copy3D {
  CUDA_MEMCPY3D params;
  cudaStream_t stream;
  Copy3D(void* dst, const void* src, size_t width, size_t height) {
    memset(&params, 0, sizeof(params));
#if defined(__HIP__)
    params.srcPtr = make_hipPitchedPtr(const_cast<void*>(src), width, width, height);
    params.dstPtr = make_hipPitchedPtr(dst, width, width, height);
    params.extent = make_hipExtent(width, height, 1);
    params.kind = hipMemcpyHostToDevice;
#else
    params.srcMemoryType = CU_MEMORYTYPE_HOST;
    params.srcHost = src;
    params.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    params.dstDevice = (CUdeviceptr)dst;
#endif
  }
  CUresult run() { return cuMemcpy3D(&params); }
};
"""


def _project(root: Path) -> Path:
    (root / "wrap").mkdir(parents=True)
    (root / "wrap" / "macros.hpp").write_bytes(MACROS)
    (root / "wrap" / "copy.hpp").write_bytes(WRAPPER)
    return root


def _convert(root: Path, out: Path, version: str, *more: str) -> tuple[bytes, str]:
    args = ["convert", str(root), "-o", str(out), "--hip-version", version, "-j", "1", "--show", "info"]
    args += more
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return (out / "wrap" / "copy.hpp").read_bytes(), result.output


@pytest.mark.parametrize("chain", params())
def test_the_shared_code_takes_the_projects_names(
    chain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hipcc = require(chain)
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    out = tmp_path / "out"
    text, output = _convert(_project(tmp_path / "proj"), out, chain.version)
    assert b"  hipMemcpy3DParms params;" in text and b"return hipMemcpy3D(&params)" in text
    assert b"  hipStream_t stream;" in text  # the project's name is the tables' one: no finding
    assert b"hipError_t run()" in text  # not in the project's header: the tables' name
    assert output.count("info: HIP170") == 2
    main_cpp = out / "main.hip"
    main_cpp.write_bytes(b'#include "wrap/copy.hpp"\nint main() { char a[4], b[4]; Copy3D c(a, b, 4, 1); }\n')
    proc = syntax_check(hipcc, main_cpp, f"-I{out}")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_the_cache_follows_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mixed file did not change; its header did: the cached translation is not reused."""
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    root = _project(tmp_path / "proj")
    first, _ = _convert(root, tmp_path / "out1", "7.2")
    assert b"hipMemcpy3DParms params;" in first
    again, _ = _convert(root, tmp_path / "out2", "7.2")
    assert again == first
    (root / "wrap" / "macros.hpp").write_bytes(b"#pragma once\n")
    after, _ = _convert(root, tmp_path / "out3", "7.2")
    assert b"HIP_MEMCPY3D params;" in after


def test_only_a_mixed_files_closure_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CUDA file with no HIP branch is the tables' to translate, whatever some header says."""
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    root = _project(tmp_path / "proj")
    (root / "wrap" / "copy.hpp").write_bytes(
        b'#pragma once\n#include <cuda.h>\n#include "macros.hpp"\nCUDA_MEMCPY3D params;\n'
    )
    text, _ = _convert(root, tmp_path / "out", "7.2")
    assert b"HIP_MEMCPY3D params;" in text


def test_defined_aliases_reads_defines_typedefs_and_usings() -> None:
    names = default_tables().names
    text = b"""#define CUDA_MEMCPY3D hipMemcpy3DParms
#define cudaStream_t hipStream_t
#define cudaMalloc my_malloc
typedef hipFuncAttribute CUfunction_attribute;
using cudaHostFn_t = hipMyHostFn;
#define CUDA_C_32F HIPBLAS_C_32F
#define CUDA_MEMCPY3D HIP_MEMCPY3D
"""
    found = defined_aliases(text, names)
    assert found == {
        b"CUDA_MEMCPY3D": b"hipMemcpy3DParms",  # the first definition counts
        b"CUfunction_attribute": b"hipFuncAttribute",
    }  # not: the tables' own name, a non-HIP value, the project's own function, a name no table gives
    assert used_aliases(b"CUDA_MEMCPY3D_X p; CUfunction_attribute a;", found) == {
        b"CUfunction_attribute": b"hipFuncAttribute"
    }
