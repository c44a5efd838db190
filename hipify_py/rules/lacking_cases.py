"""Case labels that name a CUDA value HIP lacks (HIP158): commented out.

Real code turns library statuses into text with a switch that lists every value of the enum:
`case CUSOLVER_STATUS_INVALID_LICENSE: return "...";`. The switch is over the HIP type once translated,
and HIP has no such value, so the label alone stopped the build (HIP101, in a header every TU includes:
ABACUS). HIP never produces a value it does not define, so the label can go: commenting out only the
label (not the code after it) changes nothing for the other values, since a label is no more than a
jump target; code that only that label reached becomes unreachable, which C++ accepts.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context, Where
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.collision_tokens import skipped
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_CASE = lazy(rb"\bcase\s+([A-Za-z_]\w*)\s*:(?!:)")
_SETTLES = frozenset({"HIP101"})


def comment_out_lacking_cases(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"case" not in ctx.source:  # why first: a C-speed test spares most files the name set
        return result
    lacking = ctx.lacking_names
    if not lacking:
        return result
    for m in _CASE.finditer(ctx.source):
        name = m.group(1)
        if name not in lacking or ctx.classify(m.start(1), m.end(1)) != Where.CODE:
            continue
        case = ctx.root.descendant_for_byte_range(m.start(), m.start() + 4)
        if case is not None and case.type == "case":
            case = case.parent
        if case is None or case.type != "case_statement" or case.has_error or skipped(ctx, case):
            continue
        value = case.child_by_field_name("value")
        if value is None or (value.start_byte, value.end_byte) != m.span(1):
            continue
        start, end = m.start(), m.end()
        result.edits += [Edit(start, start, b"/* hipify-py: not in HIP: "), Edit(end, end, b" */")]
        label = name.decode()
        message = f"`case {label}:` names a CUDA value HIP does not have (and never returns): commented out"
        result.diagnostics.append(ctx.diag("HIP158", start, end, message))
        result.settled.append((start, end, _SETTLES))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={28: comment_out_lacking_cases},
    texts=(
        Rule(
            "HIP158",
            "lacking-case-label",
            Severity.INFO,
            "A case label naming a CUDA value HIP lacks is commented out",
            "Nothing to do, unless the switch's value can be that number by other means (computed, read "
            "from a file): then give the case its own test.",
            "A switch that turns statuses into text lists every value of a CUDA enum; HIP's counterpart "
            "enum lacks some (CUSOLVER_STATUS_INVALID_LICENSE, CUFFT_LICENSE_ERROR), and the label alone "
            "stopped the build. HIP never returns a value it does not define, so only the label is "
            "commented out: the other values run what they ran, and the code that only this label reached "
            "is left in place, unreachable.",
        ),
    ),
    fixtures=("identifiers/hip64/lacking_case_labels",),
)
