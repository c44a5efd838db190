"""CUB's FpLimits of a bf16 (rules/fp_limits.py, the helper of mappings/hand-kept/shims.yaml): which uses
are renamed, and what the helper gives on AMD (values, on the host) and on HIP's NVIDIA platform."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from toolchains import NEEDS_NVCC, nvidia_platform

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

_CHECK = """
#include <cstdio>
int main() {
  const float lo = __bfloat162float(hipcub::hipify_py_FpLimits<__hip_bfloat16>::Lowest());
  const float hi = __bfloat162float(hipcub::hipify_py_FpLimits<__hip_bfloat16>::Max());
  std::printf("%g %g\\n", lo, hi);
  return !(lo == -hi && hi == 0x1.fep127f);  // bf16's largest finite value, 0x7F7F
}
"""


def _renamed(source: bytes, version: str = "7.2") -> int:
    """The uses renamed (the helper's own text names `hipify_py_FpLimits<__hip_bfloat16>` once)."""
    text = translate(source, Options(hip_version=version)).text
    return text.count(b"hipify_py_FpLimits<") - text.count(b"#define HIPIFY_PY_SHIM_hipify_py_FpLimits")


_CUB = b"#include <cub/cub.cuh>\n#include <cuda_bf16.h>\n"
_LOWEST = b"template <class T> T lo() { return %s<T>::Lowest(); }\n"


@pytest.mark.parametrize(
    "source,renamed",
    [
        (_CUB + _LOWEST % b"cub::FpLimits", 1),
        (_CUB + b"__nv_bfloat16 m() { return ::cub::FpLimits<__nv_bfloat16>::Max(); }\n", 1),
        (_CUB + b"float lo() { return cub::FpLimits<float>::Lowest(); }\n", 0),
        (_CUB + b"__half lo() { return cub::FpLimits< __half >::Lowest(); }\n", 0),
        # a template of the project's own, not CUB's
        (b"template <class T> struct FpLimits;\n" + _LOWEST % b"FpLimits", 0),
        # CUB's namespace opened: the bare name is CUB's
        (_CUB + b"using namespace cub;\n" + _LOWEST % b"FpLimits", 1),
        # a specialisation the file declares is hipCUB's template, kept
        (_CUB + b"struct h { short s; };\ntemplate <> struct cub::FpLimits<h> { static h Max(); };\n", 0),
        (_CUB + b'// cub::FpLimits<T>::Lowest()\nconst char* s = "cub::FpLimits<T>";\n', 0),
    ],
)
def test_uses_renamed(source: bytes, renamed: int) -> None:
    assert _renamed(source) == renamed


def test_targets_without_hip_bf16_keep_the_name() -> None:
    """HIP 5.2 has no __hip_bfloat16 (hip_bf16.h came with 5.7): there is nothing to add."""
    assert _renamed(_CUB + _LOWEST % b"cub::FpLimits", "5.2") == 0


@NEEDS_NVCC
def test_helper_on_the_nvidia_platform(tmp_path: Path) -> None:
    """On HIP's NVIDIA platform hipCUB is CUB (hipcub's config.hpp: `using namespace cub`); the helper is
    CUB's FpLimits, or cuda::std::numeric_limits from CUB 3.0 (CUDA 13), which removed FpLimits."""
    source = b"""#include <cub/cub.cuh>
#include <cuda_bf16.h>
template <typename T> struct TopK { T u = cub::FpLimits<T>::Lowest(); };
template <typename T> __global__ void lowest(T* out) { out[threadIdx.x] = TopK<T>().u; }
void run(__nv_bfloat16* b) { lowest<<<1, 32>>>(b); }
"""
    text = translate(source, Options(hip_version="7.2")).text.decode()
    nvidia_headers = {
        "#include <hip/hip_runtime.h>": "#include <cuda_runtime.h>\n"
        "#define hipLaunchKernelGGL(k, g, b, s, q, ...) k<<<g, b, s, q>>>(__VA_ARGS__)",
        "#include <hipcub/hipcub.hpp>": "#include <cub/cub.cuh>\nnamespace hipcub { using namespace cub; }",
        "#include <hip/hip_bf16.h>": "#include <cuda_bf16.h>\ntypedef __nv_bfloat16 __hip_bfloat16;",
    }
    for hip, cuda in nvidia_headers.items():
        assert hip in text
        text = text.replace(hip, cuda)
    assert "hipcub::hipify_py_FpLimits<T>::Lowest()" in text
    proc = nvidia_platform(tmp_path, text + _CHECK, "-o", "nv")
    assert proc.returncode == 0, proc.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "nv")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
