"""CUDA toolkit version tests that every current toolkit decides alike (HIP147, for pp_branches).

`#if CUDA_VERSION >= 11000 ... #else ... #endif`: CUDA_VERSION is undefined under hipcc (0 in #if), so
ROCm compiles the branch for toolkits older than any supported one. pp_branches opens such a test (ROCm
takes the current toolkits' branch) and rules/version_errors.py rewrites its condition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hipify_py.util.lazyre import lazy

if TYPE_CHECKING:
    from hipify_py.analysis.pp_branches import Branches

# a comparison of the CUDA toolkit's own version (not a library's: its value is unknown here, and a
# presence test such as `#ifdef CUDART_VERSION` says "built with CUDA", not which CUDA)
_TOOLKIT = rb"(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR)__|__CUDA_API_VERSION)\b"
TOOLKIT_COMPARE = lazy(rb"\b" + _TOOLKIT + rb"\s*(?:[<>]=?|[!=]=)|(?:[<>]=?|[!=]=)\s*\b" + _TOOLKIT)


def current_toolkits_differ(branches: Branches, start: int, text: bytes) -> bool:
    """The condition at `start` compares the CUDA toolkit's version, every current toolkit (11.8-13.0)
    decides it the same way and hipcc, where the macro is undefined, the other way (HIP147)."""
    if TOOLKIT_COMPARE.search(text) is None or b"\\\n" in text:  # a continued line is not rewritten
        return False
    amd, nvidia = branches.amd.get(start), branches.nvidia.get(start)
    if amd is None or not nvidia or None in nvidia:
        return False
    return {bool(v) for v in nvidia} == {not amd}
