"""Warp size and lane masks: literal and named 32s (HIP201), 32-bit full masks (HIP202), *_sync
intrinsics HIP lacks before 6.2 (HIP203), warpSize used as a constant on ROCm 7 (HIP218).
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.data.detector_data import SYNC_WARP_INTRINSICS
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import DEFINE_LINE, Scan, line_bounds, match_text
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy, words_at_boundary

# why module-level: compiled from the shipped programs (util/lazyre.py), not by each worker
_WORD = lazy(rb"\w+")
_CONSTEXPR = lazy(rb"\bconstexpr\b")

_WARP_ARITH = lazy(rb"(?:%|/(?![/*=])|\*)\s*32[uU]?\b(?!\s*\.)|&\s*(?:31|0x1[fF])[uU]?\b|>>\s*5\b")
# Case-sensitive on purpose: `lane`/`Lane` but not `plane`, `warp` inside `nwarps`/`numWarps`.
_THREAD_WORDS = lazy(rb"threadIdx|blockDim|\blane|Lane|[Ww]arp|\btid\b|\bwid\b")
_LANE_WORDS = lazy(rb"\blane|Lane|[Ww]arp")
# The patterns below start with their literal and check the word boundary after it (`__shfl(?<!\w__shfl)`
# == `\b__shfl`): only a pattern that starts with a literal gets the regex engine's fast prefix search.
_SHFL_WIDTH = lazy(
    rb"__shfl(?<!\w__shfl)(?:_up|_down|_xor)?(?:_sync)?\s*\((?:[^()]|\([^()]*\))*?,\s*32\s*\)",
)
_SHARED_32 = lazy(rb"__shared__(?<!\w__shared__)\b[^;{}()=]*?\b(\w+)\s*\[\s*32\s*\]\s*;")
_HALVING_LOOP = lazy(
    rb"for(?<!\wfor)\s*\(\s*(?:(?:unsigned|int|auto|const)\s+)*\w+\s*=\s*16\s*;[^;]*;\s*\w+\s*(?:/=\s*2|>>=\s*1)\s*\)"
)


# `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;`, `static const unsigned warp_size{32};`
_WARP_SIZE_NAME = lazy(
    rb"(?:WARP|[Ww]arp)_?(?:SIZE|[Ss]ize)\b(?:[ \t]+|\s*=\s*|\s*\{\s*)32[uU]?\b(?!\s*[.*/+-])"
)


def warp_size_constants(ctx: Context, scan: Scan) -> RuleResult:
    src = ctx.source
    result = RuleResult()
    for m in scan.code(_WARP_SIZE_NAME):
        start = m.start()
        while start > 0 and (src[start - 1 : start].isalnum() or src[start - 1] == 0x5F):
            start -= 1
        name = _WORD.match(src[start : m.end()])
        assert name is not None
        msg = f"`{name.group().decode()}` is defined as 32: AMD wavefronts have 64 lanes (use warpSize)"
        result.diagnostics.append(ctx.diag("HIP201", start, m.end(), msg))
    return result


def warp_size_literals(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    seen: set[int] = set()

    def add(start: int, end: int, message: str) -> None:
        line = ctx.lines.line_col(start)[0]
        if line not in seen:
            seen.add(line)
            result.diagnostics.append(ctx.diag("HIP201", start, end, message))

    for m in scan.code(_SHFL_WIDTH, device_only=True):
        width = src.rfind(b"32", m.start(), m.end())
        add(width, width + 2, "shuffle width 32: a wavefront has 64 lanes on most AMD GPUs")
    for m in scan.code(_HALVING_LOOP, device_only=True):
        if scan.device.contains(m.start()):
            add(m.start(), m.end(), "reduction loop starting at offset 16 assumes 32 lanes per warp")
    for m in scan.code(_SHARED_32, device_only=True):
        # A 32-slot array is a per-warp/per-lane buffer when its name or an index says so.
        body = scan.device.span_text(src, m.start())
        name = re.escape(m.group(1))
        indexed = re.compile(rb"\b" + name + rb"\s*\[[^\]]*(?:\blane|Lane|[Ww]arp)")
        if body is not None and (_LANE_WORDS.search(m.group(1)) or indexed.search(body)):
            add(m.start(), m.end(), "__shared__ array of 32 elements: one slot per lane or warp of size 32?")
    for m in scan.code(_WARP_ARITH, device_only=True):
        if not scan.device.contains(m.start()):
            continue
        ls, _ = line_bounds(src, m.start())
        if _THREAD_WORDS.search(_left_operand(src, m.start(), ls)):
            add(
                m.start(),
                m.end(),
                f"`{match_text(m).strip()}` in lane/warp index math assumes a warp of 32 threads",
            )
    return result


def _left_operand(source: bytes, op: int, floor: int) -> bytes:
    """The operand left of the operator at `op` (balanced parentheses), not before `floor`.

    `(threadIdx.x + off) / 32` -> `(threadIdx.x + off)`; `1.0f / 32` -> `1.0f`: only the operand
    decides whether this is lane/warp math, not whatever else is on the line.
    """
    depth = 0
    i = op - 1
    while i >= floor:
        c = source[i : i + 1]
        if c in b")]":
            depth += 1
        elif c in b"([":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and c in b"=,;{}?:<>!&|+-":
            break
        i -= 1
    return source[i + 1 : op]


_FULL_MASK = lazy(rb"(__\w+_sync|__syncwarp)\s*\(\s*(0x[fF]{8}[uU]?|~0[uU]?|-1|0xFFFFFFFF[uU]?)\b")
# `unsigned long` is 64-bit on Linux (LP64), so it is not in the list.
_BALLOT_32 = lazy(rb"\b(?:unsigned(?:\s+int)?|int|uint32_t|uint|int32_t)\s+(\w+)\s*=\s*\Z")
_BALLOT_CALL = lazy(rb"(__ballot_sync|__ballot|__activemask)\s*\(")

# `#define FULL_MASK 0xffffffff`, `const unsigned kFullMask = 0xffffffffu;`
_MASK_VALUE = lazy(rb"(?:0x[fF]{8}|~0)[uU]?\b")
_MASK_NAME = lazy(rb"\b(\w*(?:MASK|[Mm]ask)\w*)(?:[ \t]+|\s*=\s*|\s*\{\s*)\Z")


def _mask_name(source: bytes, m: re.Match[bytes]) -> str | None:
    """`FULL_MASK` in `#define FULL_MASK 0xffffffff` / `unsigned mask = 0xffffffff`, else None."""
    named = _MASK_NAME.search(source, max(0, m.start() - 60), m.start())
    return named.group(1).decode("ascii", "replace") if named else None


# Only files that use warp vote/shuffle intrinsics have lane masks (not CRC or bit-field masks).
# `\b(?:__shfl\w*|...)`, the boundary checked behind the literal as above
_WARP_OP = lazy(rb"__(?<!\w__)(?:shfl\w*|ballot\w*|activemask|any\w*|all\w*|syncwarp|match\w+)\s*\(")


def warp_masks(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_FULL_MASK):
        msg = f"32-bit full mask passed to `{match_text(m, 1)}`: AMD wavefronts have 64 lanes (64-bit masks)"
        result.diagnostics.append(ctx.diag("HIP202", m.start(2), m.end(2), msg))
    src = ctx.source
    for m in (
        scan.code(_MASK_VALUE, keep=lambda m: _mask_name(src, m) is not None) if _WARP_OP.search(src) else ()
    ):
        line_start, _ = line_bounds(src, m.start())
        if not scan.device.contains(m.start()) and not DEFINE_LINE.match(ctx.source, line_start):
            continue  # a host variable named *mask* is not a lane mask
        if _used_only_where_dead(scan, m):
            continue  # `unsigned mask = 0xffffffff` passed on only under `#ifndef USE_ROCM`
        msg = (
            f"`{_mask_name(src, m)}` is a 32-bit full lane mask: AMD wavefronts have 64 lanes (64-bit masks)"
        )
        result.diagnostics.append(ctx.diag("HIP202", m.start(), m.end(), msg))
    for m in scan.code(
        _BALLOT_CALL, keep=lambda m: _BALLOT_32.search(src, max(0, m.start() - 60), m.start()) is not None
    ):
        var = _BALLOT_32.search(src, max(0, m.start() - 60), m.start())
        assert var is not None
        msg = (
            f"`{match_text(m, 1)}` result stored in 32-bit `{match_text(var, 1)}`: "
            "the lane mask is 64-bit on AMD"
        )
        result.diagnostics.append(ctx.diag("HIP202", var.start(1), var.end(1), msg))
    return result


def _used_only_where_dead(scan: Scan, m: re.Match[bytes]) -> bool:
    """The mask variable/parameter at m is read only in branches hipcc never compiles."""
    span = scan.device.span_at(m.start())
    name = _mask_name(scan.ctx.source, m)
    if span is None or name is None:
        return False
    src = scan.ctx.source
    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    uses = [u.start() for u in word.finditer(src, m.end(), span[1])]
    return bool(uses) and all(scan.is_dead(u) for u in uses)


_SYNC_INTRINSIC = lazy(words_at_boundary(SYNC_WARP_INTRINSICS) + rb"\b(?=\s*\()")


def sync_intrinsics(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    names = ctx.tables.names
    for m in scan.code(_SYNC_INTRINSIC):
        entry = names.get(m.group())
        if entry is not None and entry.hip is None:
            continue  # HIP101 already reports it
        target = ctx.options.hip_version
        if target and compare_versions(target, "6.2") >= 0:
            msg = (
                f"`{match_text(m)}`: HIP {target} provides it only with -DHIP_ENABLE_WARP_SYNC_BUILTINS "
                "and a 64-bit mask"
            )
        else:
            msg = (
                f"`{match_text(m)}` does not exist before HIP 6.2 "
                f"(target {target or 'unset'}; Debian ships 5.2)"
            )
        result.diagnostics.append(ctx.diag("HIP203", m.start(), m.end(), msg))
    return result


# ROCm 7.0 made warpSize a device object whose value comes from the hardware (it converts to int at run
# time): a constant expression cannot use it. Checked with ROCm 7.2's hipcc (`constexpr int W = warpSize`
# fails; 6.4's warpSize is constexpr). CUDA's warpSize is no constant either, so this is HIP code (a
# mixed code base, a HIP-platform branch) that the translation leaves as it is.
_WARP_SIZE_USE = lazy(rb"warpSize(?<![\w$.>]warpSize)(?![\w$])")
WARP_SIZE_CONSTANT_SINCE = "7.0"  # ROCm 7.0 release notes
WARP_SIZE_CONSTANT_CHECKED = "7.2"  # the first release whose hipcc rejected it here
_CONSTANT_PARENTS = {
    "array_declarator": "an array bound",
    "template_argument_list": "a template argument",
    "static_assert_declaration": "a static_assert",
    "case_statement": "a case label",
    "enumerator": "an enumerator",
    "bitfield_clause": "a bit-field width",
}
_STOP = frozenset({"compound_statement", "expression_statement", "function_definition", "translation_unit"})


def _constant_context(ctx: Context, start: int, end: int) -> str | None:
    """Where a warpSize use must be a constant expression: an array bound, a template argument, a
    constexpr initializer...; None for run-time uses."""
    node = ctx.root.descendant_for_byte_range(start, end)
    while node is not None and node.type not in _STOP:
        if node.type in _CONSTANT_PARENTS:
            return _CONSTANT_PARENTS[node.type]
        if node.type == "init_declarator" and node.parent is not None and node.parent.type == "declaration":
            head = ctx.source[node.parent.start_byte : node.start_byte]
            return "a constexpr initializer" if _CONSTEXPR.search(head) else None
        node = node.parent
    return None


def warp_size_as_constant(ctx: Context, scan: Scan) -> RuleResult:
    """HIP218: warpSize where a constant expression is needed, on ROCm 7 targets."""
    result = RuleResult()
    target = ctx.options.hip_version
    if not target or compare_versions(target, WARP_SIZE_CONSTANT_SINCE) < 0:
        return result
    checked = compare_versions(target, WARP_SIZE_CONSTANT_CHECKED) >= 0
    # why not scan.code: HIP-platform branches (protected from edits) are HIP code hipcc compiles
    for m in _WARP_SIZE_USE.finditer(ctx.source):
        if ctx.classify(m.start(), m.end()) in (Where.COMMENT, Where.STRING) or scan.is_dead(m.start()):
            continue
        where = _constant_context(ctx, m.start(), m.end())
        if where is None:
            continue
        message = (
            f"`warpSize` in {where}: from ROCm 7.0 it is a run-time value, not a constant expression"
            + ("" if checked else f" (release notes; checked with ROCm {WARP_SIZE_CONSTANT_CHECKED})")
        )
        diagnostic = ctx.diag("HIP218", m.start(), m.end(), message)
        if not checked:  # an error is a promise: made only where a real hipcc broke
            diagnostic = diagnostic._replace(severity=Severity.WARNING)
        result.diagnostics.append(diagnostic)
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=(
        (40, warp_size_literals, (b"__global__", b"__device__")),
        (50, warp_size_constants, (b"ARP", b"arp")),
        (60, warp_size_as_constant, (b"warpSize",)),
        (70, warp_masks, (b"__shfl", b"__ballot", b"__activemask", b"_sync", b"__any", b"__all", b"__match")),
        (80, sync_intrinsics, (b"_sync", b"__activemask", b"__syncwarp")),
    ),
    texts=(
        Rule(
            "HIP201",
            "warp-size-literal",
            Severity.WARNING,
            "Literal 32 used as the warp size",
            "Use `warpSize` in run-time arithmetic (from ROCm 7.0 it is no constant expression); where a "
            "constant is needed, the wavefront size of the build's GPUs: 64 on CDNA (gfx9), 32 on RDNA.",
            "Code that hard-codes 32 lanes per warp (lane = tid % 32, warp = tid / 32, shuffle width 32, "
            "reductions starting at offset 16, per-warp arrays of 32) computes wrong indices or skips half "
            "the lanes on wave64 hardware (gfx9/CDNA: MI100, MI200, MI300).",
        ),
        Rule(
            "HIP202",
            "warp-mask-32bit",
            Severity.WARNING,
            "32-bit lane mask: AMD wavefront masks are 64-bit",
            "Store ballot/activemask results in uint64_t (or unsigned long long) and build masks from "
            "warpSize.",
            "__ballot/__activemask return 64-bit masks on wave64 GPUs; storing them in 32-bit integers or "
            "passing 0xffffffff as a full mask silently drops lanes 32-63.",
        ),
        Rule(
            "HIP203",
            "sync-warp-intrinsic",
            Severity.WARNING,
            "Warp intrinsic with explicit mask needs HIP >= 6.2",
            "With older HIP use the mask-free forms (__shfl_down, __ballot, __any, __all) when all lanes "
            "participate, or raise --hip-version.",
            "The *_sync warp intrinsics (__shfl_sync, __ballot_sync, __syncwarp, __activemask, ...) exist "
            "in HIP only since 6.2 (and require 64-bit masks). hipify-py adapts the calls it can structure "
            "to the target (mappings/version-adaptations.yaml: mask-free forms before 6.2, 64-bit masks and "
            "HIP_ENABLE_WARP_SYNC_BUILTINS from 6.2); this finding is left only where it could not.",
        ),
        Rule(
            "HIP218",
            "warp-size-not-constant",
            Severity.ERROR,
            "warpSize used as a constant expression (ROCm 7)",
            "Use a constant of your own for the wavefront size the build targets, e.g. `#if "
            "defined(__GFX9__) ... 64 #else 32 #endif` in device code (CDNA runs 64 lanes, RDNA 32); keep "
            "warpSize for run-time arithmetic.",
            "ROCm 7.0 turned warpSize from a constexpr int into a device object read from the hardware (one "
            "binary may run on wave32 and wave64 GPUs), so an array bound, a template argument, a "
            "static_assert, a case label or a constexpr initializer that uses it no longer compiles "
            "(checked with ROCm 7.2's hipcc; 6.4 accepts it). CUDA's warpSize is no constant either, so "
            "such code is HIP code, which the translation leaves as it is. Reported for targets from 7.0: "
            "an error from 7.2, where it was checked, a warning for 7.0 and 7.1.",
        ),
    ),
    fixtures=(
        "detectors/warp_*",
        "detectors/sync_intrinsics*",
    ),
)
