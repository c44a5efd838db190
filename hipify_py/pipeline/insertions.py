"""The insertion planner: every line a translation adds above code, placed in one pass, in one order.

Rules do not write such lines themselves: they request them (RuleResult.requests, rules/__init__.py:
a macro HIP's headers read, an include, a helper definition). This pass adds what the file as a whole
needs (the runtime header nvcc included implicitly, a header a rewritten include needs first, C and
thrust headers CUDA's headers brought along, the runtime header above a macro or an `extern "C"` block
that would break it), turns every request into an edit, and joins the quoted includes the output-name
policy renames. The caller applies the result with one apply_edits, so one line map covers it all.

Order at one offset (docs/architecture.md, "Insertions"): the rules' own edits there (as before this
pass existed: hipcc includes the runtime on its own, so an `#if` a rule opens at the top of a file may
hold the lines below), macros HIP's headers read, the runtime header, a header an included HIP header
needs, other headers, helper definitions, the guarded runtime header (right above the `#define` or
`extern "C"` it protects). Requests of one slot keep the rules' order. Where each goes:
- macros and included headers without a place: the top of the include block (before the first
  top-level #include; inside a header guard; after leading comments; analysis/includes.py);
- a header after another include (thrust): after that include's line;
- a helper: before the declaration that first uses it (the rule says where);
- the guarded runtime header: above the first #define that would rewrite HIP's headers, or above the
  `extern "C"` block (rules/macro_order.py); never below a runtime include already there.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.includes import include_position, top_level
from hipify_py.analysis.option_branches import option_branches
from hipify_py.analysis.pp_branches import HIP_DEFINED
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import HELPER, MACRO, PREREQUISITE, RUNTIME, TOP, Insertion, RuleResult
from hipify_py.rules.implicit_includes import add_implicit_includes, add_thrust_includes
from hipify_py.rules.macro_order import runtime_before_c_linkage, runtime_before_macros
from hipify_py.util.lazyre import compiled, lazy, words_at_boundary

_RUNTIME_HEADER = b"hip/hip_runtime.h"


def place(
    ctx: Context,
    edits: list[Edit],
    requests: list[Insertion],
    counts: Counter[str],
    renamed: Sequence[Edit] = (),
) -> RuleResult:
    """Every edit of the file: the rules' `edits`, their insertion `requests` and what the file needs
    besides (`counts`: the rules' counts, runtime use among them), placed in order; `renamed`: quoted
    includes the output-name policy points at new names (run/output_names.py include_edits), dropped
    where a rule rewrote that include already. The result's findings and counts are the planner's own
    (HIP135, HIP221, HIP131, HIP132; renamed_includes)."""
    out = RuleResult()
    planned = [*requests, *_runtime_include(ctx, edits, counts)]
    if edits or planned:  # a file the translation changes (the headers were there for CUDA code)
        so_far = edits + _edits(ctx, planned) if planned else edits
        for found in (add_implicit_includes(ctx, so_far), add_thrust_includes(ctx, so_far)):
            _take(out, planned, found)
    if planned or ctx.define_lines or b'extern "C"' in ctx.source:  # why the tests: most files need neither
        placed = _edits(ctx, planned)
        for runtime_first in (runtime_before_macros, runtime_before_c_linkage):
            found = runtime_first(ctx, edits + placed)
            _take(out, planned, found)
            if found.requests:
                placed = _edits(ctx, planned)
        out.edits = edits + placed if placed else edits
    else:
        out.edits = edits
    if renamed:
        kept = [r for r in renamed if not any(e.start < r.end and r.start < e.end for e in edits)]
        out.edits = out.edits + kept
        if kept:
            out.counts["renamed_includes"] += len(kept)
    return out


def _take(out: RuleResult, planned: list[Insertion], found: RuleResult) -> None:
    planned.extend(found.requests)
    out.diagnostics.extend(found.diagnostics)
    if found.counts:
        out.counts.update(found.counts)


def _edits(ctx: Context, planned: list[Insertion]) -> list[Edit]:
    """The requests as edits, sorted by slot (stable: one slot keeps the rules' order); apply_edits keeps
    insertions at one offset in this order, after the rules' own edits there."""
    if not planned:
        return []
    nl = newline_of(ctx.source)
    top = include_position(ctx) if any(r.at == TOP for r in planned) else 0
    end = len(ctx.source) if ctx.source and not ctx.source.endswith(b"\n") else -1
    out = []
    for r in sorted(planned, key=_slot):
        if r.slot == MACRO:
            text = b"#ifndef " + r.text + nl + b"#define " + r.text + nl + b"#endif" + nl
        elif r.slot == HELPER:
            text = r.text
        else:
            text = b"#include <" + r.text + b">" + nl
        if r.guard:
            text = r.guard + nl + text + b"#endif" + nl
        at = top if r.at == TOP else r.at
        if at == end:  # after a last line with no newline: the newline goes first
            text = nl + text.removesuffix(nl) if r.slot != HELPER else nl + text
        out.append(Edit(at, at, text))
    return out


def _slot(r: Insertion) -> int:
    return r.slot


# ---- the runtime header and the headers a rewritten include needs first (nvcc's implicit include)

_HIP_RUNTIME_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"]hip/hip_runtime(?:_api)?\.h[>"]')
_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
_RUNTIME_FAMILIES = ("identifiers.runtime", "identifiers.driver", "launches")


def _runtime_include(ctx: Context, edits: list[Edit], counts: Counter[str]) -> list[Insertion]:
    implicit = _implicit_runtime(ctx, edits, counts)
    return implicit + _include_prerequisites(ctx, edits, implicit)


def _include_prerequisites(ctx: Context, edits: list[Edit], inserted: list[Insertion]) -> list[Insertion]:
    """A rewritten include of a HIP header that does not compile on its own (mappings/include-order.yaml:
    hip_cooperative_groups.h uses hipBlockDim_z before hip_runtime.h defines it) gets the header it
    needs on the line before, unless an earlier include provides it. nvcc's implicit cuda_runtime.h
    hid that dependency in the CUDA code."""
    needs = dict(ctx.tables.include_needs)
    rewritten = {e.start: e.text for e in edits if e.start != e.end and e.text in needs}
    if not rewritten:
        return []
    targets = {e.start: e.text for e in edits if e.start != e.end}
    # (position, header) of every include in the output, in order; insertions count at their offset
    top = include_position(ctx)
    provided = [(top if r.at == TOP else r.at, _RUNTIME_HEADER) for r in inserted]
    out: list[Insertion] = []
    for m in _INCLUDE_PATH.finditer(ctx.source):
        header = targets.get(m.start(1), m.group(1))
        need = needs.get(header) if m.start(1) in rewritten else None
        line = ctx.lines.line_start(m.start(1))
        if need is not None and not any(at <= line and h in (need, _RUNTIME_HEADER) for at, h in provided):
            out.append(Insertion(PREREQUISITE, line, need))
            provided.append((line, need))
        provided.append((m.start(), header))
    return out


def _implicit_runtime(ctx: Context, edits: list[Edit], counts: Counter[str]) -> list[Insertion]:
    """nvcc includes cuda_runtime.h implicitly; hipcc does not include the HIP runtime API.

    A file that used the runtime (now rewritten) or launched kernels without including a runtime
    header gets `#include <hip/hip_runtime.h>` at the top of its include block.
    """
    # why the flag: most files have no HIP include, and spare the branch analysis
    dead = _hip_switch_branches(ctx) if ctx.includes_hip else []
    if ctx.includes_hip and _live(ctx.source, _HIP_RUNTIME_INCLUDE, dead):
        return []
    kernels = _has_kernel_code(ctx, dead)
    if not any(counts[k] for k in _RUNTIME_FAMILIES) and not kernels:
        return []
    if _included(ctx, edits, b"hip/hip_runtime.h") and not _runtime_late(ctx, edits):
        return []
    # hip_runtime_api.h declares the API but not threadIdx, __syncthreads...: enough only without kernels
    if _included(ctx, edits, b"hip/hip_runtime_api.h") and not kernels:
        return []
    return [Insertion(RUNTIME, TOP, _RUNTIME_HEADER)]


# what the file may hold above its runtime include that nvcc compiled with CUDA's names already in: a
# project header's include, a declaration or definition (LEAP: a struct of float3 in a header included first)
_BEFORE_RUNTIME = frozenset(
    {"declaration", "struct_specifier", "class_specifier", "union_specifier", "type_definition"}
    | {"function_definition", "template_declaration", "namespace_definition", "linkage_specification"}
)
_QUOTED_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*"', re.MULTILINE)


def _runtime_late(ctx: Context, edits: list[Edit]) -> bool:
    """The file's runtime include is unconditional (top level) and follows a quoted include or code that
    may use CUDA's names, as nvcc's implicit cuda_runtime.h allowed: the runtime goes first too."""
    at = {e.start for e in edits if e.text == _RUNTIME_HEADER}
    risky = False
    for node in top_level(ctx):
        kind = node.type
        if kind == "preproc_include" and any(node.start_byte <= a < node.end_byte for a in at):
            return risky
        span = (node.start_byte, node.end_byte)
        quoted = kind.startswith("preproc_") and _QUOTED_INCLUDE.search(ctx.source, *span) is not None
        risky = risky or kind in _BEFORE_RUNTIME or quoted
    return False


def _included(ctx: Context, edits: list[Edit], header: bytes) -> bool:
    """An include rewritten to `header` that hipcc compiles: not one only other compilers see
    (`#ifndef __CUDACC__ #define __CUDACC__ #include "cuda_runtime.h" #endif`, for editors and host
    compilers: nvcc includes its runtime itself, and under hipcc that block is skipped)."""
    found = [e.start for e in edits if e.text == header]
    src = ctx.source
    return bool(found) and any(not _not_nvcc(src, at) and not _device_only(src, at) for at in found)


_CONDITIONAL = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.MULTILINE)
_NOT_NVCC = lazy(
    rb"[ \t]+(?:(__CUDACC__|__NVCC__)|!\s*defined\s*\(?\s*(__CUDACC__|__NVCC__)\s*\)?)\s*(?://.*|/\*.*)?"
)


def _not_nvcc(source: bytes, at: int) -> bool:
    """`at` is in the first branch of `#ifndef __CUDACC__` (`#if !defined(__NVCC__)`): code for compilers
    other than nvcc, which the translation makes code for compilers other than hipcc."""
    stack: list[bool] = []
    for m in _CONDITIONAL.finditer(source, 0, at):
        kind = m.group(1)
        if kind in (b"if", b"ifdef", b"ifndef"):
            test = _NOT_NVCC.fullmatch(m.group(2))
            stack.append(test is not None and (kind == b"ifndef") == (test.group(1) is not None))
        elif kind == b"endif" and stack:
            stack.pop()
        elif stack:
            stack[-1] = False  # #else/#elif: no longer the test's first branch
    return any(stack)


_DEVICE_PASS = lazy(
    rb"[ \t]+(?:__CUDA_ARCH__|\(?\s*defined\s*\(?\s*__CUDA_ARCH__\s*\)?\s*\)?)\s*(?://.*|/\*.*)?"
)


def _device_only(source: bytes, at: int) -> bool:
    """`at` is in the first branch of `#ifdef __CUDA_ARCH__` (`#if defined(__CUDA_ARCH__)`): an include
    there is in nvcc's device pass only, and in hipcc's (widened, HIP143); the host pass still needs one."""
    stack: list[bool] = []
    for m in _CONDITIONAL.finditer(source, 0, at):
        kind = m.group(1)
        if kind in (b"if", b"ifdef"):
            # `#ifdef __CUDA_ARCH__` or `#if defined(__CUDA_ARCH__)`, not `#if __CUDA_ARCH__`
            text = m.group(2)
            presence = _DEVICE_PASS.fullmatch(text) is not None
            stack.append(presence and (kind == b"ifdef") != (b"defined" in text))
        elif kind == b"ifndef":
            stack.append(False)
        elif kind == b"endif" and stack:
            stack.pop()
        elif stack:
            stack[-1] = False
    return any(stack)


# nvcc includes cuda_runtime.h in every .cu, so kernel code compiles without an include; hipcc declares
# threadIdx, __syncthreads, __popc, atomicAdd... only through hip_runtime.h (clang itself knows
# __global__/__device__ and the math functions, so those alone do not count).
_KERNEL_SIGN_NAMES = frozenset(
    b"__global__ __shared__ threadIdx blockIdx blockDim gridDim warpSize __syncthreads".split()
)


@functools.lru_cache(maxsize=1)
def kernel_signs() -> tuple[frozenset[bytes], re.Pattern[bytes]]:
    """The names above and the warp builtins mappings/version-adaptations.yaml adapts (`__ballot_sync`,
    `__activemask`...: device intrinsics the reference tables do not list), and their pattern."""
    from hipify_py.data.adaptations import load_table

    names = _KERNEL_SIGN_NAMES | {row.cuda.encode() for row in load_table()}
    return names, compiled(words_at_boundary(sorted(names)) + rb"\b")


def _has_kernel_code(ctx: Context, dead: list[tuple[int, int]]) -> bool:
    """CUDA kernel/device code in a file that includes no HIP header yet (already-HIP code stays as is);
    `dead`: the branches of the project's own HIP-build switch, where an include does not count."""
    if ctx.includes_hip and _live(ctx.source, _HIP_INCLUDE, dead):
        return False
    names, signs = kernel_signs()
    if not names.isdisjoint(ctx.identifiers) and any(
        where in REWRITABLE for _, where in ctx.code_matches(signs)
    ):
        return True
    return any(
        not ctx.is_protected(m.start()) and ctx.classify(m.start(), m.end()) in REWRITABLE
        for m in ctx.tables.intrinsics.finditer(ctx.source, ctx.identifiers)
    )


_HIP_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"]hip/')
# a project's own switch for its HIP build (`__IS_HIP_COMPILE__`, `USE_HIP`, `ARB_HIP`): hipcc defines none
# of these, nor does the CUDA build the translation starts from (USE_ROCM, PyTorch's, is taken as defined)
_HIP_SWITCH = lazy(rb"\w*(?:HIP|ROCM|hip|rocm)\w*")


def _live(source: bytes, include: re.Pattern[bytes], dead: list[tuple[int, int]]) -> bool:
    """An `include` line outside the `dead` branches (`#ifdef __IS_HIP_COMPILE__ #include
    <hip/hip_runtime.h>`): those are not compiled in the CUDA build translated here, so nothing else
    would declare dim3 or threadIdx as nvcc's implicit cuda_runtime.h did."""
    return any(not any(a <= m.start() < b for a, b in dead) for m in include.finditer(source))


def _hip_switch_branches(ctx: Context) -> list[tuple[int, int]]:
    """The branches compiled only with a project's own HIP-build switch defined (option_branches), when
    the file does not define that switch itself: dead in the configuration being translated."""
    own = frozenset(m.group(1) for m in ctx.define_lines)

    def switch(name: bytes) -> bool:
        return name not in HIP_DEFINED and name not in own and _HIP_SWITCH.fullmatch(name) is not None

    return [(a, b) for a, b, _ in option_branches(ctx.source, switch)]
