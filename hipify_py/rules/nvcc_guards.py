"""`#ifdef __NVCC__` around GPU code -> `#ifdef __HIPCC__` (HIP137).

nvcc defines __NVCC__ and __CUDACC__; hipcc defines __HIPCC__ and neither of them. The tables already
map __CUDACC__ to __HIPCC__. Code often tests __NVCC__ for the same purpose ("built by the GPU
compiler"): `#ifdef __NVCC__ / #define BOTH __host__ __device__ / #else / #define BOTH / #endif`, or
launch helpers only the GPU build sees. Under hipcc those branches are dropped and the build fails
far from the cause (a host function called from a kernel, an undeclared helper).

The test is rewritten when it is the whole condition (`#ifdef __NVCC__`, `#ifndef`, `[!]defined(...)`)
and the branch that nvcc takes holds GPU code (execution-space qualifiers, kernel launches, built-in
indices, CUDA API names) and nothing NVIDIA-only (inline assembly, `#pragma nv_*`, wmma, arch tests,
a CUDA API without a HIP counterpart):
then it is the GPU path, which hipcc must take. Not in a file with HIP branches of its own, written
for both compilers. Other __NVCC__ tests stay as written and keep their HIP303 warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipify_py.analysis.arch_tests import NVIDIA_ONLY, unported
from hipify_py.analysis.context import HIP_GUARD, Context
from hipify_py.analysis.pp_branches import directives
from hipify_py.data.renames import load_table as _renames_table
from hipify_py.data.renames import renames_for
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.lexer import COMMENT
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_NAME = b"__NVCC__"
_TEST = lazy(
    rb"\s*(!?)\s*(?:defined\s*\(\s*__NVCC__\s*\)|defined\s+__NVCC__)\s*(?://[^\n]*|/\*.*?\*/)?\s*", re.S
)
# GPU code, or the include of a GPU library (thrust's device containers or CUDA backend, CUB, the CUDA
# runtime and math libraries, cooperative groups): `#ifdef __NVCC__ / #include <thrust/device_vector.h>`.
# A quoted include counts only where it names a CUDA header the tables know: a project's own
# "cuda_metrics/Utils.h" is not one.
_GPU = lazy(
    rb"\b(?:__device__|__global__|__host__|__shared__|__constant__|__forceinline__|__launch_bounds__|"
    rb"__syncthreads|threadIdx|blockIdx|blockDim|gridDim|cuda[A-Z]\w*)\b|<<<|"
    rb"^[ \t]*#[ \t]*include[ \t]*<"
    rb"(?:thrust/(?:device_|system/cuda/)|cub/|cuda|cublas|curand|cufft|cusparse|cusolver|cooperative_groups)",
    re.M,
)
_NVIDIA_TEST = lazy(rb"\b(?:__NVCC__|__CUDACC__|__CUDA_ARCH__)\b")
_QUOTED_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
SETTLED_RULES = frozenset({"HIP303"})


def _branches(source: bytes) -> Iterator[tuple[int, int, bool, int, int]]:
    """(directive start, directive end, tested positively, nvcc branch start, its end) per `__NVCC__` test
    that is a whole #if/#ifdef/#ifndef/#elif condition."""
    stack: list[list[tuple[int, int, bytes, bytes]]] = []  # per open #if: its directives so far
    for directive in directives(source):
        kind = directive[2]
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append([directive])
            continue
        if not stack:
            continue  # an unbalanced #else/#endif (a fragment): nothing to pair
        stack[-1].append(directive)
        if kind == b"endif":
            yield from _nvcc_tests(stack.pop())


def _nvcc_tests(chain: list[tuple[int, int, bytes, bytes]]) -> Iterator[tuple[int, int, bool, int, int]]:
    for i, (start, end, kind, text) in enumerate(chain[:-1]):
        positive = _positive(kind, text)
        if positive is None:
            continue
        if positive:
            yield start, end, True, end, chain[i + 1][0]
        elif kind != b"elif" and i + 1 < len(chain) - 1 and chain[i + 1][2] == b"else":
            yield start, end, False, chain[i + 1][1], chain[i + 2][0]  # `#ifndef __NVCC__ ... #else <nvcc>`


def _positive(kind: bytes, text: bytes) -> bool | None:
    """True: the condition is `defined(__NVCC__)`; False: its negation; None: anything else."""
    if kind in (b"ifdef", b"ifndef"):
        words = COMMENT.sub(b" ", text).split()
        return (kind == b"ifdef") if words == [_NAME] else None
    if kind not in (b"if", b"elif"):
        return None
    m = _TEST.fullmatch(text)
    return None if m is None else not m.group(1)


def _gpu(ctx: Context, body: bytes) -> bool:
    if _GPU.search(body) is not None:
        return True
    return any(m.group(1) in ctx.tables.headers for m in _QUOTED_INCLUDE.finditer(body))


def _hip_only_branch(source: bytes) -> bool:
    """A condition tests HIP alone (`#ifdef __HIP__`, not `defined(__NVCC__) || defined(__HIPCC__)`): the
    file was written for both compilers, `__NVCC__` means the NVIDIA build there, and hipcc taking it
    too would compile NVML or CUPTI code beside the file's own ROCm code."""
    for _, _, kind, text in directives(source):
        hip_only = HIP_GUARD.search(text) is not None and _NVIDIA_TEST.search(text) is None
        if hip_only and kind in (b"if", b"ifdef", b"elif"):
            return True
    return False


def rewrite_nvcc_guards(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if _NAME not in src or _hip_only_branch(src):
        return result
    for start, end, positive, body_start, body_end in _branches(src):
        body = src[body_start:body_end]
        if ctx.is_protected(start):
            continue  # `#ifdef __NVCC__ ... #elif defined(__HIP__)`: the chain chooses already
        if not _gpu(ctx, body) or NVIDIA_ONLY.search(body) is not None or unported(ctx.lacking_names, body):
            continue
        at = src.index(_NAME, start, end)
        result.edits.append(Edit(at, at + len(_NAME), b"__HIPCC__"))
        result.settled.append((start, end, SETTLED_RULES))
        taken = "its branch" if positive else "its #else branch"
        message = f"`__NVCC__` -> `__HIPCC__`: {taken} is GPU code, which hipcc must compile (as nvcc does)"
        result.diagnostics.append(ctx.diag("HIP137", at, at + len(_NAME), message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={40: rewrite_nvcc_guards},
    tables=(_renames_table,),
    views=(renames_for,),
    texts=(
        Rule(
            "HIP137",
            "nvcc-guard-rewritten",
            Severity.INFO,
            "__NVCC__ test around GPU code rewritten to __HIPCC__",
            "Nothing to do; if the branch was meant for nvcc alone, restore __NVCC__ and port its code by "
            "hand.",
            "hipcc defines __HIPCC__ but not __NVCC__. A whole `#ifdef __NVCC__` (`#ifndef`, `defined()`) "
            "condition whose nvcc branch holds GPU code (execution-space qualifiers, launches, built-in "
            "indices, CUDA API calls) and nothing NVIDIA-only (inline assembly, `#pragma nv_*`, wmma, "
            "__CUDA_ARCH__) is the GPU build's path, so it tests __HIPCC__, as __CUDACC__ already does. "
            "Other __NVCC__ tests are kept and reported (HIP303).",
        ),
    ),
    fixtures=("guards/nvcc_*",),
)
