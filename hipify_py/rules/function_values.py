"""A CUDA function used as a value whose HIP counterpart's calls take another argument list (HIP161).

`cudaMallocHost(&p, n)` becomes `hipHostMalloc(&p, n, hipHostMallocDefault)` (call-adaptations.yaml):
hipHostMalloc takes a flags argument and is overloaded, so where the name is not called but passed
(NWChem: `morecore(cudaMallocHost, bytes)`, a `cudaError_t (*)(void**, size_t)`) no overload matches.
There the name becomes the HIP function with CUDA's own signature (`hipMallocHost`, deprecated but declared
by every HIP release), data/detector_data.py FUNCTION_VALUES.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import FUNCTION_VALUES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_NAME = lazy(rb"(?<![\w$.>:])(" + b"|".join(FUNCTION_VALUES) + rb")\b(?!\s*\()")


def rename_function_values(ctx: Context) -> RuleResult:
    result = RuleResult()
    if not any(name in ctx.source for name in FUNCTION_VALUES):
        return result
    for m, where in ctx.code_matches(_NAME):
        if where not in REWRITABLE:
            continue
        name, hip = m.group(1), FUNCTION_VALUES[m.group(1)]
        result.edits.append(Edit(m.start(), m.end(), hip, covers=True))  # in place of the call's name
        message = (
            f"`{name.decode()}` used as a function value: its calls become another HIP function with an "
            f"argument more; `{hip.decode()}` has CUDA's signature"
        )
        result.diagnostics.append(ctx.diag("HIP161", m.start(), m.end(), message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={27: rename_function_values},
    texts=(
        Rule(
            "HIP161",
            "function-value",
            Severity.INFO,
            "A CUDA function used as a value: HIP's function with CUDA's signature",
            "Nothing to do; the HIP function named is deprecated in favour of the one the calls use.",
            "Calls of cudaMallocHost become hipHostMalloc with a flags argument, which is overloaded; a "
            "function pointer to it (passed to an allocator wrapper) needs cudaMallocHost's own signature, "
            "which HIP's hipMallocHost has.",
        ),
    ),
    fixtures=("calls/function_value*",),
)
