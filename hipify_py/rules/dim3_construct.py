"""`make_uint3(...)` or `uint3{...}` where a dim3 is wanted becomes `dim3(...)` (HIP216, info).

CUDA's dim3 converts from uint3, so `dim3 grid = make_uint3(x, y, z)` and `grid = make_uint3(...)`
compile with nvcc; HIP's dim3 (every release) has only `dim3(x, y, z)`: `no viable conversion`. The same
three components make the same dim3, so the call is renamed, as is a uint3 built in place
(`operator dim3() const { return uint3{x, y, z}; }`, gunrock's launch box). The sites are the ones the
dim3 type is known for (rules/detectors/overloads.uint3_for_dim3).
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.detectors.overloads import uint3_for_dim3
from hipify_py.rules.registry import declare

_NAME = b"make_uint3"


def construct_dim3(ctx: Context) -> RuleResult:
    result = RuleResult()
    if _NAME not in ctx.identifiers and b"uint3" not in ctx.identifiers:
        return result
    for m in uint3_for_dim3(ctx, Scan(ctx)):
        group = 1 if m.group(1) else 2
        start, end = m.span(group)
        result.edits.append(Edit(start, end, b"dim3"))
        spelled = (
            "make_uint3(x, y, z) written dim3(x, y, z)"
            if group == 1
            else "uint3{x, y, z} written dim3{x, y, z}"
        )
        message = f"HIP's dim3 has no conversion from uint3: {spelled}"
        result.diagnostics.append(ctx.diag("HIP216", start, end, message))
        result.counts["call_adaptations"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={70: construct_dim3},
    texts=(
        Rule(
            "HIP216",
            "dim3-from-uint3",
            Severity.INFO,
            "make_uint3 or uint3{...} where a dim3 is wanted, written dim3",
            "Nothing to do: `dim3(x, y, z)` is the same dim3 as CUDA's `dim3(make_uint3(x, y, z))`.",
            "CUDA's dim3 has a constructor from uint3, so `dim3 grid = make_uint3(...)`, `grid = "
            "make_uint3(...)` and `k<<<make_uint3(...), ...>>>` compile with nvcc. HIP's dim3 (every "
            "release) only has `dim3(uint32_t x, uint32_t y, uint32_t z)`: `no viable conversion`. Where "
            "the value is known to become a dim3 (a dim3 variable, a launch's grid or block, the return of a "
            "function returning a dim3), the call is written `dim3(...)`, and `uint3{x, y, z}` "
            "`dim3{x, y, z}`.",
        ),
    ),
    fixtures=("overloads/dim3_from_uint3*",),
)
