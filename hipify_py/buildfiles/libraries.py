"""The CUDA library table: CUDA libraries and FindCUDA variables -> HIP/ROCm CMake targets and -l flags,
and the toolkit-location variables that become ROCM_PATH.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.buildfiles.common import BuildOptions


class _Lib(NamedTuple):
    hip: str  # CMake target with hip_libraries == "hip"; the package is the part after "::"
    roc: str  # ... with hip_libraries == "roc"


LIBS: Mapping[str, _Lib] = MappingProxyType(
    {
        "cublas": _Lib("roc::hipblas", "roc::rocblas"),
        "curand": _Lib("hip::hiprand", "roc::rocrand"),
        "cufft": _Lib("hip::hipfft", "roc::rocfft"),
        "cusparse": _Lib("roc::hipsparse", "roc::rocsparse"),
        "cusolver": _Lib("roc::hipsolver", "roc::rocsolver"),
        # RCCL keeps the NCCL API (librccl, find_package(rccl): roc::rccl in its rccl-targets.cmake)
        "nccl": _Lib("roc::rccl", "roc::rccl"),
        # hipBLASLt has no roc* layer below it of its own API: both families link it
        "cublasLt": _Lib("roc::hipblaslt", "roc::hipblaslt"),
    }
)


_HOST_TARGET = "hip::host"  # the HIP runtime for host code (cudart, the driver API)


_RUNTIME_LIBS = frozenset({"cudart", "cudart_static", "cuda_driver", "cuda"})


def lib_target(key: str, opts: BuildOptions) -> str:
    if key in _RUNTIME_LIBS:
        return _HOST_TARGET
    lib = LIBS[key]
    return lib.roc if opts.hip_libraries == "roc" else lib.hip


def lib_key(name: str) -> str | None:
    """cudart / cublas_static / cufft ... -> table key, None when there is no counterpart."""
    base = name.removesuffix("_static") if name != "cudart_static" else name
    return base if base in LIBS or base in _RUNTIME_LIBS else None


# FindCUDA result variables -> key of the library they name
FINDCUDA_LIB_VARS: Mapping[str, str] = MappingProxyType(
    {
        "CUDA_LIBRARIES": "cudart",
        "CUDA_CUDART_LIBRARY": "cudart",
        "CUDA_cudart_static_LIBRARY": "cudart",
        "CUDA_CUDA_LIBRARY": "cuda",
        "CUDA_CUBLAS_LIBRARIES": "cublas",
        "CUDA_cublas_LIBRARY": "cublas",
        "CUDA_curand_LIBRARY": "curand",
        "CUDA_CUFFT_LIBRARIES": "cufft",
        "CUDA_cufft_LIBRARY": "cufft",
        "CUDA_cusparse_LIBRARY": "cusparse",
        "CUDA_cusolver_LIBRARY": "cusolver",
        "CUDA_cublasLt_LIBRARY": "cublasLt",
    }
)


# CUDA names that have a HIP variable with the same meaning (set by find_package(hip))
CMAKE_IDENTS: Mapping[str, str] = MappingProxyType(
    {
        "CUDA_FOUND": "hip_FOUND",
        "CUDAToolkit_FOUND": "hip_FOUND",
        "CUDA_INCLUDE_DIRS": "HIP_INCLUDE_DIRS",
        "CUDAToolkit_INCLUDE_DIRS": "HIP_INCLUDE_DIRS",
        "CUDA_TOOLKIT_ROOT_DIR": "ROCM_PATH",
        "CUDAToolkit_ROOT": "ROCM_PATH",
    }
)


CUDA_TARGET_NOTES: Mapping[str, str] = MappingProxyType(
    {
        "nvToolsExt": "NVTX: link roctx64 from roctracer by hand (only range push/pop and marks map)",
        "nvtx3": "NVTX: link roctx64 from roctracer by hand (only range push/pop and marks map)",
        "nvml": "NVML -> ROCm SMI: find_package(rocm_smi), link its target rocm_smi64 by hand",
        "cupti": "CUPTI: use roctracer/rocprofiler, a different API",
        "nvrtc": "NVRTC: hiprtc has a similar API; link it by hand",
    }
)


# Make variables that hold the CUDA toolkit location; they all become ROCM_PATH
CUDA_PATH_VARS = (
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_INSTALL_PATH",
    "CUDA_TOOLKIT_PATH",
    "CUDA_TOOLKIT_DIR",
    "CUDATOOLKIT_HOME",
    "CUDA_PATH",
    "CUDA_HOME",
    "CUDA_ROOT",
    "CUDA_DIR",
    "CUDADIR",
    "CUDAPATH",
)


# AMD's packages install under /opt/rocm; Debian's and Ubuntu's under /usr. Make picks the one present
# (setting ROCM_PATH=/usr in the environment instead misleads Debian's hipcc, which reads it).
ROCM_DEFAULT = "$(if $(wildcard /opt/rocm),/opt/rocm,/usr)"
