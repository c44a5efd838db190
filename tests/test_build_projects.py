"""Issue 32: `hipify-py convert --in-place .`, then the project's own CMake or Makefile build, on ROCm.

Small projects of our own (CUDA sources and their build file) are converted with the command line and
built with cmake/make inside a ROCm chroot of scripts/provision_rocm.py (benchmarks/build_projects.py
runs the same on real projects). Skipped, with the reason, where the chroot, its cmake/make/g++ or root
(mount namespaces) is missing; CI provisions them.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from toolchains import TOOLCHAIN_ROOT, by_version, require

from hipify_py.buildfiles.libraries import lib_key

ROOT = Path(__file__).resolve().parent.parent


def _harness():  # the benchmark module, loaded by path (benchmarks/ is no package)
    spec = importlib.util.spec_from_file_location("build_projects", ROOT / "benchmarks" / "build_projects.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _chroot(version: str, *tools: str) -> Path:
    require(by_version(version))
    root = TOOLCHAIN_ROOT / f"rocm-{version}"
    missing = [t for t in tools if not (root / "usr" / t).exists()]
    if missing:
        why = f"ROCm {version} chroot lacks {', '.join(missing)}: run scripts/provision_rocm.py"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    if os.geteuid() != 0:
        pytest.skip("building in the chroot needs root (mount namespaces, chroot)")
    return root


def _convert(project: Path, version: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{TOOLCHAIN_ROOT / f'hip-{version}' / 'bin'}:{env['PATH']}"
    cmd = [sys.executable, "-m", "hipify_py", "convert", "--in-place", "-j", "1", "--hip-version", version]
    done = subprocess.run([*cmd, *extra, str(project)], capture_output=True, text=True, env=env)
    assert done.returncode in (0, 1), done.stderr
    return done


def _build(version: str, project: Path, steps: tuple[str, ...], tmp_path: Path) -> dict[str, str]:
    log = tmp_path / "build.log"
    result = _harness().run_steps(version, tmp_path, project, steps, log)
    assert result["build"] == "ok", log.read_text()[-6000:]
    return result


# --- the Show item: CMAKE_CUDA_ARCHITECTURES, -std=c++14, cuBLAS (+ NCCL) ----------------------

SHOW_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(show LANGUAGES CXX CUDA)
set(CMAKE_CXX_STANDARD 14)
set(CMAKE_CUDA_STANDARD 14)
set(CMAKE_CUDA_ARCHITECTURES 86)
set(CMAKE_CUDA_FLAGS "${{CMAKE_CUDA_FLAGS}} -std=c++14 --expt-relaxed-constexpr -lineinfo")
find_package(CUDAToolkit REQUIRED)
add_executable(show main.cpp reduce.cu)
target_link_libraries(show PRIVATE CUDA::cudart CUDA::cublas{nccl})
"""

SHOW_REDUCE = """#include <cub/cub.cuh>
#include <cuda_runtime.h>

__global__ void block_sum(const float *in, float *out) {
  typedef cub::BlockReduce<float, 128> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  float v = Reduce(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = v;
}

void sum(const float *in, float *out) { block_sum<<<1, 128>>>(in, out); }
"""

SHOW_MAIN = """#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
{nccl_include}
void sum(const float *in, float *out);

int main() {{
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  float *d = nullptr;
  cudaMalloc(&d, 129 * sizeof(float));
  sum(d, d + 128);
  cudaDeviceSynchronize();
  cudaFree(d);
  cublasDestroy(handle);
{nccl_call}  return 0;
}}
"""


def _nccl_linkable(root: Path) -> bool:
    """NCCL's row in the library table (-> rccl) and RCCL's CMake package in the chroot."""
    return lib_key("nccl") is not None and any(root.glob("usr/lib/*/cmake/rccl/rccl-config.cmake"))


@pytest.mark.hipcc
@pytest.mark.rocm
def test_show_cmake_project_builds_on_rocm_72(tmp_path: Path) -> None:
    """convert --in-place, then `cmake -B build && cmake --build build` on ROCm 7.2.

    cuBLAS always; NCCL too where the library table maps it to RCCL and the chroot has librccl-dev
    (Debian experimental has 7.2's; the test says which it built in its log)."""
    root = _chroot("7.2", "bin/cmake", "bin/make", "bin/g++")
    nccl = _nccl_linkable(root)
    project = tmp_path / "show"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(SHOW_CMAKE.format(nccl=" nccl" if nccl else ""))
    (project / "reduce.cu").write_text(SHOW_REDUCE)
    (project / "main.cpp").write_text(
        SHOW_MAIN.format(
            nccl_include="#include <nccl.h>" if nccl else "",
            nccl_call="  int version = 0;\n  ncclGetVersion(&version);\n" if nccl else "",
        )
    )
    done = _convert(project, "7.2", "--offload-arch", "gfx90a,gfx942")
    converted = (project / "CMakeLists.txt").read_text()
    assert 'set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942")' in converted
    assert "set(CMAKE_HIP_STANDARD 17)" in converted and "-std=c++14" not in converted
    assert "HIP404" in done.stdout + done.stderr and "HIP405" in done.stdout + done.stderr
    _build("7.2", project, ("cmake -B build", "cmake --build build"), tmp_path)
    assert (project / "build" / "show").exists()


# --- a Makefile project: nvcc kernel, g++ host code, -std=c++14, an sm_XX variable, cuBLAS ----------

MAKEFILE = """CUDA_PATH ?= /usr/local/cuda
NVCC := $(CUDA_PATH)/bin/nvcc
CUDA_ARCH ?= sm_70
CXXFLAGS := -O2 -std=c++14 -I$(CUDA_PATH)/include
NVCCFLAGS := -O2 -std=c++14 -arch=$(CUDA_ARCH) -Xcompiler -Wall -restrict --use_fast_math
LDLIBS := -L$(CUDA_PATH)/lib64 -lcudart -lcublas

app: main.o reduce.o
\tg++ -o $@ $^ $(LDLIBS)

main.o: main.cpp
\tg++ $(CXXFLAGS) -c $< -o $@

%.o: %.cu
\t$(NVCC) $(NVCCFLAGS) -c $< -o $@
"""


@pytest.mark.hipcc
@pytest.mark.rocm
@pytest.mark.parametrize("version", ["6.4", "7.2"])
def test_makefile_project_builds(tmp_path: Path, version: str) -> None:
    """convert --in-place, then `make`: hipcc for the kernel, g++ for the host file (which reads HIP
    headers, so it needs -D__HIP_PLATFORM_AMD__ and the HIP runtime on its link line)."""
    _chroot(version, "bin/make", "bin/g++")
    project = tmp_path / "app"
    project.mkdir()
    (project / "Makefile").write_text(MAKEFILE)
    (project / "reduce.cu").write_text(SHOW_REDUCE)
    (project / "main.cpp").write_text(SHOW_MAIN.format(nccl_include="", nccl_call=""))
    _convert(project, version)
    converted = (project / "Makefile").read_text()
    assert "sm_70" not in converted and "nvcc" not in converted
    _build(version, project, ("make",), tmp_path)
    assert (project / "app").exists()
