"""CUDA's version number taken apart in code becomes HIP's in the same encoding (HIP172).

`CUDA_VERSION` and `CUDART_VERSION` are CUDA's toolkit and runtime versions as major * 1000 + minor * 10.
Code that reports them takes them apart (`CUDA_VERSION / 1000`, `(CUDA_VERSION % 100) / 10`: OCCA's
`getVersion()`, XGBoost's `CudaVersion()`); under hipcc neither macro is defined, an undeclared
identifier. Where the value is divided or taken modulo a number, it becomes the HIP version in CUDA's
encoding, `(HIP_VERSION_MAJOR * 1000 + HIP_VERSION_MINOR * 10)`: the report names the HIP release. A
comparison with a CUDA release number (`CUDA_VERSION >= 11000` in code) is not rewritten: which branch
ROCm should take is a decision (HIP225 stays an error there).
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_VERSION = lazy(rb"(?<![\w$])(CUDA_VERSION|CUDART_VERSION)(?![\w$])")
# taken apart: `/ 1000`, `% 100`, after the macro or its parentheses
_TAKEN_APART = lazy(rb"[ \t]*\)?[ \t]*[/%][ \t]*\(?[ \t]*\d")
_DIRECTIVE = lazy(rb"[ \t]*#")
HIP_ENCODED = b"(HIP_VERSION_MAJOR * 1000 + HIP_VERSION_MINOR * 10)"
SETTLED_RULES = frozenset({"HIP225"})


def version_values(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"_VERSION" not in source:
        return result
    own = {d.group(1) for d in ctx.define_lines}
    for m in _VERSION.finditer(source):
        if m.group(1) in own or _TAKEN_APART.match(source, m.end()) is None:
            continue
        if any(a <= m.start() < b for a, b in ctx.branches.dead):
            continue  # a branch hipcc never compiles (an older toolkit's, once the version test is opened)
        if ctx.is_protected(m.start()) or ctx.classify(m.start(), m.end()) not in REWRITABLE:
            continue
        line = source.rfind(b"\n", 0, m.start()) + 1
        if _DIRECTIVE.match(source, line) and not source[line:].lstrip().startswith(b"#define"):
            continue  # an #if: the version tests' rules decide those
        result.edits.append(Edit(m.start(), m.end(), HIP_ENCODED))
        result.settled.append((m.start(), m.end(), SETTLED_RULES))
        name = m.group(1).decode()
        message = f"`{name}` taken apart: the HIP version in CUDA's encoding (major * 1000 + minor * 10)"
        result.diagnostics.append(ctx.diag("HIP172", m.start(), m.end(), message))
        result.counts["version_values"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={38: version_values},
    texts=(
        Rule(
            "HIP172",
            "version-value-reported",
            Severity.INFO,
            "CUDA's version number taken apart in code: HIP's, in the same encoding",
            "Nothing to do; the code reports the HIP release where it reported the CUDA one.",
            "CUDA_VERSION and CUDART_VERSION encode CUDA's version as major * 1000 + minor * 10 and are "
            "undefined under hipcc. Where code takes the value apart (`CUDA_VERSION / 1000`, `% 100 / 10`) "
            "to report it, it becomes `(HIP_VERSION_MAJOR * 1000 + HIP_VERSION_MINOR * 10)`, the HIP "
            "version in that encoding. Comparisons with a CUDA release number are left to the version "
            "rules (HIP225, HIP301): which branch ROCm should take is a decision.",
        ),
    ),
    fixtures=("calls/version_values*",),
)
