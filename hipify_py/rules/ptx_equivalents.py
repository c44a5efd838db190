"""Inline PTX with an exact HIP counterpart (`asm("trap;")`, `asm volatile("membar.gl;" ::: "memory")`):
the statement becomes the HIP builtin instead of an error (HIP204), which would otherwise stop the build.

A register move between two operands of one register class (`asm("mov.b64 %0, %1;" : "=l"(out) :
"l"(in))`, QUICK's integer atomics) is an assignment: `((out) = (in))`. Within a class the two have the
same width, so C++'s conversion between them keeps every bit, as the move does; a move across classes
(`"=r"` from `"f"`: a reinterpretation) is left to HIP204.

A read of a PTX special register (`asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane))`, BM3DCUDA,
DeepSpeed, CUTLASS' `LaneId()`/`SmId()`) is an assignment from HIP's function for it, `((t) = clock64())`,
or from a helper of mappings/hand-kept/shims.yaml that rules/shims.py writes,
`((lane) = hipify_py_laneid())`: `__lane_id()` on AMD, the PTX register on HIP's NVIDIA platform
(data/detector_data.py lists them). A lane mask read into a 32-bit register (`"=r"`) keeps the low 32
lanes of HIP's 64-bit mask, so it gets HIP202 as a 32-bit mask does.

A prefetch (`asm("prefetch.global.L1 [%0];" :: "l"(p))`, `prefetchu.L1`, `prefetch.global.L2::evict_last`,
GROMACS' halo exchange) is a cache hint with no effect on any value: its address is evaluated and
discarded, `((void)(p))`, as on an AMD GPU the load that follows fetches the line anyway.

A global load or store with a cache operator (`asm("ld.global.cg.f32 %0, [%1];" : "=f"(r) : "l"(p))`,
`st.global.cs`, scalar or .v2/.v4; LULESH's sm_utils.inl) is an access of the type: `((r) = *(const
float*)(p))`, a volatile one for `.cv` and `.volatile`; the operator is a hint, as for CUDA's __ldcg and
__stcs, which HIP's own overloads access plainly."""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.ptx_text import (
    ASM_STATEMENT,
    accesses,
    asm_key,
    moves,
    operations,
    prefetches,
    special_reads,
)
from hipify_py.data.detector_data import PTX_EQUIVALENTS
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare

_SETTLES = frozenset({"HIP204"})


def adapt_ptx_equivalents(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"asm" not in ctx.source:
        return result
    for m, where in ctx.code_matches(ASM_STATEMENT):
        hip = PTX_EQUIVALENTS.get(asm_key(m.group(1)))
        if hip is None or where not in REWRITABLE:
            continue
        result.edits.append(Edit(m.start(), m.end(), hip))
        result.settled.append((m.start(), m.end(), _SETTLES))
        result.counts["ptx_equivalents"] += 1
    if b"mov." in ctx.source or b"prefetch" in ctx.source or b"%1" in ctx.source or b".global" in ctx.source:
        _operand_forms(ctx, result)
    return result


def _operand_forms(ctx: Context, result: RuleResult) -> None:
    found = moves(ctx.source) + prefetches(ctx.source) + live_special_reads(ctx) + live_operations(ctx)
    if b".global" in ctx.source:
        found += _live(ctx, accesses(ctx.source))
    for start, end, text in found:
        if ctx.is_protected(start) or ctx.classify(start, start + 3) not in REWRITABLE:
            continue
        result.edits.append(Edit(start, end, text))
        result.settled.append((start, end, _SETTLES))
        result.counts["ptx_equivalents"] += 1
        if b"lanemask" in text and ctx.source[start:end].count(b'"=r"'):
            msg = "a 32-bit register holds the 64-bit lane mask: lanes 32-63 are dropped on wave64 GPUs"
            result.diagnostics.append(ctx.diag("HIP202", start, end, msg))


def live_special_reads(ctx: Context) -> list[tuple[int, int, bytes]]:
    """The special-register reads this rule rewrites (rules/shims.py writes the helpers they call): in
    code it may rewrite, and not in a branch hipcc never compiles (`#if __CUDA_ARCH__ >= 700`), which
    stays PTX for NVIDIA builds."""
    return _live(ctx, special_reads(ctx.source)) if b"%%" in ctx.source else []


def live_operations(ctx: Context) -> list[tuple[int, int, bytes]]:
    """The instructions of detector_data.PTX_OPERATIONS this rule rewrites (rules/shims.py writes the helpers
    they call), where live_special_reads would rewrite a read."""
    return _live(ctx, operations(ctx.source)) if b"%1" in ctx.source else []


def _live(ctx: Context, found: list[tuple[int, int, bytes]]) -> list[tuple[int, int, bytes]]:
    dead = ctx.branches.dead if found else []
    return [
        r
        for r in found
        if not any(a <= r[0] < b for a, b in dead)
        and not ctx.is_protected(r[0])
        and ctx.classify(r[0], r[0] + 3) in REWRITABLE
    ]


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={95: adapt_ptx_equivalents},
    fixtures=("device/ptx_equivalents*",),
)
