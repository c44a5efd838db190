"""translate(source, options) -> Result: the pure core. No file system, no globals.

parse -> every rule looks at the tree and returns edits/diagnostics/counts -> apply edits once.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.defines import is_option, names_defined, option_macros
from hipify_py.analysis.includes import include_position
from hipify_py.analysis.pp_branches import option_branches
from hipify_py.data import derived
from hipify_py.data.mappings import load_mappings
from hipify_py.data.predefined import hip_predefined_macros
from hipify_py.data.tables import Tables, compile_tables
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.engine.options import Options
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleFn, RuleResult
from hipify_py.rules.brace_assign import fix_brace_assignments
from hipify_py.rules.cache_hints import adapt_cache_hints
from hipify_py.rules.calls import adapt_calls
from hipify_py.rules.collisions import check_collisions
from hipify_py.rules.cxx import drop_register, guard_device_redefinitions
from hipify_py.rules.detectors import DETECTORS
from hipify_py.rules.device_casts import cast_device_arguments
from hipify_py.rules.device_pass import widen_device_pass_tests
from hipify_py.rules.dim3_construct import construct_dim3
from hipify_py.rules.guards import rewrite_guards
from hipify_py.rules.header_shims import insert_header_shims
from hipify_py.rules.identifiers import rename_identifiers
from hipify_py.rules.implicit_includes import (
    add_implicit_includes,
    add_thrust_includes,
    implicit_headers,
    thrust_headers,
)
from hipify_py.rules.includes import rewrite_includes
from hipify_py.rules.launch import convert_launches
from hipify_py.rules.library_macros import define_library_macros
from hipify_py.rules.macro_order import runtime_before_c_linkage, runtime_before_macros
from hipify_py.rules.mem_locations import adapt_location_calls
from hipify_py.rules.nvcc_guards import rewrite_nvcc_guards
from hipify_py.rules.shims import insert_shims
from hipify_py.rules.template_keyword import insert_template_keywords
from hipify_py.rules.vector_ops import check_vector_operators
from hipify_py.rules.warp_sync import adapt_warp_sync
from hipify_py.util.lazyre import lazy, words_at_boundary


class Result:
    """A translated file: its text, findings, counts, the edits made and the macros it defines.

    why a plain class, not a dataclass: see engine/options.py"""

    __slots__ = ("counts", "defines", "diagnostics", "edits", "lines", "text")

    def __init__(
        self,
        text: bytes,
        diagnostics: list[Diagnostic],
        counts: Counter[str],  # "identifiers.<family>", "launches", ...
        lines: int,
        edits: list[Edit],  # every edit applied (verify maps compiler lines back)
        defines: tuple[str, ...],  # macros the file #defines (option_macros: the project-wide decision)
    ) -> None:
        self.text, self.diagnostics, self.counts = text, diagnostics, counts
        self.lines, self.edits, self.defines = lines, edits, defines

    def changed_from(self, source: bytes) -> bool:
        return self.text != source


def translation_rules() -> tuple[RuleFn, ...]:
    """Rules that edit code. Order matters only for insertions at one offset (kept in order)."""
    return (
        rewrite_includes,
        rename_identifiers,
        rewrite_guards,
        rewrite_nvcc_guards,
        widen_device_pass_tests,
        convert_launches,
        adapt_calls,
        construct_dim3,
        cast_device_arguments,
        fix_brace_assignments,
        adapt_warp_sync,
        adapt_location_calls,
        define_library_macros,
        insert_shims,
        adapt_cache_hints,
        insert_header_shims,
        drop_register,
        insert_template_keywords,
        guard_device_redefinitions,
        check_collisions,
        check_vector_operators,
    )


def detector_rules() -> tuple[RuleFn, ...]:
    """Rules that only report (portability pitfalls); see hipify_py/rules/detectors/registry.py."""
    return DETECTORS


def default_tables(extra_mappings: tuple[Path, ...] = ()) -> Tables:
    """The compiled tables (their `.mappings` too); the shipped ones come from the derived cache."""
    # why the argument always passed on: lru_cache keys `f()` and `f(())` apart, and a table loaded
    # before a fork under one key was loaded again by every worker under the other
    return _tables_for(tuple(extra_mappings))


@functools.lru_cache(maxsize=8)
def _tables_for(extra_mappings: tuple[Path, ...]) -> Tables:
    if not extra_mappings:  # why not with extras: the key covers the shipped tables, not a user's file
        return derived.load("tables", _shipped_tables)
    return compile_tables(load_mappings(extra_mappings))


def preload_rule_tables(options: Options, stop: Callable[[], bool] | None = None) -> None:
    """Load every table a rule loads on first use, for the target: before a pool forks, so each
    worker inherits them instead of reading (on a cold cache: building from YAML) its own copy.
    `stop`: asked before each table; True ends the loading there (a guess that other work outranks)."""
    from hipify_py.data import adaptations, renames, shims, vendor_libs
    from hipify_py.rules import (
        brace_assign,
        cache_hints,
        calls,
        cxx,
        device_casts,
        header_shims,
        library_macros,
        macro_order,
        mem_locations,
        vector_ops,
    )
    from hipify_py.rules import shims as shim_rule
    from hipify_py.rules.detectors import host_math

    version = options.hip_version
    loads = (
        calls.load_call_table,
        device_casts.load_casts,
        brace_assign.load_facts,
        cache_hints.load_facts,
        cxx.hip_device_functions,
        macro_order.hip_identifiers,
        host_math.device_only_math,
        vendor_libs.load_facts,
        implicit_headers,
        thrust_headers,
        hip_predefined_macros,
        vector_ops.ambiguous_forms,
    )
    tables = (
        cache_hints.hint_table,
        adaptations.load_table,
        renames.load_table,
        shims.load_table,
        library_macros.load_table,
        mem_locations.load_table,
        header_shims.load_table,
    )
    # why the per-target views too: built from the tables on first use, they were built again in each
    # worker (renames_for: ~2.3 ms, in a worker's first file)
    target = version or default_tables().mappings.latest_hip_version
    views = (
        renames.renames_for,
        shim_rule.shim_tokens,
        shim_rule.overload_rows,
        shims.error_strings,
        adaptations.row_words,
        mem_locations.rows_for,
    )
    for step in (
        *(functools.partial(load, version) for load in loads),
        *tables,
        *(functools.partial(view, target) for view in views),
    ):
        if stop is not None and stop():
            return
        step()


def _shipped_tables() -> Tables:
    return compile_tables(load_mappings())


def translate(source: bytes, options: Options | None = None, tables: Tables | None = None) -> Result:
    options = options or Options()
    tables = tables or default_tables()
    ctx = Context(source=source, tables=tables, options=options)
    combined = RuleResult()
    parts = [(rule, rule(ctx)) for rule in (*translation_rules(), *detector_rules())]
    if _already_hip(ctx, parts):
        # why: `<<<>>>` is valid HIP too; a file with nothing CUDA left in it stays byte-identical
        parts = [(r, RuleResult(diagnostics=p.diagnostics) if r is convert_launches else p) for r, p in parts]
    shim_edits: list[Edit] = []
    for rule, part in parts:
        # why apart: a shim inserted at the top of a file with no include needs the runtime header's
        # types (char4, hipError_t), which is inserted at the same offset: the shim must come after it
        # (the cache-hint helpers too; their renamed calls are not at that offset)
        shims = rule is insert_shims or rule is adapt_cache_hints
        (shim_edits if shims else combined.edits).extend(part.edits)
        combined.diagnostics.extend(part.diagnostics)
        if part.counts:  # why the test: Counter.update is Python code (~0.3 us) and most rules count nothing
            combined.counts.update(part.counts)
        combined.settled.extend(part.settled)
    combined.edits.extend(_runtime_include(ctx, RuleResult(combined.edits + shim_edits, [], combined.counts)))
    if combined.edits or shim_edits:
        implicit = add_implicit_includes(ctx, combined.edits + shim_edits, include_position(ctx))
        thrust = add_thrust_includes(ctx, combined.edits)
        for found in (implicit, thrust):
            combined.edits.extend(found.edits)
            combined.diagnostics.extend(found.diagnostics)
            if found.counts:
                combined.counts.update(found.counts)
    combined.edits.extend(shim_edits)
    for runtime_first in (runtime_before_macros, runtime_before_c_linkage):
        order = runtime_first(ctx, combined.edits)
        combined.edits.extend(order.edits)
        combined.diagnostics.extend(order.diagnostics)
        if order.counts:
            combined.counts.update(order.counts)
    _drop_settled_findings(combined)
    _drop_api_findings_in_cuda_only_code(ctx, combined)
    diagnostics = _with_option_macros(
        ctx,
        sorted((d for d in combined.diagnostics if not ctx.suppressed(d)), key=lambda d: (d.start, d.rule)),
    )
    edits = combined.edits
    if options.annotate:
        from hipify_py.engine.annotate import annotation_edits

        edits = [*edits, *annotation_edits(source, diagnostics, edits)]
    text = apply_edits(source, edits) if edits else source
    return Result(
        text=text,
        diagnostics=diagnostics,
        counts=combined.counts,
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        edits=edits,
        defines=names_defined(ctx.define_lines),
    )


def _with_option_macros(ctx: Context, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Error findings in a branch only a build option compiles (`#ifdef PTX`) carry the option's name:
    the run decides, once it has seen every file and build file, whether anything defines it."""
    if b"#" not in ctx.source or not any(d.severity is Severity.ERROR for d in diagnostics):
        return diagnostics
    names = ctx.tables.names
    predefined = hip_predefined_macros(ctx.options.hip_version)
    spans = option_branches(ctx.source, lambda n: is_option(n, names.__contains__, predefined))
    if not spans:
        return diagnostics
    out = []
    for d in diagnostics:
        needs = option_macros(spans, d.start) if d.severity is Severity.ERROR else ()
        out.append(d._replace(requires=tuple(sorted({*d.requires, *needs}))) if needs else d)
    return out


# API-support findings about one name; the detectors already skip code hipcc never compiles.
_API_RULES = frozenset({"HIP101", "HIP103", "HIP104", "HIP105", "HIP106", "HIP107", "HIP128"})


def _drop_api_findings_in_cuda_only_code(ctx: Context, combined: RuleResult) -> None:
    """A name in a branch hipcc never compiles (`#if __CUDA_ARCH__ >= 800`, `#ifndef USE_ROCM`) is still
    renamed, but whether HIP has it does not matter for the AMD build: the guard's own finding (HIP30x)
    says what ROCm drops. Removed HIP101s leave the unsupported count too."""
    if not any(d.rule in _API_RULES for d in combined.diagnostics):
        return
    dead = ctx.branches.dead  # computed once per file, shared with the detectors
    if not dead:
        return
    _drop_findings(combined, lambda d: d.rule in _API_RULES and any(a <= d.start < b for a, b in dead))


def _drop_settled_findings(combined: RuleResult) -> None:
    """Findings inside spans a rule's edits settled (RuleResult.settled) are no longer true."""
    if not combined.settled:
        return
    settled = combined.settled
    _drop_findings(combined, lambda d: any(a <= d.start < b and d.rule in rules for a, b, rules in settled))


def _drop_findings(combined: RuleResult, drop: Callable[[Diagnostic], bool]) -> None:
    """Remove the findings `drop` picks; a dropped HIP101 no longer counts as unsupported."""
    kept = []
    for d in combined.diagnostics:
        if drop(d):
            if d.rule == "HIP101":
                combined.counts["unsupported"] -= 1
                if combined.counts["unsupported"] <= 0:
                    del combined.counts["unsupported"]
            continue
        kept.append(d)
    combined.diagnostics[:] = kept


def _already_hip(ctx: Context, parts: list[tuple[RuleFn, RuleResult]]) -> bool:
    """A file that includes HIP headers and has nothing but kernel launches to convert."""
    if not ctx.includes_hip:
        return False
    return not any(part.edits for rule, part in parts if rule is not convert_launches)


_HIP_RUNTIME_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"]hip/hip_runtime(?:_api)?\.h[>"]')
_RUNTIME_FAMILIES = ("identifiers.runtime", "identifiers.driver", "launches")


def _runtime_include(ctx: Context, found: RuleResult) -> list[Edit]:
    implicit = _implicit_runtime(ctx, found)
    return implicit + _include_prerequisites(ctx, found, implicit)


_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
_FULL_RUNTIME = b"hip/hip_runtime.h"


def _include_prerequisites(ctx: Context, found: RuleResult, inserted: list[Edit]) -> list[Edit]:
    """A rewritten include of a HIP header that does not compile on its own (mappings/include-order.yaml:
    hip_cooperative_groups.h uses hipBlockDim_z before hip_runtime.h defines it) gets the header it
    needs on the line before, unless an earlier include provides it. nvcc's implicit cuda_runtime.h
    hid that dependency in the CUDA code."""
    needs = dict(ctx.tables.include_needs)
    rewritten = {e.start: e.text for e in found.edits if e.start != e.end and e.text in needs}
    if not rewritten:
        return []
    targets = {e.start: e.text for e in found.edits if e.start != e.end}
    # (position, header) of every include in the output, in order; insertions count at their offset
    provided = [(e.start, b"hip/hip_runtime.h") for e in inserted]
    edits: list[Edit] = []
    for m in _INCLUDE_PATH.finditer(ctx.source):
        header = targets.get(m.start(1), m.group(1))
        need = needs.get(header) if m.start(1) in rewritten else None
        line = ctx.lines.line_start(m.start(1))
        if need is not None and not any(at <= line and h in (need, _FULL_RUNTIME) for at, h in provided):
            edits.append(Edit(line, line, b"#include <" + need + b">" + newline_of(ctx.source)))
            provided.append((line, need))
        provided.append((m.start(), header))
    return edits


def _implicit_runtime(ctx: Context, found: RuleResult) -> list[Edit]:
    """nvcc includes cuda_runtime.h implicitly; hipcc does not include the HIP runtime API.

    A file that used the runtime (now rewritten) or launched kernels without including a runtime
    header gets `#include <hip/hip_runtime.h>` at the top of its include block.
    """
    if ctx.includes_hip and _HIP_RUNTIME_INCLUDE.search(ctx.source):  # why the flag: most files have none
        return []
    if not any(found.counts[k] for k in _RUNTIME_FAMILIES) and not _has_kernel_code(ctx):
        return []
    new_runtime = any(e.text in (b"hip/hip_runtime.h", b"hip/hip_runtime_api.h") for e in found.edits)
    # hip_runtime_api.h declares the API but not threadIdx, __syncthreads...: enough only without kernels
    if new_runtime and not (_has_kernel_code(ctx) and not any(e.text == _FULL_RUNTIME for e in found.edits)):
        return []
    at = include_position(ctx)
    return [Edit(at, at, b"#include <hip/hip_runtime.h>" + newline_of(ctx.source))]


# nvcc includes cuda_runtime.h in every .cu, so kernel code compiles without an include; hipcc declares
# threadIdx, __syncthreads, __popc, atomicAdd... only through hip_runtime.h (clang itself knows
# __global__/__device__ and the math functions, so those alone do not count).
_KERNEL_SIGN_NAMES = frozenset(
    b"__global__ __shared__ threadIdx blockIdx blockDim gridDim warpSize __syncthreads".split()
)
_KERNEL_SIGNS = lazy(words_at_boundary(sorted(_KERNEL_SIGN_NAMES)) + rb"\b")


def _has_kernel_code(ctx: Context) -> bool:
    """CUDA kernel/device code in a file that includes no HIP header yet (already-HIP code stays as is)."""
    if ctx.includes_hip:
        return False
    if not _KERNEL_SIGN_NAMES.isdisjoint(ctx.identifiers) and any(
        where in REWRITABLE for _, where in ctx.code_matches(_KERNEL_SIGNS)
    ):
        return True
    return any(
        not ctx.is_protected(m.start()) and ctx.classify(m.start(), m.end()) in REWRITABLE
        for m in ctx.tables.intrinsics.finditer(ctx.source, ctx.identifiers)
    )
