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
devices. Other tests keep HIP302. A group of `__device__` functions alone (no #else) is opened with
`defined(__HIPCC__)` instead: clang's host pass checks the bodies of template kernels instantiated there,
which call them (nvcc's host pass does not look into a kernel's body).
"""

from __future__ import annotations

import re

from hipify_py.analysis.arch_tests import widened
from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_NAME = b"__CUDA_ARCH__"
_WIDE = b"(defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__))"
# a group of __device__ functions alone: declared in hipcc's host pass too (see _device_functions_only)
_BOTH = b"(defined(__CUDA_ARCH__) || defined(__HIPCC__))"
SETTLED_RULES = frozenset({"HIP302"})
_FUNCTIONS = frozenset({"function_definition", "declaration", "template_declaration"})
_QUIET = frozenset({"comment", "preproc_call"})


def widen_device_pass_tests(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for chain, tests in widened(ctx.source, ctx.lacking_names, ctx.is_protected):
        wide = _BOTH if _device_functions_only(ctx, chain) else _WIDE
        for (start, end, kind, _), spans in tests:
            if kind in (b"ifdef", b"ifndef"):
                negate = b"!" if kind == b"ifndef" else b""
                result.edits.extend(Edit(a, b, b"if " + negate + wide) for a, b in spans)
            else:
                result.edits.extend(Edit(a, b, wide) for a, b in spans)
            result.settled.append((start, end, SETTLED_RULES))
            at = src.index(_NAME, start, end)
            message = (
                "`__CUDA_ARCH__` tests nvcc's device pass: hipcc defines __HIP_DEVICE_COMPILE__ there "
                "instead, so the test now names both"
            )
            result.diagnostics.append(ctx.diag("HIP143", at, at + len(_NAME), message))
            result.counts["device_pass_tests"] += 1
    return result


def _device_functions_only(ctx: Context, chain: list) -> bool:
    """`#ifdef __CUDA_ARCH__` with no #else around `__device__` functions alone (pixeltrack's warpPrefixScan).
    nvcc's host pass never looks into a kernel's body; clang's does, and a template kernel instantiated
    there that calls one fails ("use of undeclared identifier"). Device functions declared in the host pass
    are never emitted for the host, so the group is opened for all of hipcc's passes (`__HIPCC__`)."""
    (start, _, kind, text), *rest = chain
    if len(rest) != 1 or kind not in (b"ifdef", b"if") or b"!" in text:
        return False
    node = ctx.root.descendant_for_byte_range(start, start)
    while node is not None and node.type not in ("preproc_ifdef", "preproc_if"):
        node = node.parent
    if node is None or node.start_byte != start:
        return False
    body = [c for c in node.named_children if c.start_byte > chain[0][1] and c.type not in _QUIET]
    if not body or node.has_error:
        return False
    names = []
    for item in body:
        if item.type not in _FUNCTIONS:
            return False
        inner = item.named_children[-1] if item.type == "template_declaration" else item
        head = ctx.source[item.start_byte : (inner.child_by_field_name("body") or inner).start_byte]
        if inner.type not in ("function_definition", "declaration") or b"__device__" not in head:
            return False
        if b"__host__" in head or b"__global__" in head:
            return False
        name = _IDENT_BEFORE_PAREN.search(head)
        if name is None:
            return False
        names.append(name.group(1))
    # a name the file defines outside the group too (`#if !defined(__CUDA_ARCH__)` host twin): a pair
    # chosen per pass, which stays so
    outside = ctx.source[: node.start_byte] + ctx.source[node.end_byte :]
    return not any(
        re.search(rb"\b" + re.escape(n) + rb"\s*\(", outside) and _defined_in(outside, n) for n in names
    )


_IDENT_BEFORE_PAREN = lazy(rb"(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:const\s*)?$")


def _defined_in(text: bytes, name: bytes) -> bool:
    """`text` declares a function `name` (a return type or qualifier before it, not a call)."""
    return (
        re.search(rb"[\w>*&]\s+" + re.escape(name) + rb"\s*\([^;{)]*\)\s*(?:const\s*)?[{;]", text) is not None
    )


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
            "without a HIP counterpart). A group of `__device__` functions alone (no #else) gets "
            "`defined(__HIPCC__)` instead, for hipcc's host pass too: clang checks the body of a template "
            "kernel instantiated there, which calls them. Other __CUDA_ARCH__ tests are kept and reported "
            "(HIP302).",
        ),
    ),
    fixtures=("guards/device_pass*", "guards/hip64/device_pass*"),
)
