"""CUB's floating-point limits of a bf16: hipCUB's FpLimits has no `__hip_bfloat16` (through a helper).

CUB specialises `cub::FpLimits<T>` (`Max()`, `Lowest()`) for `__nv_bfloat16`; hipCUB (ROCm 6.4, 7.2)
for float, double, `__half` and the old `hip_bfloat16` struct only, not `__hip_bfloat16`, what
`__nv_bfloat16` becomes. FasterTransformer's top-k kernels, and CTranslate2's copy of them,
(`T u = cub::FpLimits<T>::Lowest();` with T a bf16) then fail: "implicit instantiation of undefined
template 'hipcub::FpLimits<__hip_bfloat16>'". A specialisation of hipCUB's template written into the
file would clash with a hipCUB that adds one, so those uses name a helper instead,
`hipcub::hipify_py_FpLimits<T>`: hipCUB's own `FpLimits<T>` (and the project's specialisations of it),
plus `__hip_bfloat16` on AMD (mappings/hand-kept/shims.yaml; rules/shims.py inserts it, HIP134).

Only a use whose argument is not a type hipCUB covers (a template parameter, a bf16) is renamed, and not
a specialisation the file declares (`template <> struct cub::FpLimits<c10::BFloat16>`), which the helper
inherits.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.shim_table import shims_for
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

HELPER = "hipify_py_FpLimits"
# `cub::FpLimits<`, `::hipcub::FpLimits <`, or bare `FpLimits<` in a file that opens CUB's namespace
_USE = lazy(rb"(?<![\w$])((?:(?:::\s*)?(?:hip)?cub\s*::\s*)?)(FpLimits)\s*<")
_OPENS_CUB = lazy(rb"\busing\s+namespace\s+(?:::\s*)?(?:hip)?cub\s*;|\bnamespace\s+(?:hip)?cub\s*\{")
_DECLARES = lazy(rb"(?:\b(?:struct|class)|\bfriend)\s*$")  # `template <> struct cub::FpLimits<X>`
# what hipCUB specialises FpLimits for (util_type.hpp of ROCm 6.4 and 7.2), as code spells it
_COVERED = frozenset({b"float", b"double", b"__half", b"half", b"hip_bfloat16"})


def fp_limits_uses(ctx: Context) -> list[tuple[int, int]]:
    """Spans of the `FpLimits` names to rename: a use of CUB's template with an argument hipCUB lacks."""
    if b"FpLimits" not in ctx.source or HELPER not in shims_for(ctx.target or ""):
        return []
    bare_ok = _OPENS_CUB.search(ctx.source) is not None
    found = []
    for m, where in ctx.code_matches(_USE):
        if where not in REWRITABLE or ctx.is_protected(m.start(2)):
            continue
        if not m.group(1) and not bare_ok:
            continue  # a project's own FpLimits template
        if any(a <= m.start() < b for a, b in ctx.branches.dead):
            continue
        if _DECLARES.search(ctx.source, max(0, m.start() - 16), m.start()):
            continue
        argument = _argument(ctx.source, m.end())
        if argument is None or argument in _COVERED:
            continue
        found.append(m.span(2))
    return found


def _argument(source: bytes, start: int) -> bytes | None:
    """The template argument from `start` (just after `<`) to its `>`, stripped; None if unclosed."""
    depth, i = 0, start
    while i < len(source) and i - start < 400:
        c = source[i : i + 1]
        if c == b"<":
            depth += 1
        elif c == b">":
            if depth == 0:
                return b" ".join(source[start:i].split())
            depth -= 1
        elif c in b";{}":
            return None
        i += 1
    return None


def rename_fp_limits(ctx: Context) -> RuleResult:
    result = RuleResult()
    for start, end in fp_limits_uses(ctx):
        result.edits.append(Edit(start, end, HELPER.encode()))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={37: rename_fp_limits},
    fixtures=("vendor_libs/hip72/cub_fp_limits_bf16*",),
)
