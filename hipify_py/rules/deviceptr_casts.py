"""A named cast to CUDA's CUdeviceptr becomes a C cast to hipDeviceptr_t (HIP162).

CUDA's CUdeviceptr is an unsigned integer, so projects convert a pointer to it with
`reinterpret_cast<CUdeviceptr>(p)`, whatever p's qualifiers (QUDA: `cuPointerGetAttributes(...,
reinterpret_cast<CUdeviceptr>(ptr))` with `const void* ptr`), and an integer with `static_cast`. On AMD
hipDeviceptr_t is `void*`: reinterpret_cast cannot drop const ("casts away qualifiers") and static_cast
takes no integer to a pointer. A C cast does what the named one did on each platform (on HIP's NVIDIA
platform hipDeviceptr_t is CUdeviceptr again): `((hipDeviceptr_t)(p))`.
"""

from __future__ import annotations

from hipify_py.analysis import callargs
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_CAST = lazy(rb"\b(reinterpret_cast|static_cast)\s*<\s*(CUdeviceptr(?:_v[12])?)\s*>\s*\(")


def c_casts(source: bytes) -> list[tuple[int, int, int]]:
    """(start, open, close) of each named cast to CUdeviceptr: its `(` and matching `)`."""
    found = []
    for m in _CAST.finditer(source):
        call = callargs.from_text(source, (m.start(), m.end() - 1))
        if call is not None:
            found.append((m.start(), call.open, call.close))
    return found


def adapt_deviceptr_casts(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"CUdeviceptr" not in ctx.source:
        return result
    for start, open_, close in c_casts(ctx.source):
        if ctx.is_protected(start) or ctx.classify(start, open_) not in REWRITABLE:
            continue
        result.edits.append(Edit(start, open_, b"((hipDeviceptr_t)", covers=True))
        # the cast's own `)` doubled, not an insertion after it: an adaptation of the argument that holds
        # the cast (`(void*)(...)`) inserts an identical `)` there, and identical edits are merged
        result.edits.append(Edit(close, close + 1, b"))"))
        kind = ctx.source[start : ctx.source.index(b"_cast", start) + 5].decode()
        message = (
            f"`{kind}<CUdeviceptr>`: CUdeviceptr is an integer, hipDeviceptr_t a `void*` on AMD; "
            "the C cast converts as the named cast did"
        )
        result.diagnostics.append(ctx.diag("HIP162", start, open_, message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={31: adapt_deviceptr_casts},
    texts=(
        Rule(
            "HIP162",
            "deviceptr-cast",
            Severity.INFO,
            "A named cast to CUdeviceptr: a C cast to hipDeviceptr_t",
            "Nothing to do; the cast converts as the named one did on CUDA.",
            "CUDA's CUdeviceptr is an unsigned integer; HIP's hipDeviceptr_t is `void*` on AMD (CUdeviceptr "
            "on HIP's NVIDIA platform). `reinterpret_cast<CUdeviceptr>(p)` of a const pointer, or "
            "`static_cast<CUdeviceptr>(n)` of an integer, does not compile for a `void*`; the C cast "
            "`((hipDeviceptr_t)(p))` converts as the named cast did on either platform.",
        ),
    ),
    fixtures=("calls/deviceptr_cast*",),
)
