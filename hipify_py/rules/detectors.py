"""Pitfall detectors: rules that only report (no edits).

Each detector finds candidates with one compiled pattern over the source (C speed) and consults the
tree only around the hits, so a file without CUDA pitfalls costs a few regex scans.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator
from functools import cached_property

from hipify_py.context import Context, Where
from hipify_py.mappings import compare_versions
from hipify_py.parser import Node
from hipify_py.rules import RuleFn, RuleResult
from hipify_py.rules.detector_data import (
    ABSENT_CG_FEATURES,
    EXTRA_CUDA_FAMILIES,
    HIP_DEVICE_PROP_FIELDS,
    HIP_PLATFORM_MACRO,
    LIBRARIES_WITHOUT_HIP,
    LIBRARY_HEADERS,
    LIBRARY_VERSION_MACROS,
    PROP_RENAMES,
    PTX_ONLY_INTRINSICS,
    SYNC_WARP_INTRINSICS,
    TYPE_SIZES,
    USER_HELPER_NAME,
)
from hipify_py.rules.pp_branches import Branches
from hipify_py.tables import Tables

LDS_LIMIT = 64 * 1024  # bytes of LDS (shared memory) per workgroup on AMD GPUs


class DeviceSpans:
    """Byte ranges of __global__/__device__ function bodies, found from the qualifier tokens."""

    _QUALIFIER = re.compile(rb"__(?:global|device)__\b")  # literal prefix: a fast scan

    def __init__(self, ctx: Context) -> None:
        spans: set[tuple[int, int]] = set()
        for m in self._QUALIFIER.finditer(ctx.source):
            node = ctx.root.descendant_for_byte_range(m.start(), m.end())
            while node is not None and node.type not in ("function_definition", "translation_unit"):
                node = node.parent
            if node is not None and any(c.type in ("__global__", "__device__") for c in node.children):
                spans.add((node.start_byte, node.end_byte))
        self.spans = sorted(spans)
        self.kernels = {s for s in self.spans if b"__global__" in ctx.source[s[0] : s[1]][:200]}

    def span_at(self, offset: int) -> tuple[int, int] | None:
        i = bisect.bisect_right(self.spans, (offset, 1 << 62)) - 1
        return self.spans[i] if i >= 0 and self.spans[i][0] <= offset < self.spans[i][1] else None

    def contains(self, offset: int) -> bool:
        return self.span_at(offset) is not None

    def span_text(self, source: bytes, offset: int) -> bytes | None:
        span = self.span_at(offset)
        return None if span is None else source[span[0] : span[1]]

    def host_too(self, source: bytes, offset: int) -> bool:
        """The device function around offset is also __host__ (host-only paths are often guarded)."""
        span = self.span_at(offset)
        if span is None:
            return False
        body = source.find(b"{", span[0], span[1])
        return b"__host__" in source[span[0] : body if body != -1 else span[1]]


# Macros that only hip-clang/ROCm builds define (a platform test, unlike HIP_VERSION).
_HIP_GUARD_TOKEN = re.compile(
    rb"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_AMDGPU__|USE_ROCM|__HIPCC__|__HIP__|"
    rb"__HIP_DEVICE_COMPILE__)\b"
)


_NOT_CODE = (Where.COMMENT, Where.STRING)
_NOT_PLAIN_CODE = (*_NOT_CODE, Where.MEMBER, Where.SCOPED)


class Scan:
    """Shared, lazily computed facts about one file for the detectors (lives for one call)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @cached_property
    def device(self) -> DeviceSpans:
        return DeviceSpans(self.ctx)

    @cached_property
    def branches(self) -> Branches:
        return self.ctx.branches

    @cached_property
    def cuda_only(self) -> list[tuple[int, int]]:
        """Branches hipcc never compiles, merged and sorted: `#else` of `#ifdef __HIP_PLATFORM_AMD__`,
        body of `#ifndef USE_ROCM`, `#if __CUDA_ARCH__ >= 800` (see pp_branches).

        (The HIP branches themselves are protected regions: see Context.protected.)
        """
        spans = sorted([*self._hip_guarded_else(), *self.branches.dead])
        merged: list[tuple[int, int]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        return merged

    def is_dead(self, offset: int) -> bool:
        spans = self.cuda_only
        i = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
        return i >= 0 and spans[i][0] <= offset < spans[i][1]

    def _hip_guarded_else(self) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        src = self.ctx.source
        if b"HIP" not in src and b"ROCM" not in src:
            return spans  # every guard macro contains one of these
        for m in _HIP_GUARD_TOKEN.finditer(src):
            node = self.ctx.root.descendant_for_byte_range(m.start(), m.end())
            cond = node
            while cond is not None and cond.type not in ("preproc_ifdef", "preproc_if", "preproc_elif"):
                cond = cond.parent
            head = cond and (cond.child_by_field_name("condition") or cond.child_by_field_name("name"))
            if cond is None or head is None or not head.start_byte <= m.start() < head.end_byte:
                continue
            text = src[cond.start_byte : head.end_byte]
            alternative = cond.child_by_field_name("alternative")
            negated = text.lstrip().startswith(b"#ifndef") or b"!" in text
            if negated and b"||" not in text and b"&&" not in text:
                spans.append((head.end_byte, alternative.start_byte if alternative else cond.end_byte))
            elif not negated and b"&&" not in text and alternative is not None:
                spans.append((alternative.start_byte, cond.end_byte))
        return spans

    def code(
        self,
        pattern: re.Pattern[bytes],
        keep: Callable[[re.Match[bytes]], bool] | None = None,
        device_only: bool = False,
        any_code: bool = False,
    ) -> Iterator[re.Match[bytes]]:
        """Matches in code (not comments, strings, members, user scopes) that hipcc compiles.

        `keep` and `device_only` filter before the (costlier) tree classification; `device_only`
        scans only __global__/__device__ function bodies. `any_code` keeps `ns::name`/`obj.name`.
        """
        ctx, src = self.ctx, self.ctx.source
        dead = self.cuda_only
        ranges = self.device.spans if device_only else [(0, len(src))]
        skip = _NOT_CODE if any_code else _NOT_PLAIN_CODE
        for start, end in ranges:
            for m in pattern.finditer(src, start, end):
                if keep is not None and not keep(m):
                    continue
                if ctx.is_protected(m.start()) or (dead and self.is_dead(m.start())):
                    continue
                if ctx.classify(m.start(), m.end()) not in skip:
                    yield m


def _result(*diagnostics: object) -> RuleResult:
    return RuleResult(diagnostics=[d for d in diagnostics if d is not None])  # type: ignore[misc]


def _name(m: re.Match[bytes], group: int | str = 0) -> str:
    return m.group(group).decode("ascii", "replace")


# -- HIP205 managed memory ---------------------------------------------------------------------
_MANAGED = re.compile(
    rb"(?:cuda(?:MallocManaged|MemAdvise|MemPrefetchAsync|StreamAttachMemAsync)|__managed__)\b"
)


def managed_memory(ctx: Context, scan: Scan) -> RuleResult:
    return _result(
        *(
            ctx.diag("HIP205", m.start(), m.end(), f"`{_name(m)}`: managed memory behaves differently on AMD")
            for m in scan.code(_MANAGED, keep=lambda m: not _declared_here(ctx, m))
        )
    )


_TYPE_BEFORE = re.compile(rb"\b(\w+)[ \t*&]+\Z")


def _declared_here(ctx: Context, m: re.Match[bytes]) -> bool:
    """The name at m is being declared or defined (a shim such as `cudaError_t cudaMallocManaged(...) {`,
    `typedef enum {} cutensorDataType_t;`), not used."""
    src = ctx.source
    line_start = src.rfind(b"\n", 0, m.start()) + 1
    before = _TYPE_BEFORE.search(src, line_start, m.start())
    if before is not None and before.group(1) not in _NOT_A_TYPE and src[m.end() : m.end() + 1] == b"(":
        return True
    node = ctx.root.descendant_for_byte_range(m.start(), m.end())
    return node is not None and _declares(node)


# -- HIP301-HIP304 version macros ---------------------------------------------------------------
_VERSION_MACRO = re.compile(
    rb"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__CUDACC_VER_BUILD__|"
    rb"__CUDA_ARCH__|__CUDA_ARCH_LIST__|__NVCC__|__CUDA_API_VERSION|" + LIBRARY_VERSION_MACROS + rb")\b"
)
_COMPARE_AFTER = re.compile(rb"\s*(?:<=|>=|==|!=|<|>)\s*\(?\s*\d")
_COMPARE_BEFORE = re.compile(rb"\d\s*\)?\s*(?:<=|>=|==|!=|<|>)\s*$")
# re.M: `^` must match at the line start we pass as `pos` (without it, only at offset 0).
_PREPROC_LINE = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b", re.M)


def _line_bounds(source: bytes, offset: int) -> tuple[int, int]:
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    return start, len(source) if end == -1 else end


def _logical_line(source: bytes, offset: int) -> tuple[int, int]:
    """Bounds of the (backslash-continued) logical line that holds offset."""
    start, end = _line_bounds(source, offset)
    while start >= 2 and source[start - 2 : start - 1] == b"\\":
        start, _ = _line_bounds(source, start - 2)
    while end < len(source) and source[end - 1 : end] == b"\\":
        _, end = _line_bounds(source, end + 1)
    return start, end


def _compared(source: bytes, m: re.Match[bytes]) -> bool:
    before = source[max(0, m.start() - 24) : m.start()]
    return bool(_COMPARE_AFTER.match(source, m.end()) or _COMPARE_BEFORE.search(before))


def _version_finding(name: str, compared: bool, amd: int | None) -> tuple[str, str]:
    """(rule, message) for one version-macro use in a condition or comparison; `amd` is the value of
    the whole #if condition under hipcc when known."""
    effect = {
        None: "",
        0: "so the condition is false on ROCm and the code it guards is dropped",
    }.get(amd, "so the condition is true on ROCm (unlike on current NVIDIA GPUs) and its code is compiled")
    if name == "__NVCC__":
        return (
            "HIP303",
            f"`__NVCC__` is never defined by hipcc, {effect or 'so this guard takes the non-NVCC branch'}",
        )
    if name.startswith("__CUDA_ARCH"):
        what = "compared with an NVIDIA compute capability" if compared else "tested"
        rest = effect or "device passes set __HIP_DEVICE_COMPILE__ instead"
        return "HIP302", f"`{name}` {what}: not defined by hipcc, {rest}"
    what = "compared with a CUDA version number" if compared else "tested"
    return (
        "HIP301",
        f"`{name}` {what}: undefined under hipcc, {effect or 'so this condition silently changes on ROCm'}",
    )


def version_macros(ctx: Context, scan: Scan) -> RuleResult:
    """One finding per rule and logical line; conditions that already test a HIP macro are fine."""
    result = RuleResult()
    src = ctx.source
    found: dict[tuple[int, str], tuple[int, re.Match[bytes], str]] = {}
    for m in scan.code(_VERSION_MACRO):
        line_start, line_end = _logical_line(src, m.start())
        condition = bool(_PREPROC_LINE.match(src, line_start))
        compared = _compared(src, m)
        if not (condition or compared or m.group() == b"__NVCC__"):
            continue  # e.g. printf("%d", CUDART_VERSION): harmless
        if HIP_PLATFORM_MACRO.search(src, line_start, line_end):
            continue  # `... || defined(__HIP_PLATFORM_AMD__)`: the user already handled ROCm
        amd = scan.branches.amd.get(line_start) if condition else None
        if condition and (scan.branches.harmless(line_start) or scan.branches.only_pragmas(src, line_start)):
            continue  # ROCm takes the branch current NVIDIA GPUs take: `defined(__CUDA_ARCH__) && ... < 600`
        rule, message = _version_finding(_name(m), compared, amd)
        key = (line_start, rule)
        rank = 1 if compared else 0
        if key not in found or rank > found[key][0]:
            found[key] = (rank, m, message)
    for key, (_, m, message) in found.items():
        result.diagnostics.append(ctx.diag(key[1], m.start(), m.end(), message))
    return result


_GET_VERSION = re.compile(rb"(cuda(?:Runtime|Driver)GetVersion)\s*\(\s*&\s*(\w+)\s*\)")


def runtime_version_compare(ctx: Context, scan: Scan) -> RuleResult:
    """cudaRuntimeGetVersion(&v) ... v >= 11000: HIP reports its own version numbering."""
    result = RuleResult()
    variables: dict[bytes, str] = {}
    for m in scan.code(_GET_VERSION):
        variables.setdefault(m.group(2), _name(m, 1))
    if not variables:
        return result
    src = ctx.source
    uses = re.compile(rb"(?:" + b"|".join(re.escape(v) for v in variables) + rb")\b")

    def compared(m: re.Match[bytes]) -> bool:  # a plain variable (not obj.v / p->v) next to a number
        before = src[m.start() - 1 : m.start()]
        return _word_start(src, m.start()) and before not in (b".", b">") and _compared(src, m)

    for m in scan.code(uses, keep=compared):
        var = m.group()
        fn = variables[var]
        msg = (
            f"result of {fn} (`{var.decode()}`) compared with a number: HIP versions are numbered differently"
        )
        result.diagnostics.append(ctx.diag("HIP304", m.start(), m.end(), msg))
    return result


# -- HIP201-HIP203 warp size ---------------------------------------------------------------------
_WARP_ARITH = re.compile(rb"(?:%|/(?![/*=])|\*)\s*32[uU]?\b(?!\s*\.)|&\s*(?:31|0x1[fF])[uU]?\b|>>\s*5\b")
# Case-sensitive on purpose: `lane`/`Lane` but not `plane`, `warp` inside `nwarps`/`numWarps`.
_THREAD_WORDS = re.compile(rb"threadIdx|blockDim|\blane|Lane|[Ww]arp|\btid\b|\bwid\b")
_LANE_WORDS = re.compile(rb"\blane|Lane|[Ww]arp")
# The patterns below start with their literal and check the word boundary after it (`__shfl(?<!\w__shfl)`
# == `\b__shfl`): only a pattern that starts with a literal gets the regex engine's fast prefix search.
_SHFL_WIDTH = re.compile(
    rb"__shfl(?<!\w__shfl)(?:_up|_down|_xor)?(?:_sync)?\s*\((?:[^()]|\([^()]*\))*?,\s*32\s*\)",
)
_SHARED_32 = re.compile(rb"__shared__(?<!\w__shared__)\b[^;{}()=]*?\b(\w+)\s*\[\s*32\s*\]\s*;")
_HALVING_LOOP = re.compile(
    rb"for(?<!\wfor)\s*\(\s*(?:(?:unsigned|int|auto|const)\s+)*\w+\s*=\s*16\s*;[^;]*;\s*\w+\s*(?:/=\s*2|>>=\s*1)\s*\)"
)


# `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;`, `static const unsigned warp_size{32};`
_WARP_SIZE_NAME = re.compile(
    rb"(?:WARP|[Ww]arp)_?(?:SIZE|[Ss]ize)\b(?:[ \t]+|\s*=\s*|\s*\{\s*)32[uU]?\b(?!\s*[.*/+-])"
)


def warp_size_constants(ctx: Context, scan: Scan) -> RuleResult:
    src = ctx.source
    result = RuleResult()
    for m in scan.code(_WARP_SIZE_NAME):
        start = m.start()
        while start > 0 and (src[start - 1 : start].isalnum() or src[start - 1] == 0x5F):
            start -= 1
        name = re.match(rb"\w+", src[start : m.end()])
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
        ls, _ = _line_bounds(src, m.start())
        if _THREAD_WORDS.search(_left_operand(src, m.start(), ls)):
            add(
                m.start(),
                m.end(),
                f"`{_name(m).strip()}` in lane/warp index math assumes a warp of 32 threads",
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


_FULL_MASK = re.compile(rb"(__\w+_sync|__syncwarp)\s*\(\s*(0x[fF]{8}[uU]?|~0[uU]?|-1|0xFFFFFFFF[uU]?)\b")
# `unsigned long` is 64-bit on Linux (LP64), so it is not in the list.
_BALLOT_32 = re.compile(rb"\b(?:unsigned(?:\s+int)?|int|uint32_t|uint|int32_t)\s+(\w+)\s*=\s*\Z")
_BALLOT_CALL = re.compile(rb"(__ballot_sync|__ballot|__activemask)\s*\(")

# `#define FULL_MASK 0xffffffff`, `const unsigned kFullMask = 0xffffffffu;`
_MASK_VALUE = re.compile(rb"(?:0x[fF]{8}|~0)[uU]?\b")
_MASK_NAME = re.compile(rb"\b(\w*(?:MASK|[Mm]ask)\w*)(?:[ \t]+|\s*=\s*|\s*\{\s*)\Z")


def _mask_name(source: bytes, m: re.Match[bytes]) -> str | None:
    """`FULL_MASK` in `#define FULL_MASK 0xffffffff` / `unsigned mask = 0xffffffff`, else None."""
    named = _MASK_NAME.search(source, max(0, m.start() - 60), m.start())
    return named.group(1).decode("ascii", "replace") if named else None


def _word_start(source: bytes, offset: int) -> bool:
    return offset == 0 or not (source[offset - 1 : offset].isalnum() or source[offset - 1] == 0x5F)


_DEFINE_LINE = re.compile(rb"[ \t]*#[ \t]*define\b")
# Only files that use warp vote/shuffle intrinsics have lane masks (not CRC or bit-field masks).
_WARP_OP = re.compile(
    rb"\b(?:__shfl\w*|__ballot\w*|__activemask|__any\w*|__all\w*|__syncwarp|__match\w+)\s*\("
)


def warp_masks(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_FULL_MASK):
        msg = f"32-bit full mask passed to `{_name(m, 1)}`: AMD wavefronts have 64 lanes (64-bit masks)"
        result.diagnostics.append(ctx.diag("HIP202", m.start(2), m.end(2), msg))
    src = ctx.source
    for m in (
        scan.code(_MASK_VALUE, keep=lambda m: _mask_name(src, m) is not None) if _WARP_OP.search(src) else ()
    ):
        line_start, _ = _line_bounds(src, m.start())
        if not scan.device.contains(m.start()) and not _DEFINE_LINE.match(ctx.source, line_start):
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
        msg = f"`{_name(m, 1)}` result stored in 32-bit `{_name(var, 1)}`: the lane mask is 64-bit on AMD"
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


_SYNC_INTRINSIC = re.compile(rb"\b(?:" + b"|".join(SYNC_WARP_INTRINSICS) + rb")\b(?=\s*\()")


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
                f"`{_name(m)}`: HIP {target} provides it only with -DHIP_ENABLE_WARP_SYNC_BUILTINS "
                "and a 64-bit mask"
            )
        else:
            msg = f"`{_name(m)}` does not exist before HIP 6.2 (target {target or 'unset'}; Debian ships 5.2)"
        result.diagnostics.append(ctx.diag("HIP203", m.start(), m.end(), msg))
    return result


# -- HIP204 inline PTX ---------------------------------------------------------------------------
_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(")
_PTX_INTRINSIC = re.compile(rb"\b(?:" + b"|".join(PTX_ONLY_INTRINSICS) + rb")\b(?=\s*\()")
_PTX_REGISTER = re.compile(rb"%%?(laneid|warpid|smid|nsmid|gridid|clock64|globaltimer|lanemask_\w+)")


_ASM_STRINGS = re.compile(rb'(?:\s*"(?:[^"\\\n]|\\(?:.|\n))*")+')
# AMDGCN mnemonics (s_nop, v_mfma_*, ds_read_*, buffer_load_*): assembly already written for AMD GPUs.
_GCN_MNEMONIC = re.compile(rb"\s*(?:[sv]_[a-z]|ds_|buffer_|global_|flat_|scratch_|llvm\.amdgcn\.)")
_CONTROL_KEYWORDS = frozenset((b"if", b"while", b"for", b"switch", b"return", b"else", b"do"))


def _asm_label(src: bytes, start: int) -> bool:
    """`register float x asm("v64");`, `int f(int) __asm("symbol");`: an asm name for a declaration,
    not an instruction."""
    i = start - 1
    while i >= 0 and src[i : i + 1].isspace():
        i -= 1
    if i < 0:
        return False
    if src[i : i + 1] == b")":  # `f(args) asm(...)` declares; `if (c) asm(...)` is a statement
        depth = 0
        while i >= 0:
            c = src[i : i + 1]
            depth += (c == b")") - (c == b"(")
            if depth == 0:
                break
            i -= 1
        i -= 1
        while i >= 0 and src[i : i + 1].isspace():
            i -= 1
    end = i + 1
    while i >= 0 and (src[i : i + 1].isalnum() or src[i] == 0x5F):
        i -= 1
    word = src[i + 1 : end]
    return bool(word) and word not in _CONTROL_KEYWORDS and not word[:1].isdigit()


def _not_ptx(src: bytes, m: re.Match[bytes]) -> bool:
    """asm that is not PTX: a declaration's asm label, an empty template (a compiler barrier, valid on
    AMD too) or AMDGCN assembly (composable_kernel)."""
    if _asm_label(src, m.start()):
        return True
    strings = _ASM_STRINGS.match(src, m.end())
    if strings is None:
        return False  # a macro or a non-literal template: cannot tell
    body = b"".join(re.findall(rb'"((?:[^"\\\n]|\\(?:.|\n))*)"', strings.group()))
    body = body.replace(b"\\\n", b"").replace(b"\\n", b" ").replace(b"\\t", b" ").strip()
    return not body or bool(_GCN_MNEMONIC.match(body))


def inline_ptx(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for m in scan.code(_ASM):
        if _not_ptx(src, m):
            continue
        close = src.find(b";", m.end())
        register = _PTX_REGISTER.search(src, m.end(), close if close != -1 else len(src))
        extra = f" (reads PTX register %{register.group(1).decode()})" if register else ""
        msg = f"inline PTX assembly{extra} cannot be compiled for AMD GPUs"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end() - 1, msg))
    for m in scan.code(_PTX_INTRINSIC):
        if m.group() in ctx.tables.names:
            continue
        msg = f"`{_name(m)}` is a PTX-only intrinsic with no HIP counterpart"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end(), msg))
    return result


# -- HIP111 texture/surface references, HIP112 dynamic parallelism -----------------------------
_TEX_REF = re.compile(rb"\b(texture|surface)\s*<")


def texture_references(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_TEX_REF):
        node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
        if node is None or node.type not in ("type_identifier", "identifier", "template_type"):
            continue
        kind = _name(m, 1)
        msg = f"{kind} reference `{kind}<...>`: the {kind} reference API was removed (CUDA 12, HIP)"
        result.diagnostics.append(ctx.diag("HIP111", m.start(1), m.end(1), msg))
    return result


_LAUNCH = re.compile(rb"<<<")
_DEVICE_SYNC = re.compile(rb"cudaDeviceSynchronize\b")


def dynamic_parallelism(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for m in scan.code(_LAUNCH, device_only=True):
        if _DEFINE_LINE.match(src, _logical_line(src, m.start())[0]):
            continue  # a launch in a macro body runs where the macro is expanded (host code, usually)
        if scan.device.contains(m.start()) and not scan.device.host_too(src, m.start()):
            msg = "kernel launch from device code (dynamic parallelism) is not supported by HIP"
            result.diagnostics.append(ctx.diag("HIP112", m.start(), m.end(), msg))
    for m in scan.code(_DEVICE_SYNC, device_only=True):
        # In __host__ __device__ functions the call is usually on a guarded host path: stay quiet.
        if scan.device.contains(m.start()) and not scan.device.host_too(src, m.start()):
            msg = "cudaDeviceSynchronize in device code (dynamic parallelism) is not supported by HIP"
            result.diagnostics.append(ctx.diag("HIP112", m.start(), m.end(), msg))
    return result


# -- HIP113/HIP114 cooperative groups ----------------------------------------------------------
_CG_ALIAS = re.compile(rb"namespace\s+(\w+)\s*=\s*(?:::)?cooperative_groups\s*;")
_THIS_GRID = re.compile(rb"this_grid\s*\(\s*\)")
_GRID_VAR = re.compile(rb"(\w+)\s*(?:=|\()\s*(?:\w+\s*::\s*)*\Z")  # text before this_grid()
_SYNC_CALL = re.compile(rb"sync\s*\(")
_SYNC_RECEIVER = re.compile(rb"(\w+|this_grid\s*\(\s*\))\s*\.\s*\Z")  # text before sync(
_SYNC_ARGUMENT = re.compile(rb"\s*(\w+)\s*\)")
_TILE_SIZE = re.compile(
    rb"\b(?:tiled_partition|thread_block_tile)\s*(?:<\s*(\d+)\s*[,>]|\((?:[^();]|\([^()]*\))*,\s*(\d+)[uU]?\s*\))"
)
# After `using namespace cooperative_groups;`: unqualified names only CG has, and reductions/scans whose
# operator is a CG functor (std::reduce & co. are qualified or take iterators and no cg functor).
_CG_UNQUALIFIED = re.compile(
    rb"\b(?:(memcpy_async|wait_prior|labeled_partition|binary_partition|this_cluster|invoke_one_broadcast|"
    rb"invoke_one|cluster_group|block_tile_memory)\b"
    rb"|(reduce|inclusive_scan|exclusive_scan)\s*\((?=[^;]*\b(?:plus|less|greater|bit_and|bit_or|bit_xor)\s*<))"
)
_CUDA_COOP_LAUNCH = re.compile(rb"cudaLaunchCooperativeKernel\b")
_COOP_LAUNCH = re.compile(rb"\b(?:cuda|hip)LaunchCooperativeKernel\w*\b")


def _grid_variables(src: bytes) -> set[bytes]:
    """Names of variables holding this_grid(): `grid_group g = cg::this_grid();` / `auto g(this_grid())`."""
    names = set()
    for m in _THIS_GRID.finditer(src):
        var = _GRID_VAR.search(src, max(0, m.start() - 80), m.start())
        if var is not None:
            names.add(var.group(1))
    return names - {b"auto", b"return"}


def _grid_sync_start(src: bytes, m: re.Match[bytes], grids: set[bytes]) -> int | None:
    """Start of `g.sync(`, `this_grid().sync(` or `sync(g)` at the `sync(` match m, else None."""
    receiver = _SYNC_RECEIVER.search(src, max(0, m.start() - 60), m.start())
    if receiver is not None:
        name = receiver.group(1)
        return receiver.start() if name in grids or name.startswith(b"this_grid") else None
    argument = _SYNC_ARGUMENT.match(src, m.end())
    if _word_start(src, m.start()) and argument is not None and argument.group(1) in grids:
        return m.start()
    return None


def cooperative_groups(ctx: Context, scan: Scan) -> RuleResult:
    src = ctx.source
    if b"cooperative_groups" not in src:
        return RuleResult()
    result = RuleResult()
    spaces = {b"cooperative_groups"} | {m.group(1) for m in _CG_ALIAS.finditer(src)}
    cg_use = re.compile(rb"(?:" + b"|".join(sorted(spaces)) + rb")\s*::\s*(\w+)")
    for m in scan.code(
        cg_use, keep=lambda m: m.group(1) in ABSENT_CG_FEATURES and _word_start(src, m.start())
    ):
        msg = f"cooperative_groups::{_name(m, 1)} does not exist in HIP's cooperative groups (HIP 5.2)"
        result.diagnostics.append(ctx.diag("HIP113", m.start(1), m.end(1), msg))
    using = re.compile(rb"using\s+namespace\s+(?:::)?(?:" + b"|".join(sorted(spaces)) + rb")\s*;")
    for m in scan.code(_CG_UNQUALIFIED) if using.search(src) else ():
        group = 1 if m.group(1) else 2
        if src[max(0, m.start() - 2) : m.start()] == b"::":
            continue  # qualified: reported above (cg::) or another namespace's (std::reduce)
        msg = f"cooperative_groups::{_name(m, group)} does not exist in HIP's cooperative groups (HIP 5.2)"
        result.diagnostics.append(ctx.diag("HIP113", m.start(group), m.end(group), msg))
    tile_lines: set[int] = set()
    tiles = b"tiled_partition" in src or b"thread_block_tile" in src
    # cg::tiled_partition is a scoped name: keep those matches (any_code)
    for m in scan.code(_TILE_SIZE, any_code=True) if tiles else ():
        group = 1 if m.group(1) else 2
        line = ctx.lines.line_col(m.start())[0]
        if line in tile_lines:
            continue  # `thread_block_tile<128> t = tiled_partition<128>(b)`: one finding
        tile_lines.add(line)
        size = int(m.group(group))
        if size > 64:
            msg = f"tile of {size} threads: HIP tiles may not exceed the wavefront (64 on CDNA, 32 on RDNA)"
            result.diagnostics.append(ctx.diag("HIP113", m.start(group), m.end(group), msg))
        elif size == 64:
            msg = "tile of 64 threads: valid only on wave64 GPUs (CDNA); RDNA GPUs have 32-lane wavefronts"
            result.diagnostics.append(ctx.diag("HIP116", m.start(group), m.end(group), msg))
    if not _COOP_LAUNCH.search(src):
        grids = _grid_variables(src)
        is_grid_sync = (lambda m: _grid_sync_start(src, m, grids) is not None) if grids else None
        for m in scan.code(_SYNC_CALL, keep=is_grid_sync, any_code=True) if b"this_grid" in src else ():
            start = _grid_sync_start(src, m, grids)
            msg = "grid-wide sync needs a cooperative launch (hipLaunchCooperativeKernel), not <<<>>>"
            result.diagnostics.append(ctx.diag("HIP114", start or m.start(), m.end(), msg))
    for m in scan.code(_CUDA_COOP_LAUNCH):
        msg = "cooperative launch: all blocks must be co-resident; check hipDeviceAttributeCooperativeLaunch"
        result.diagnostics.append(ctx.diag("HIP114", m.start(), m.end(), msg))
    return result


# -- HIP206 launch bounds, HIP207 __ldg, HIP208 LDS limit ----------------------------------------
_LAUNCH_BOUNDS = re.compile(rb"__launch_bounds__\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


# Code written for AMD GPUs by hand (composable_kernel, ROCm-only kernels): its __launch_bounds__ already
# have HIP's meaning. (`#include <hip/...>` alone is no sign: translated files have it too.)
_AMD_NATIVE = re.compile(rb'__builtin_amdgcn_|__AMDGCN_|__gfx\d|#[ \t]*include[ \t]*[<"]ck(?:_tile)?/')


def launch_bounds(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    if _AMD_NATIVE.search(ctx.source):
        return result
    for m in scan.code(_LAUNCH_BOUNDS):
        args = _split_args(m.group(1))
        if len(args) >= 2 and args[1] not in (b"1", b"1u", b"1U"):  # 1 block / 1 wave: no change
            msg = (
                f"__launch_bounds__ second argument `{args[1].decode()}`: CUDA min blocks per SM; "
                "HIP reads it as min warps per execution unit"
            )
            result.diagnostics.append(ctx.diag("HIP206", m.start(), m.end(), msg))
    return result


def _call_arguments(source: bytes, open_end: int, limit: int = 2000) -> bytes:
    """Text between the `(` ending at open_end and its matching `)` (bounded scan)."""
    depth = 1
    end = min(len(source), open_end + limit)
    for i in range(open_end, end):
        c = source[i]
        if c == 0x28:  # (
            depth += 1
        elif c == 0x29:  # )
            depth -= 1
            if depth == 0:
                return source[open_end:i]
    return b""


def _split_args(text: bytes) -> list[bytes]:
    args, depth, cur = [], 0, bytearray()
    for ch in text:
        c = bytes([ch])
        if c in b"([{<":
            depth += 1
        elif c in b")]}>":
            depth -= 1
        if c == b"," and depth == 0:
            args.append(bytes(cur).strip())
            cur.clear()
        else:
            cur += c
    if cur.strip():
        args.append(bytes(cur).strip())
    return args


_LDG = re.compile(rb"__ldg\s*\(\s*&?\s*\(?\s*(\w+)")


def ldg_non_const(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_LDG):
        declared = _declaration_text(ctx, m.start(), m.group(1))
        if declared is not None and b"const" not in declared:
            msg = f"__ldg on `{_name(m, 1)}`, which is not const: HIP's __ldg is a plain load"
            result.diagnostics.append(ctx.diag("HIP207", m.start(), m.end(), msg))
    return result


def _declaration_text(ctx: Context, offset: int, name: bytes) -> bytes | None:
    """Text of the parameter/declaration of `name` in the function around offset, if found."""
    node: Node | None = ctx.root.descendant_for_byte_range(offset, offset)
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return None
    body_start = node.child_by_field_name("body")
    head_end = body_start.start_byte if body_start is not None else node.end_byte
    pattern = re.compile(rb"([\w:<>\s*&]*?[\s*&])" + re.escape(name) + rb"\s*(?:[,)=;\[])")
    head = ctx.source[node.start_byte : head_end]
    m = pattern.search(head)
    if m is None:
        m = pattern.search(ctx.source, head_end, offset)
    return m.group(1) if m else None


_MAX_DYN_SHMEM = re.compile(rb"\b(?:cuda|hip)FuncSetAttribute\s*\(")
_SHARED_DECL = re.compile(
    rb"__shared__\s+((?:\w+\s*::\s*)*\w+(?:\s+(?:int|long|short|char))*)\s*\**\s*\w+\s*((?:\[[^\]]+\]\s*)+);"
)
_SIZEOF = re.compile(rb"\bsizeof\s*\(\s*([\w\s]+?)\s*\)")


def lds_limit(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_MAX_DYN_SHMEM) if b"MaxDynamicSharedMemorySize" in ctx.source else ():
        args = _split_args(_call_arguments(ctx.source, m.end()))
        if len(args) != 3 or not args[1].endswith(b"FuncAttributeMaxDynamicSharedMemorySize"):
            continue
        size = _evaluate(args[2])
        if size is not None and size > LDS_LIMIT:
            msg = f"requests {size} bytes of dynamic shared memory; AMD GPUs have 64 KiB of LDS per workgroup"
            result.diagnostics.append(ctx.diag("HIP208", m.start(), m.end(), msg))
    for m in scan.code(_SHARED_DECL):
        elem = TYPE_SIZES.get(b" ".join(m.group(1).split()))
        dims = [_evaluate(d) for d in re.findall(rb"\[([^\]]+)\]", m.group(2))]
        if elem is None or any(d is None for d in dims):
            continue
        total = elem
        for d in dims:
            total *= d  # type: ignore[operator]
        if total > LDS_LIMIT:
            msg = f"__shared__ array of {total} bytes exceeds the 64 KiB LDS of AMD GPUs"
            result.diagnostics.append(ctx.diag("HIP208", m.start(), m.end(), msg))
    return result


def _evaluate(expr: bytes) -> int | None:
    """Integer value of a literal arithmetic expression (with sizeof of basic types), else None."""
    if expr.strip().isdigit():
        return int(expr)
    text = _SIZEOF.sub(lambda s: str(TYPE_SIZES.get(b" ".join(s.group(1).split()), "x")).encode(), expr)
    text = re.sub(rb"(?<=\d)[uUlL]+\b", b"", text)
    try:
        tree = ast.parse(text.decode("ascii"), mode="eval")
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None
    allowed = (ast.Expression, ast.BinOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.LShift, ast.FloorDiv)
    if not all(isinstance(n, allowed) for n in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<size>", "eval"), {"__builtins__": {}})  # literals only (checked above)
    except ArithmeticError:
        return None
    return value if isinstance(value, int) else None


# -- HIP115 cudaDeviceProp fields ------------------------------------------------------------------
_PROP_VAR = re.compile(rb"cudaDeviceProp\s*[&*]?\s*(\w+)\s*[;,)=\[{]")


def device_prop_fields(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    variables = {m.group(1) for m in scan.code(_PROP_VAR)}
    if not variables:
        return result
    access = re.compile(rb"\b(" + b"|".join(re.escape(v) for v in variables) + rb")\s*(?:\.|->)\s*(\w+)")
    for m in scan.code(access):
        field_name = m.group(2)
        if field_name in HIP_DEVICE_PROP_FIELDS:
            continue
        renamed = PROP_RENAMES.get(field_name)
        hint = f"use `{renamed.decode()}`" if renamed else "query it with hipDeviceGetAttribute or drop it"
        msg = f"cudaDeviceProp::{field_name.decode()} does not exist in hipDeviceProp_t (HIP 5.2)"
        result.diagnostics.append(ctx.diag("HIP115", m.start(2), m.end(2), msg, f"{hint.capitalize()}."))
    return result


# -- HIP110 libraries without a HIP package, HIP102 unknown CUDA names ---------------------------
_LIBRARY_USE = re.compile(rb"\b(?:" + b"|".join(p for p, _, _ in LIBRARIES_WITHOUT_HIP) + rb")\w*")
_LIBRARY_HEADER = re.compile(rb"#\s*include\s*[<\"]([^>\"]+)[>\"]")


def library_usage(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    headers = b" ".join(m.group(1).lower() for m in _LIBRARY_HEADER.finditer(ctx.source))
    reported: set[str] = set()
    for m in scan.code(_LIBRARY_USE, keep=lambda m: not _declared_here(ctx, m)):
        for prefix, library, advice in LIBRARIES_WITHOUT_HIP:
            if re.match(prefix, m.group()) and library not in reported:
                reported.add(library)
                if any(needle in headers for needle in LIBRARY_HEADERS[library]):
                    break  # the include rule already reported this library at its header
                msg = f"`{_name(m)}`: {library} has no drop-in HIP counterpart ({advice})"
                result.diagnostics.append(ctx.diag("HIP110", m.start(), m.end(), msg))
                break
    return result


_CUDA_LOOKING = re.compile(
    rb"\b(?:cuda[A-Z]\w*|CU[a-z]\w*|cu(?:blas|blasLt|fft|rand|sparse|solver|solverDn|solverSp|dnn)?[A-Z][a-z]\w*"
    rb"|CU(?:DA|BLAS|FFT|RAND|SPARSE|SOLVER|DNN)?_[A-Z][A-Z0-9_]*[A-Z0-9]|nvrtc[A-Z]\w*)\b"
)
_DECLARATOR_PARENTS = frozenset(
    {
        "function_declarator",
        "init_declarator",
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "parameter_declaration",
        "declaration",
        "field_declaration",
        "enumerator",
        "type_definition",
        "struct_specifier",
        "class_specifier",
        "enum_specifier",
        "union_specifier",
        "preproc_def",
        "preproc_function_def",
        "preproc_params",
        "alias_declaration",
        "namespace_definition",
        "template_function",
    }
)


def unknown_cuda_names(ctx: Context, scan: Scan) -> RuleResult:
    tables = ctx.tables
    # why a set first: a file names each CUDA API many times, nearly all of them known; deciding per
    # distinct name (and skipping the scan when none is unknown) keeps the per-match work in C
    unknown = {
        name
        for name in set(_CUDA_LOOKING.findall(ctx.source))
        if not _known(name, tables)
        and not _VERSION_MACRO.fullmatch(name)
        and not _LIBRARY_USE.fullmatch(name)  # HIP110 reports these libraries
        and not USER_HELPER_NAME.match(name)
    }
    unknown = {n for n in unknown if _cuda_family(n, tables)} if unknown else unknown
    unknown -= _declared_names(ctx, unknown) if unknown else set()
    if not unknown:
        return RuleResult()
    src = ctx.source
    return _result(
        *(
            ctx.diag("HIP102", m.start(), m.end(), f"`{_name(m)}` looks like a CUDA API but is in no table")
            for m in scan.code(
                _CUDA_LOOKING, keep=lambda m: m.group() in unknown and not _QUALIFIER.match(src, m.end())
            )
        )
    )


def _known(name: bytes, tables: Tables) -> bool:
    if name in tables.names:  # bytes lookup first: most CUDA names in a file are renamed ones
        return True
    mappings = tables.mappings
    text = name.decode("ascii", "replace")
    return text in mappings.by_cuda or text in mappings.by_hip


_SCREAMING = re.compile(rb"([A-Z][A-Z0-9]*_[A-Z0-9]+_)[A-Z0-9_]*[A-Z0-9]")


def _cuda_family(name: bytes, tables: Tables) -> bool:
    """A SCREAMING_CASE name of 3+ words belongs to a family of real CUDA constants (CU_TENSOR_MAP_*):
    its first two words start a table name. `CUDA_NUM_THREADS`, `CUFFT_MAX_PLAN_NUM` are project macros."""
    m = _SCREAMING.fullmatch(name)
    if m is None:
        return True
    family = m.group(1)
    if family in EXTRA_CUDA_FAMILIES:
        return True
    text = family.decode("ascii")
    return any(k.startswith(text) for k in tables.mappings.by_cuda)


_QUALIFIER = re.compile(rb"\s*::(?!\s*\*)")  # `cublasGemmDispatcher::run`: a class or namespace of the user
_NOT_A_TYPE = frozenset(
    b"return case else throw goto sizeof new delete co_return co_yield do define if elif ifdef ifndef".split()
)


def _declared_names(ctx: Context, names: set[bytes]) -> set[bytes]:
    """Names this file declares or defines anywhere (also in branches hipcc skips): macros, classes,
    template parameters, variables, functions, and names used as `Name::` qualifiers."""
    src = ctx.source
    declared: set[bytes] = set()
    for m in re.finditer(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(names)) + rb")\b", src):
        name = m.group()
        if name in declared:
            continue
        node = ctx.root.descendant_for_byte_range(m.start(), m.end())
        if (node is not None and _declares(node)) or _QUALIFIER.match(src, m.end()):
            declared.add(name)
    for name in names - declared:
        esc = re.escape(name)
        lexical = re.compile(
            rb"#[ \t]*define[ \t]+" + esc + rb"\b"
            rb"|\b(?:class|struct|union|enum(?:\s+class)?)\s+" + esc + rb"\s*(?:[:{]|final\b)"
            rb"|\b(?:typename|class|namespace)\s+" + esc + rb"\s*[,>={]"
            rb"|(?:\b(\w+)|>)[\s*&]+" + esc + rb"\s*(?:=(?!=)|;|\[|\{|,|\))"
            # a function definition: `static cudaError_t MACRO cudaLaunchX(...) {` (attribute macros
            # make tree-sitter misparse these)
            rb"|(?:\b(\w+)|>)[\s*&]+" + esc + rb"\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{"
        )
        if any((d.group(1) or d.group(2)) not in _NOT_A_TYPE for d in lexical.finditer(src)):
            declared.add(name)
    return declared


def _declares(node: Node) -> bool:
    """`node` is the name being declared (`int cudaX = ...`), not a value (`int x = cudaX`)."""
    parent = node.parent
    if parent is None or parent.type not in _DECLARATOR_PARENTS:
        return False
    if parent.type in ("declaration", "parameter_declaration", "field_declaration", "init_declarator"):
        return parent.child_by_field_name("declarator") == node
    value = parent.child_by_field_name("value")
    return value is None or value != node


# (detector, needles): a detector runs only on files containing one of its needles (`bytes in` is
# ~50x faster than a regex scan that starts with \b or an alternation); () means always.
_STEPS: tuple[tuple[Callable[[Context, Scan], RuleResult], tuple[bytes, ...]], ...] = (
    (managed_memory, (b"anaged", b"cudaMemAdvise", b"cudaMemPrefetch", b"AttachMem")),
    (version_macros, (b"_VERSION", b"__CUDA", b"__NVCC__")),
    (runtime_version_compare, (b"GetVersion",)),
    (warp_size_literals, (b"__global__", b"__device__")),
    (warp_size_constants, (b"ARP", b"arp")),
    (warp_masks, (b"__shfl", b"__ballot", b"__activemask", b"_sync", b"__any", b"__all", b"__match")),
    (sync_intrinsics, (b"_sync", b"__activemask", b"__syncwarp")),
    (
        inline_ptx,
        (b"asm", b"__nanosleep", b"__prof_trigger", b"__pm", b"luster", b"__stwb", b"__stc", b"__stwt"),
    ),
    (texture_references, (b"texture", b"surface")),
    (dynamic_parallelism, (b"__global__", b"__device__")),
    (cooperative_groups, (b"cooperative_groups",)),
    (launch_bounds, (b"__launch_bounds__",)),
    (ldg_non_const, (b"__ldg",)),
    (lds_limit, (b"__shared__", b"FuncSetAttribute")),
    (device_prop_fields, (b"cudaDeviceProp",)),
    (library_usage, (b"nvtx", b"nvml", b"npp", b"nvjpeg", b"cuFile", b"cutensor", b"cudnn")),
    (unknown_cuda_names, ()),
)


def pitfall_detectors(ctx: Context) -> RuleResult:
    """Every detector over one file, sharing one Scan (device spans, dead branches computed once)."""
    scan = Scan(ctx)
    result = RuleResult()
    src = ctx.source
    present = {n for n in _ALL_NEEDLES if n in src}
    for step, needles in _STEPS:
        if not needles or not present.isdisjoint(needles):
            result.diagnostics.extend(step(ctx, scan).diagnostics)
    return result


_ALL_NEEDLES = frozenset(n for _, needles in _STEPS for n in needles)


DETECTORS: tuple[RuleFn, ...] = (pitfall_detectors,)
