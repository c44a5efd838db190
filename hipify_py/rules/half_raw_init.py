"""`__half_raw{bits}` -> `__half_raw{hipify_py_half_raw(bits)}`: the bits, not a value (HIP234).

CUDA's `__half_raw` is `struct { unsigned short x; }` and `__half2_raw` `struct { unsigned short x, y; }`,
so code builds a half from its bit pattern with braces (`__half_raw{0x3C00}`, 1.0; calm's fp8 decoding).
HIP's (5.2, 6.4, 7.2 amd_hip_fp16.h) hold a union whose first member is `_Float16 data` (and
`__half2_raw`'s a struct of two `__half_raw`), so the same braces convert the integer to a half: a
constant compiles silently to another number (`__half_raw{0x3C00}` holds 15360.0), a variable fails to
narrow. The braced elements become a helper that stores them as bits; an empty list (zero, the same bits
on both) is left alone. HIP 5.2's __half2_raw holds two unsigned shorts x and y, 6.4's and 7.2's two
__half_raw: the helper copies the two 16-bit patterns into it.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# `__half_raw{`, `__half_raw h{`, `__half_raw h = {` (not `struct __half_raw {`, a definition)
_INIT = lazy(rb"(?<![\w$])(?<!struct )(__half2?_raw)(?:[ \t]+[A-Za-z_]\w*(?:[ \t]*=)?)?[ \t]*\{")
GUARD = b"HIPIFY_PY_SHIM_half_raw"
HELPERS = rb"""// hipify-py: CUDA's __half_raw/__half2_raw braces hold bits; HIP's begin with a _Float16 value
#if !defined(HIPIFY_PY_SHIM_half_raw)
#define HIPIFY_PY_SHIM_half_raw
static __host__ __device__ inline __half_raw hipify_py_half_raw(unsigned short x) {
  __half_raw r;
  r.x = x;
  return r;
}
static __host__ __device__ inline __half2_raw hipify_py_half2_raw(unsigned short x, unsigned short y = 0) {
  __half2_raw r;
#if defined(__HIP_PLATFORM_NVIDIA__)
  r.x = x;
  r.y = y;
#else
  const unsigned short bits[2] = {x, y};
  __builtin_memcpy(&r, bits, sizeof bits);
#endif
  return r;
}
#endif
"""


def _elements(source: bytes, start: int) -> tuple[int, list[bytes]] | None:
    """The `}` closing the braced list opened at `start` and its top-level elements; None when the list
    is not plain (a nested brace: already an aggregate of parts, a designator)."""
    depth, parts, at = 0, [], start + 1
    for i in range(start + 1, min(len(source), start + 4096)):
        c = source[i]
        if c in b"([":
            depth += 1
        elif c in b")]":
            depth -= 1
        elif c == 0x7B or (c == 0x2E and depth == 0 and source[at:i].strip() == b""):  # `{`, `.x =`
            return None
        elif c == 0x7D:  # }
            if depth:
                return None
            parts.append(source[at:i])
            return i, [p.strip() for p in parts] if any(p.strip() for p in parts) else []
        elif c == 0x2C and depth == 0:
            parts.append(source[at:i])
            at = i + 1
        elif c == 0x3B:  # ;
            return None
    return None


def rewrite_half_raw_init(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"_raw" not in source:
        return result
    first = None
    for m in _INIT.finditer(source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(1), m.end(1)) not in REWRITABLE:
            continue
        brace = m.end() - 1
        found = _elements(source, brace)
        if found is None:
            continue
        close, parts = found
        two = m.group(1) == b"__half2_raw"
        if not parts or len(parts) > (2 if two else 1) or parts[0].startswith(b"hipify_py_half"):
            continue  # zero bits either way; a list it cannot be; translated already
        helper = b"hipify_py_half2_raw(" if two else b"hipify_py_half_raw("
        result.edits.append(Edit(brace + 1, brace + 1, helper))
        result.edits.append(Edit(close, close, b")"))
        name = m.group(1).decode()
        message = (
            f"`{name}` braces hold bits in CUDA; HIP's {name} begins with a _Float16 value, which the "
            "braces would convert: written through a helper that stores the bits"
        )
        result.diagnostics.append(ctx.diag("HIP234", m.start(1), m.end(1), message))
        result.counts["half_raw_init"] += 1
        first = m.start() if first is None else first
    if first is not None and GUARD not in source:
        result.requests.append(Insertion.helper_before(ctx, first, HELPERS))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={154: rewrite_half_raw_init},
    texts=(
        Rule(
            "HIP234",
            "half-raw-bits",
            Severity.INFO,
            "`__half_raw{bits}` builds the half from bits through a helper",
            "Nothing to do; to keep the file as it was, set the `x` member instead of using braces.",
            "CUDA's __half_raw is `struct { unsigned short x; }` and __half2_raw `struct { unsigned short "
            "x, y; }`, so `__half_raw{0x3C00}` is the half 1.0. HIP's (5.2, 6.4, 7.2) begin with a union "
            "whose first member is `_Float16 data`, so the same braces convert the integer: a constant "
            "compiles silently to another number (15360.0), a variable fails to narrow. The braced "
            "elements become `hipify_py_half_raw(bits)` / `hipify_py_half2_raw(x, y)`, a helper that sets "
            "the `x` members both platforms' types have. An empty list (zero bits either way) is kept.",
        ),
    ),
    fixtures=("device/half_raw_init*",),
)
