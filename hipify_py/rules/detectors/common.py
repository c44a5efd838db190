"""What the detectors share: the per-file Scan (device spans, branches hipcc skips, code-only matches)
and small text helpers. A helper used by one detector stays in that detector's module.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.pp_branches import Branches
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.util.lazyattr import cached
from hipify_py.util.lazyre import lazy


class DeviceSpans:
    """Byte ranges of __global__/__device__ function bodies, found from the qualifier tokens."""

    _QUALIFIER = lazy(rb"__(?:global|device)__\b")  # literal prefix: a fast scan

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
_HIP_GUARD_TOKEN = lazy(
    rb"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_AMDGPU__|USE_ROCM|__HIPCC__|__HIP__|"
    rb"__HIP_DEVICE_COMPILE__)\b"
)


_NOT_CODE = (Where.COMMENT, Where.STRING)
_NOT_PLAIN_CODE = (*_NOT_CODE, Where.MEMBER, Where.SCOPED)


class Scan:
    """Shared, lazily computed facts about one file for the detectors (lives for one call)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @cached
    def device(self) -> DeviceSpans:
        return DeviceSpans(self.ctx)

    @cached
    def branches(self) -> Branches:
        return self.ctx.branches

    @cached
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


def report(*diagnostics: object) -> RuleResult:
    return RuleResult(diagnostics=[d for d in diagnostics if d is not None])  # type: ignore[misc]


def match_text(m: re.Match[bytes], group: int | str = 0) -> str:
    return m.group(group).decode("ascii", "replace")


def line_bounds(source: bytes, offset: int) -> tuple[int, int]:
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    return start, len(source) if end == -1 else end


def logical_line(source: bytes, offset: int) -> tuple[int, int]:
    """Bounds of the (backslash-continued) logical line that holds offset."""
    start, end = line_bounds(source, offset)
    while start >= 2 and source[start - 2 : start - 1] == b"\\":
        start, _ = line_bounds(source, start - 2)
    while end < len(source) and source[end - 1 : end] == b"\\":
        _, end = line_bounds(source, end + 1)
    return start, end


def word_start(source: bytes, offset: int) -> bool:
    return offset == 0 or not (source[offset - 1 : offset].isalnum() or source[offset - 1] == 0x5F)


DEFINE_LINE = lazy(rb"[ \t]*#[ \t]*define\b")


def call_arguments(source: bytes, open_end: int, limit: int = 2000) -> bytes:
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


def split_args(text: bytes) -> list[bytes]:
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


TYPE_BEFORE = lazy(rb"\b(\w+)[ \t*&]+\Z")


def declared_here(ctx: Context, m: re.Match[bytes]) -> bool:
    """The name at m is being declared or defined (a shim such as `cudaError_t cudaMallocManaged(...) {`,
    `typedef enum {} cutensorDataType_t;`), not used."""
    src = ctx.source
    line_start = src.rfind(b"\n", 0, m.start()) + 1
    before = TYPE_BEFORE.search(src, line_start, m.start())
    if before is not None and before.group(1) not in NOT_A_TYPE and src[m.end() : m.end() + 1] == b"(":
        return True
    node = ctx.root.descendant_for_byte_range(m.start(), m.end())
    return node is not None and declares(node)


NOT_A_TYPE = frozenset(
    b"return case else throw goto sizeof new delete co_return co_yield do define if elif ifdef ifndef".split()
)


DECLARATOR_PARENTS = frozenset(
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


def declares(node: Node) -> bool:
    """`node` is the name being declared (`int cudaX = ...`), not a value (`int x = cudaX`)."""
    parent = node.parent
    if parent is None or parent.type not in DECLARATOR_PARENTS:
        return False
    if parent.type in ("declaration", "parameter_declaration", "field_declaration", "init_declarator"):
        return parent.child_by_field_name("declarator") == node
    value = parent.child_by_field_name("value")
    return value is None or value != node
