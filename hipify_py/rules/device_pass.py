"""`defined(__CUDA_ARCH__)` as a device-pass test -> also `defined(__HIP_DEVICE_COMPILE__)` (HIP143).

nvcc defines __CUDA_ARCH__ in its device passes only; code tests its mere presence to give a function
a device and a host body (`#ifdef __CUDA_ARCH__ atomicAdd(...) #else #pragma omp atomic ... #endif`),
or to declare device-only overloads, since nvcc cannot overload on __host__/__device__. hipcc never
defines __CUDA_ARCH__: its device passes predefine __HIP_DEVICE_COMPILE__ (mappings/hip-predefined-
macros-<version>.yaml), so on AMD the host body is compiled for the device too and the build fails
("reference to __host__ function ... in __host__ __device__ function") or the device gets host code.

A presence test is widened to `(defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))`, which
keeps the NVIDIA build as it was. Only where the test is a presence test everywhere in the condition
(`#ifdef`, `#ifndef`, `defined X` / `defined(X)` in an #if/#elif, never compared with a number: an
arch comparison `__CUDA_ARCH__ >= 700` has no AMD meaning and stays HIP302) and the whole #if group
holds nothing NVIDIA-only (inline assembly, unless rules/ptx_equivalents.py rewrites it; `#pragma nv_*`,
wmma, nested arch tests, a CUDA API without a HIP counterpart): that code would now be compiled for AMD
devices. Other tests keep HIP302.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from hipify_py.analysis.context import Context
from hipify_py.analysis.pp_branches import directives
from hipify_py.analysis.ptx_text import without_equivalents
from hipify_py.data.detector_data import HIP_PLATFORM_MACRO
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.lexer import COMMENT
from hipify_py.rules import RuleResult
from hipify_py.rules.nvcc_guards import NVIDIA_ONLY, unported
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_NAME = b"__CUDA_ARCH__"
_PRESENCE = lazy(rb"defined\s*\(\s*__CUDA_ARCH__\s*\)|defined\s+__CUDA_ARCH__\b")
_ANY = lazy(rb"\b__CUDA_ARCH__\b")
_WIDE = b"(defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))"
SETTLED_RULES = frozenset({"HIP302"})

Directive = tuple[int, int, bytes, bytes]


def _groups(source: bytes) -> Iterator[list[Directive]]:
    """The directives of each complete #if ... #endif group (innermost groups first)."""
    stack: list[list[Directive]] = []
    for directive in directives(source):
        kind = directive[2]
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append([directive])
        elif stack:
            stack[-1].append(directive)
            if kind == b"endif":
                yield stack.pop()


def _presence_spans(directive: Directive, source: bytes) -> list[tuple[int, int]] | None:
    """Spans to replace for the presence tests of __CUDA_ARCH__ in one condition (for #ifdef/#ifndef:
    from the keyword to the name), or None when the condition uses the macro otherwise (a comparison,
    a value) or already tests a HIP macro."""
    start, end, kind, text = directive
    at = end - len(text)  # where the condition text starts
    code = COMMENT.sub(lambda m: b" " * len(m.group()), text)  # offsets kept
    if _NAME not in code or HIP_PLATFORM_MACRO.search(code):
        return None
    if kind in (b"ifdef", b"ifndef"):
        if code.split() != [_NAME]:
            return None
        keyword = source.rindex(kind, start, at)
        return [(keyword, at + code.index(_NAME) + len(_NAME))]
    if kind not in (b"if", b"elif"):
        return None
    tests = [(at + m.start(), at + m.end()) for m in _PRESENCE.finditer(code)]
    return tests if tests and len(tests) == len(_ANY.findall(code)) else None


def _widened(ctx: Context) -> Iterator[tuple[list[Directive], list[tuple[Directive, list[tuple[int, int]]]]]]:
    """The #if groups whose __CUDA_ARCH__ presence tests are widened, with those tests' spans."""
    src = ctx.source
    if _NAME not in src:
        return
    for chain in _groups(src):
        tests = [(d, spans) for d in chain if (spans := _presence_spans(d, src))]
        if not tests:
            continue
        body = b"".join(src[a[1] : b[0]] for a, b in itertools.pairwise(chain))
        body = COMMENT.sub(b" ", body)
        if b"asm" in body:  # assembly with a HIP equivalent is not NVIDIA-only: it is rewritten
            body = without_equivalents(body)
        if NVIDIA_ONLY.search(body) is not None or unported(ctx, body):
            continue
        if any(ctx.is_protected(d[0]) for d, _ in tests):
            continue
        yield chain, tests


def compiled_dead(ctx: Context) -> list[tuple[int, int]]:
    """The branches hipcc never compiles once this rule has widened the device-pass tests: a branch of
    `#if defined(__CUDA_ARCH__) && defined(__CUDACC__)` (OPS's 16-bit atomicCAS loop) is dead for the
    code as written and compiled for AMD devices after the rewrite, so the helpers it needs are."""
    dead = ctx.branches.dead
    if not dead or _NAME not in ctx.source:
        return dead
    groups = [(chain[0][0], chain[-1][1]) for chain, _ in _widened(ctx)]
    return [(a, b) for a, b in dead if not any(lo <= a and b <= hi for lo, hi in groups)]


def widen_device_pass_tests(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for _chain, tests in _widened(ctx):
        for (start, end, kind, _), spans in tests:
            if kind in (b"ifdef", b"ifndef"):
                negate = b"!" if kind == b"ifndef" else b""
                result.edits.extend(Edit(a, b, b"if " + negate + _WIDE) for a, b in spans)
            else:
                result.edits.extend(Edit(a, b, _WIDE) for a, b in spans)
            result.settled.append((start, end, SETTLED_RULES))
            at = src.index(_NAME, start, end)
            message = (
                "`__CUDA_ARCH__` tests nvcc's device pass: hipcc defines __HIP_DEVICE_COMPILE__ there "
                "instead, so the test now names both"
            )
            result.diagnostics.append(ctx.diag("HIP143", at, at + len(_NAME), message))
            result.counts["device_pass_tests"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={42: widen_device_pass_tests},
    texts=(
        Rule(
            "HIP143",
            "device-pass-test-widened",
            Severity.INFO,
            "__CUDA_ARCH__ presence test (nvcc's device pass) widened to __HIP_DEVICE_COMPILE__",
            "Nothing to do; if the device branch was meant for NVIDIA GPUs alone, restore the test and give "
            "AMD its own branch.",
            "nvcc defines __CUDA_ARCH__ in device passes only, and code tests its presence to give a "
            "function a device and a host body, or to declare device-only overloads. hipcc never defines "
            "it; its device passes predefine __HIP_DEVICE_COMPILE__. So `#ifdef __CUDA_ARCH__`, "
            "`#ifndef`, and `defined(__CUDA_ARCH__)` in an #if/#elif become "
            "`(defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))` (the NVIDIA build is unchanged) "
            "where the macro is never compared with a number in that condition and the #if group holds "
            "nothing NVIDIA-only (inline assembly, `#pragma nv_*`, wmma, nested arch tests, a CUDA API "
            "without a HIP counterpart). Other __CUDA_ARCH__ tests are kept and reported (HIP302).",
        ),
    ),
    fixtures=("guards/device_pass*",),
)
