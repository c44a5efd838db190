"""Calls HIP has no overload for, given the argument's type (HIP215): `__shfl_xor(half2, int)`,
`atomicAdd(__half2 *, __half2)` compile with nvcc and fail with `no matching function` or `ambiguous`
under hipcc. The type is known only when the code spells it: a cast in the argument, or the declaration
of the named variable in the enclosing function (a parameter, a local) or at file scope; otherwise
nothing is said (no guess, no false alarm). Facts: detector_data.OVERLOAD_GAPS, dated by HIP release."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from hipify_py.analysis import callargs
from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import OVERLOAD_GAPS, OverloadGap
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

# the type may be several words (`(long long*)p`, `(unsigned int)x`)
_CAST = lazy(
    rb"\(\s*(?:const\s+)?(\w+(?:[ \t]+(?!const\b)\w+)*)\s*(?:const\s*)?(\*?)\s*\)"
    rb"|(?:reinterpret_cast|static_cast|const_cast)\s*<\s*(?:const\s+)?(\w+(?:[ \t]+(?!const\b)\w+)*)\s*"
    rb"(?:const\s*)?(\*?)\s*>"
)
_VALUE = lazy(rb"(\w+)(\s*\[[^\[\]]*\])?")
# `&x`, `&x[i]`, `x`, `x + i * n`, `x + i % n` (an offset of a pointer keeps its type)
_POINTER = lazy(rb"&\s*(\w+)(\s*\[[^\[\]]*\])?|(\w+)(?:\s*\+\s*[\w\s*/%+-]+)?")


def overload_gaps(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    target = ctx.options.hip_version
    if not target:
        return result  # the tables' latest HIP: no release newer than the checked ones is known to lack them
    gaps: dict[bytes, OverloadGap] = {}
    for gap in (g for g in OVERLOAD_GAPS if compare_versions(target, g.through) <= 0):
        for f in gap.functions:  # several rows of one function: the types of every row the target has
            gaps[f] = gap._replace(types=gaps[f].types | gap.types) if f in gaps else gap
    present = [f for f in gaps if f in ctx.identifiers]
    if not present:
        return result
    src = ctx.source
    pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(present) + rb")(?=\s*\()")
    for m in scan.code(pattern):
        gap = gaps[m.group(1)]
        call = callargs.from_text(src, (m.start(), m.end()))
        if call is None or len(call.args) <= gap.arg:
            continue
        found = spelled_type(ctx, call.text(src, gap.arg), m.start(), gap.pointer)
        if found is not None and found in gap.types:
            kind = f"{found.decode()} *" if gap.pointer else found.decode()
            msg = f"`{m.group(1).decode()}` has no HIP {target} overload for {kind}: {gap.what}"
            result.diagnostics.append(ctx.diag("HIP215", m.start(), m.end(), msg))
    return result


def spelled_type(ctx: Context, arg: bytes, at: int, pointer: bool) -> bytes | None:
    """The type the argument has (pointer=True: the type it points to), when the code spells it."""
    arg = arg.strip()
    cast = _CAST.match(arg)
    if cast is not None:
        name, star = (cast.group(1), cast.group(2)) if cast.group(1) else (cast.group(3), cast.group(4))
        return b" ".join(name.split()) if bool(star) == pointer else None
    if pointer:
        m = _POINTER.fullmatch(arg)
        if m is None:
            return None
        if m.group(1):  # &x or &x[i]
            return _declared(ctx, m.group(1), at, want_pointer=bool(m.group(2)), either=bool(m.group(2)))
        return _declared(ctx, m.group(3), at, want_pointer=True)
    m = _VALUE.fullmatch(arg)
    if m is None:
        return None
    return _declared(ctx, m.group(1), at, want_pointer=bool(m.group(2)), either=bool(m.group(2)))


# `T x`, `const T *const x`, `T *__restrict__ x[`: (type, `*`, name, `[`). One line: a comment's last word
# before a statement `x = ...` is no type. The name is a whole word: `int lenv;` declares no `v`.
# Why one pattern for every name, its hits filtered by name: a pattern per name was compiled per name
# and per worker (~0.2 ms each, 100 in a HeCBench run); checked identical to the per-name pattern
# (with the whole-word name) on 15,937 (file, name) pairs of HeCBench.
_DECLARATION = lazy(
    rb"\b([A-Za-z_]\w*)[ \t]*(?:const[ \t]*)?(\*?)[ \t]*(?:const[ \t]+)?"
    rb"(?:__restrict__[ \t]+|__restrict[ \t]+)?(?<![\w$])(\w+)\s*(\[)?(?=\s*[,;)=\[({])"
)


def _declared(ctx: Context, name: bytes, at: int, want_pointer: bool, either: bool = False) -> bytes | None:
    """The type of the last declaration of `name` before `at` in its function, else at file scope.
    `either`: `x[i]` is an element of a `T *x` or of a `T x[N]`."""
    start = _function_start(ctx, at)
    for lo, hi in ((start, at), (0, start)):
        d = last_declaration(ctx.source, name, lo, hi)
        if d is not None:
            is_pointer = bool(d.group(2)) or (either and bool(d.group(4)))
            if is_pointer != want_pointer:
                return None
            return _with_leading_words(ctx.source, d.start(1), d.group(1))
    return None


_INTEGER_WORDS = frozenset((b"unsigned", b"signed", b"short", b"long"))
_WORD_BEFORE = lazy(rb"([A-Za-z_]\w*)[ \t]+\Z")


def _with_leading_words(source: bytes, start: int, last: bytes) -> bytes:
    """`unsigned short int` for the `int` of `unsigned short int *p` (the pattern's type is one word)."""
    words = [last]
    while (m := _WORD_BEFORE.search(source, max(0, start - 32), start)) is not None:
        if m.group(1) not in _INTEGER_WORDS:
            break
        words.insert(0, m.group(1))
        start = m.start()
    return b" ".join(words)


@functools.lru_cache(maxsize=8)
def _declarations(source: bytes) -> dict[bytes, tuple[list[int], list[re.Match[bytes]]]]:
    """name -> (starts, matches) of the file's `_DECLARATION` hits, once per file. Why: scanned per
    call, a function with n calls cost n^2 (seconds at 400 `min`s)."""
    index: dict[bytes, tuple[list[int], list[re.Match[bytes]]]] = {}
    for d in _DECLARATION.finditer(source):
        if d.group(1) not in _NOT_TYPES:
            starts, hits = index.setdefault(d.group(3), ([], []))
            starts.append(d.start())
            hits.append(d)
    return index


def last_declaration(source: bytes, name: bytes, lo: int, hi: int) -> re.Match[bytes] | None:
    """The last declaration of `name` within [lo, hi)."""
    starts, hits = _declarations(source).get(name, ((), ()))
    k = bisect.bisect_left(starts, hi)
    while k > 0 and hits[k - 1].start() >= lo:
        if hits[k - 1].end() <= hi:
            return hits[k - 1]
        k -= 1
    return None


_NOT_TYPES = frozenset((b"return", b"const", b"sizeof", b"case", b"else", b"goto", b"typedef", b"delete"))


def _function_start(ctx: Context, at: int) -> int:
    node = ctx.root.descendant_for_byte_range(at, at + 1)
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node.start_byte if node is not None else 0


# `dim3 g = make_uint3(...)`, `g = make_uint3(...)` for a dim3 g, `dim3(u)`, `k<<<make_uint3(...), b>>>`:
# CUDA's dim3 converts from uint3, HIP's (every release: only `dim3(uint32_t x, y, z)`) does not.
# `make_uint3(...)`, or a uint3 built in place (`uint3{x, y, z}`, `uint3(...)`): the name is group 1
_MAKE_UINT3 = lazy(rb"\b(make_uint3)\s*\(|(?<![\w:.>])(uint3)\s*[({]")
_BEFORE_DIM3 = lazy(
    rb"(?:\bdim3\s+\w+\s*(?:=|\(|\{)|\bdim3\s*(?:\(|\{)|(?<![\w.>])(\w+)\s*=(?!=)|<<<[^;>]*?|"
    rb"\b(return))\s*\Z"
)
_RETURNS_DIM3 = lazy(rb"(?:^|[\s:])(?:dim3\s*[\w:~]*\s*\(|operator\s+dim3\s*\()")


def uint3_for_dim3(ctx: Context, scan: Scan) -> Iterator[re.Match[bytes]]:
    """`make_uint3(` calls and `uint3{...}` values that become a dim3 (`dim3 g = make_uint3(...)`, `g = ...`
    with g a dim3, a launch's grid or block, the return of a function returning a dim3): HIP's dim3 has
    no conversion from uint3. Group 1 or 2 of each match is the name to rewrite."""
    if b"dim3" not in ctx.identifiers and b"<<<" not in ctx.source:
        return
    src = ctx.source
    for m in scan.code(_MAKE_UINT3):
        before = _BEFORE_DIM3.search(src, max(0, m.start() - 160), m.start())
        if before is None:
            continue
        if before.group(1) and _declared(ctx, before.group(1), m.start(), want_pointer=False) != b"dim3":
            continue
        if before.group(2) and not _returns_dim3(ctx, m.start()):
            continue
        yield m


def _returns_dim3(ctx: Context, at: int) -> bool:
    """The function around `at` returns a dim3 (`dim3 grid() const`, `operator dim3() const`)."""
    node = ctx.root.descendant_for_byte_range(at, at)
    while node is not None and node.type not in ("function_definition", "lambda_expression"):
        node = node.parent
    body = node.child_by_field_name("body") if node is not None else None
    if node is None or node.type != "function_definition" or body is None:
        return False
    head = ctx.source[node.start_byte : body.start_byte]
    return _RETURNS_DIM3.search(head) is not None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((100, overload_gaps, (b"__shfl", b"atomicAdd", b"atomicMax", b"atomicMin")),),
    texts=(
        Rule(
            "HIP215",
            "missing-overload",
            Severity.ERROR,
            "HIP has no overload of this function for the argument's type",
            "Convert the argument to a type HIP's overloads take (shuffle a 16-bit float's bits as an int, "
            "accumulate in float), or raise --hip-version if a newer HIP has the overload.",
            "CUDA overloads some device functions for 16-bit floating-point types (`__shfl_xor(half2, "
            "int)`, `atomicAdd(__half2 *, __half2)`) and signed 64-bit integers (`atomicMax(long long *, "
            "long long)`, not in HIP 5.2) that HIP's headers do not declare for the target "
            "release: the call fails with `no matching function` or `ambiguous`. Reported only where the "
            "code spells the type (a cast in the argument, the declaration of the named variable in the "
            "function or at file scope), for HIP releases checked to lack the overload "
            "(detector_data.OVERLOAD_GAPS).",
        ),
    ),
    fixtures=(
        "overloads/missing_overload*",
        "overloads/atomic_minmax_signed64*",
        "overloads_hip63",
    ),
)
