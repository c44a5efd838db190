"""A CUDA header named by a macro that a computed include expands (HIP230).

`#define DRV_T "driver_types.h"` ... `#include DRV_T` (ATLAS FastCaloSim's gpuQ.h, which picks the
header per platform) names the header in a string, which the include rewrite never sees: the translated
file still includes the CUDA header, and the build stops there. Where the file has `#include NAME` and
`#define NAME "path"` (or `<path>`) of a CUDA header, the path is rewritten as an include's would be.
Strings elsewhere are left alone: only a macro the file includes by name is a header's name.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.data.renames import renames_for
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.includes import header_for, header_target
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_COMPUTED = lazy(rb"^[ \t]*#[ \t]*include[ \t]+([A-Za-z_]\w*)[ \t]*(?://[^\n]*|/\*.*?\*/)?[ \t]*\r?$", re.M)
_DEFINE = rb'^[ \t]*#[ \t]*define[ \t]+%s[ \t]+(?:"([^"\n]+)"|<([^>\n]+)>)[ \t]*(?://[^\n]*)?\r?$'


def include_macros(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"include" not in ctx.source:
        return result
    names = {m.group(1) for m, _ in ctx.code_matches(_COMPUTED)}
    if not names:
        return result
    for_target = renames_for(ctx.target).headers if ctx.target else {}
    alternatives = b"|".join(re.escape(n) for n in sorted(names))
    pattern = re.compile(_DEFINE % (b"(?:" + alternatives + b")"), re.M)
    for m in pattern.finditer(ctx.source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(), m.start() + 1) in (
            Where.COMMENT,
            Where.STRING,
        ):
            continue
        group = 1 if m.group(1) is not None else 2
        start, end = m.span(group)
        header = header_for(ctx, m.group(group).strip(), for_target)
        if header is None:
            continue
        target = header_target(header, ctx.options)
        path = m.group(group).decode(errors="replace")
        if target is None:
            message = f"<{path}>, which a computed include names, has no HIP counterpart"
            result.diagnostics.append(ctx.diag("HIP101", start, end, message))
            continue
        result.edits.append(Edit(start, end, target.encode()))
        message = f"`{path}` is a header a computed include names: rewritten as the include would be"
        result.diagnostics.append(ctx.diag("HIP230", start, end, message))
        result.counts["includes"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={11: include_macros},
    texts=(
        Rule(
            "HIP230",
            "computed-include-header",
            Severity.INFO,
            "A macro that a computed include expands names a CUDA header: the path was rewritten",
            "Nothing to do; check that no other file includes the macro expecting the CUDA header.",
            '`#define DRV_T "driver_types.h"` with `#include DRV_T` names the header in a string the '
            "include rewrite does not see. Where the same file includes the macro by name, the string is "
            "rewritten as the include's path would be (hip/driver_types.h); other strings are left alone.",
        ),
    ),
    fixtures=("includes/computed_include",),
)
