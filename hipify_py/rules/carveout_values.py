"""CUDA's named shared-memory carveout preferences become the percentages they are (HIP165).

QUDA: `cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
(int)cudaSharedmemCarveoutMaxShared)`. HIP has the attribute (hipFuncAttributePreferredSharedMemoryCarveout,
a percentage) but no names for its values, so the name stayed with HIP101 and the build broke there.
The enumerators are the numbers CUDA gives them (Default -1, MaxShared 100, MaxL1 0; the driver's
CU_SHAREDMEM_CARVEOUT_* alike) and their enum types are int: data/detector_data.py CARVEOUT_VALUES.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import CARVEOUT_VALUES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# not after `enum` (the type's own declaration or an elaborated `enum cudaSharedCarveout`, left as written)
_NAME = lazy(rb"(?<![\w$.>:])(?<!enum )(" + b"|".join(CARVEOUT_VALUES) + rb")\b")
_SETTLES = frozenset({"HIP101"})


def carveout_values(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"arveout" not in ctx.source and b"ARVEOUT" not in ctx.source:
        return result
    for m, where in ctx.code_matches(_NAME):
        if where not in REWRITABLE or any(a <= m.start() < b for a, b in ctx.branches.dead):
            continue
        value = CARVEOUT_VALUES[m.group(1)]
        result.edits.append(Edit(m.start(), m.end(), value, covers=True))
        result.settled.append((m.start(), m.end(), _SETTLES))
        what = "the type of the carveout percentages" if value == b"int" else "a carveout percentage"
        message = f"`{m.group(1).decode()}` is {what} HIP has no name for: {value.decode()}"
        result.diagnostics.append(ctx.diag("HIP165", m.start(), m.end(), message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={34: carveout_values},
    texts=(
        Rule(
            "HIP165",
            "carveout-value",
            Severity.INFO,
            "A named shared-memory carveout preference: the percentage it is",
            "Nothing to do; HIP takes the same percentage for the attribute.",
            "cudaSharedmemCarveoutDefault (-1), cudaSharedmemCarveoutMaxShared (100) and "
            "cudaSharedmemCarveoutMaxL1 (0), and the driver's CU_SHAREDMEM_CARVEOUT_*, are the percentages "
            "that cudaFuncAttributePreferredSharedMemoryCarveout takes; HIP has the attribute "
            "(hipFuncAttributePreferredSharedMemoryCarveout) but no names for the values, so they are "
            "written as numbers and their enum types as int.",
        ),
    ),
    fixtures=("calls/carveout*",),
)
