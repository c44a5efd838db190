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
discarded, `((void)(p))`, as on an AMD GPU the load that follows fetches the line anyway."""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import PTX_EQUIVALENTS, PTX_SPECIAL_REGISTERS
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.device_pass import compiled_dead
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# asm [volatile] ( "template" ["template"...] [: : : "memory"] ): no operands, so nothing else to carry
_ASM_STATEMENT = lazy(
    rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"
    rb'((?:"(?:[^"\\\n]|\\.)*"\s*)+)(?::\s*:\s*:\s*(?:"memory"\s*)?)?\)'
)
_STRING_BODY = lazy(rb'"((?:[^"\\\n]|\\.)*)"')
# asm [volatile] ("mov.<type><bits> %0, %1;" : "=<c>"(  -- the operands are read by _operand
_MOVE = lazy(
    rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"
    rb'"\s*mov\.([bus](?:16|32|64)|f32|f64)\s+%0\s*,\s*%1\s*;?\s*"\s*:\s*"=([hrlfd])"\s*\('
)
# asm [volatile] ("mov.<type><bits> %0, %%<register>;" : "=<c>"(  -- the operand is read by _operand
_SPECIAL = lazy(
    rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"
    rb'"\s*mov\.[bus](?:32|64)\s+%0\s*,\s*%%(\w+)\s*;?\s*"\s*:\s*"=([rl])"\s*\('
)
# `)` of the statement after the output operand: empty input and clobber lists may follow
_SPECIAL_CLOSE = lazy(rb'\s*(?::\s*(?:"memory"\s*)?){0,2}\)')
_INPUT = lazy(rb'\s*:\s*"([hrlfd])"\s*\(')
# asm [volatile] ("prefetch[u][.space].level[::eviction] [%0];" :: "l"(  -- the address is read by _operand
_PREFETCH = lazy(
    rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"
    rb'"\s*prefetchu?(?:\.(?:global|local))?\.L[12](?:::evict_\w+)?\s+\[\s*%0\s*\]\s*;?\s*"'
    rb'\s*:\s*:\s*"[lr]"\s*\('
)
_CLOBBER_CLOSE = lazy(rb'\s*(?::\s*(?:"memory"\s*)?)?\)')
_CLOSE = lazy(rb"\s*\)")
_SETTLES = frozenset({"HIP204"})


def _key(strings: bytes) -> bytes:
    template = b"".join(_STRING_BODY.findall(strings))
    template = template.replace(b"\\n", b" ").replace(b"\\t", b" ").replace(b";", b" ")
    return b" ".join(template.split())


def adapt_ptx_equivalents(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"asm" not in ctx.source:
        return result
    for m, where in ctx.code_matches(_ASM_STATEMENT):
        hip = PTX_EQUIVALENTS.get(_key(m.group(1)))
        if hip is None or where not in REWRITABLE:
            continue
        result.edits.append(Edit(m.start(), m.end(), hip))
        result.settled.append((m.start(), m.end(), _SETTLES))
        result.counts["ptx_equivalents"] += 1
    if b"mov." in ctx.source or b"prefetch" in ctx.source:
        _operand_forms(ctx, result)
    return result


def _operand_forms(ctx: Context, result: RuleResult) -> None:
    for start, end, text in moves(ctx.source) + prefetches(ctx.source) + live_special_reads(ctx):
        if ctx.is_protected(start) or ctx.classify(start, start + 3) not in REWRITABLE:
            continue
        result.edits.append(Edit(start, end, text))
        result.settled.append((start, end, _SETTLES))
        result.counts["ptx_equivalents"] += 1
        if b"lanemask" in text and ctx.source[start:end].count(b'"=r"'):
            msg = "a 32-bit register holds the 64-bit lane mask: lanes 32-63 are dropped on wave64 GPUs"
            result.diagnostics.append(ctx.diag("HIP202", start, end, msg))


def without_equivalents(text: bytes) -> bytes:
    """`text` with every inline PTX statement this rule rewrites blanked out (rules/device_pass.py asks:
    a device-pass branch whose assembly all has HIP equivalents holds no NVIDIA-only code)."""
    spans = [
        (m.start(), m.end()) for m in _ASM_STATEMENT.finditer(text) if _key(m.group(1)) in PTX_EQUIVALENTS
    ]
    spans += [(a, b) for a, b, _ in moves(text) + prefetches(text) + special_reads(text)]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + b" " * (end - start) + text[end:]
    return text


def moves(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each register move within one class (scripts/realworld_check.py too)."""
    found = []
    for m in _MOVE.finditer(source):
        out = _operand(source, m.end())
        given = _INPUT.match(source, out[1] + 1) if out is not None else None
        into = _operand(source, given.end()) if given is not None else None
        close = _CLOSE.match(source, into[1] + 1) if into is not None else None
        if out is None or given is None or into is None or close is None:
            continue
        if given.group(1) != m.group(2):
            continue  # across register classes: a reinterpretation, not a copy
        target, value = source[out[0] : out[1]], source[into[0] : into[1]]
        found.append((m.start(), close.end(), b"((" + target + b") = (" + value + b"))"))
    return found


def live_special_reads(ctx: Context) -> list[tuple[int, int, bytes]]:
    """The special-register reads this rule rewrites (rules/shims.py writes the helpers they call): in
    code it may rewrite, and not in a branch hipcc never compiles (`#if __CUDA_ARCH__ >= 700`), which
    stays PTX for NVIDIA builds."""
    if b"%%" not in ctx.source:
        return []
    reads = special_reads(ctx.source)
    dead = compiled_dead(ctx) if reads else []
    return [
        r
        for r in reads
        if not any(a <= r[0] < b for a, b in dead)
        and not ctx.is_protected(r[0])
        and ctx.classify(r[0], r[0] + 3) in REWRITABLE
    ]


def special_reads(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each read of a PTX special register HIP has a function for
    (scripts/realworld_check.py too)."""
    found = []
    for m in _SPECIAL.finditer(source):
        hip = PTX_SPECIAL_REGISTERS.get(m.group(1))
        out = _operand(source, m.end()) if hip is not None else None
        close = _SPECIAL_CLOSE.match(source, out[1] + 1) if out is not None else None
        if hip is None or out is None or close is None:
            continue
        found.append((m.start(), close.end(), b"((" + source[out[0] : out[1]] + b") = " + hip + b")"))
    return found


def prefetches(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, `((void)(address))`) of each prefetch of one address (scripts/realworld_check.py too)."""
    found = []
    for m in _PREFETCH.finditer(source):
        address = _operand(source, m.end())
        close = _CLOBBER_CLOSE.match(source, address[1] + 1) if address is not None else None
        if address is None or close is None:
            continue
        found.append((m.start(), close.end(), b"((void)(" + source[address[0] : address[1]] + b"))"))
    return found


def _operand(source: bytes, at: int) -> tuple[int, int] | None:
    """The span of an operand's expression from `at` (just after its `(`) to its `)` (excluded)."""
    depth = 0
    for i in range(at, min(len(source), at + 2048)):
        c = source[i]
        if c == 0x28:  # (
            depth += 1
        elif c == 0x29:  # )
            if depth == 0:
                return at, i
            depth -= 1
        elif c in b';{}"':
            return None
    return None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={95: adapt_ptx_equivalents},
    fixtures=("device/ptx_equivalents*",),
)
