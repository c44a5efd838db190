"""A CUDA runtime error HIP never returns becomes its CUDA value as a hipError_t (HIP164).

GROMACS: `if (cu_err == cudaErrorDevicesUnavailable) return DeviceStatus::Unavailable;`. HIP has no
enumerator for it (nor for cudaErrorMisalignedAddress, cudaErrorTimeout, ...: data/detector_data.py
NEVER_RETURNED_ERRORS), so the name stayed with HIP101 and the build broke there. No HIP call reports such
an error, and no hipError_t enumerator has its value (tests/test_never_returned.py checks each release's
header), so the CUDA value keeps the code's meaning on AMD: the comparison never holds, the `case` is never
reached, a function that returns it returns an error that is not hipSuccess. A `case` label of it is
rules/lacking_cases.py's (commented out: HIP158).
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import NEVER_RETURNED_ERRORS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_NAME = lazy(rb"(?<![\w$.>:])(" + b"|".join(NEVER_RETURNED_ERRORS) + rb")\b")
_CASE_BEFORE = lazy(rb"\bcase\s*\Z")
_SETTLES = frozenset({"HIP101"})


def never_returned_errors(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"cudaError" not in ctx.source:
        return result
    for m, where in ctx.code_matches(_NAME):
        if where not in REWRITABLE or any(a <= m.start() < b for a, b in ctx.branches.dead):
            continue
        if _CASE_BEFORE.search(ctx.source, max(0, m.start() - 16), m.start()):
            continue  # a case label: rules/lacking_cases.py comments it out (HIP158), the same meaning
        name = m.group(1)
        value = NEVER_RETURNED_ERRORS[name]
        result.edits.append(Edit(m.start(), m.end(), b"((hipError_t)%d)" % value, covers=True))
        result.settled.append((m.start(), m.end(), _SETTLES))
        message = (
            f"HIP has no `{name.decode()}` and no HIP call returns it: written as its CUDA value "
            f"{value}, so a test for it never holds on AMD"
        )
        result.diagnostics.append(ctx.diag("HIP164", m.start(), m.end(), message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={33: never_returned_errors},
    texts=(
        Rule(
            "HIP164",
            "never-returned-error",
            Severity.WARNING,
            "A CUDA runtime error HIP never returns: its CUDA value, which no HIP call reports",
            "Check the code that handles it: on AMD it never runs (no HIP call reports this error).",
            "HIP has no enumerator for some CUDA runtime errors (cudaErrorDevicesUnavailable, "
            "cudaErrorMisalignedAddress, cudaErrorTimeout, ...) and never returns them. The name becomes "
            "`((hipError_t)N)` with CUDA's value N, which no hipError_t enumerator of HIP 5.2, ROCm 6.4 or "
            "7.2 has: a comparison with it is false and a `case` of it unreached on AMD, as with a CUDA "
            "driver that never reports it. Before, the undeclared name stopped the build.",
        ),
    ),
    fixtures=("calls/never_returned*",),
)
