"""CUB reached through a wrapped namespace -> hipCUB's (HIP238).

A library that vendors or isolates CUB wraps it in a namespace of its own (`#define CUB_NS_PREFIX
namespace ls {` with `CUB_NS_QUALIFIER ::ls::cub`, or CUB 2's `CUB_WRAPPED_NAMESPACE ls`; lightseq, DGL,
PyTorch's `at_cuda_detail::cub`) and calls `ls::cub::DeviceReduce::Sum`. hipCUB has no such macros: its
names are `hipcub::` only, so the qualified name fails ("use of undeclared identifier 'ls'"). The
qualifier up to `cub` becomes `hipcub` where a CUB name follows (data/detector_data.CUB_WRAPPED_NAMES); a
project's own `mylib::cub::x` stays.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import CUB_WRAPPED_NAMES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# `ls::cub::`, `::ls::cub::`, `a::b::cub::` before a CUB name (the leading `::` is kept)
_WRAPPED = lazy(
    rb"(?<![\w:])(?:::[ \t]*)?((?:[A-Za-z_]\w*[ \t]*::[ \t]*)+cub)[ \t]*::[ \t]*(?:template[ \t]+)?(?:"
    + CUB_WRAPPED_NAMES
    + rb")\b"
)


def rewrite_cub_wrapped(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"::cub" not in ctx.source:
        return result
    for m in _WRAPPED.finditer(ctx.source):
        start, end = m.span(1)
        if ctx.source[start:end].startswith(b"hipcub") or ctx.is_protected(start):
            continue
        if ctx.classify(start, end) not in REWRITABLE:
            continue
        qualifier = b"".join(ctx.source[start:end].split())
        result.edits.append(Edit(start, end, b"hipcub"))
        message = f"`{qualifier.decode()}` is CUB in a wrapped namespace; hipCUB's names are `hipcub::` only"
        result.diagnostics.append(ctx.diag("HIP238", start, end, message))
        result.counts["identifiers.cub"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={157: rewrite_cub_wrapped},
    texts=(
        Rule(
            "HIP238",
            "cub-wrapped-namespace",
            Severity.INFO,
            "CUB reached through a wrapped namespace is hipCUB's",
            "Nothing to do; the CUB_NS_PREFIX/CUB_NS_QUALIFIER/CUB_WRAPPED_NAMESPACE definitions do nothing "
            "under hipCUB and may be removed.",
            "Code that isolates CUB in a namespace of its own (`CUB_NS_QUALIFIER ::ls::cub`, CUB 2's "
            "`CUB_WRAPPED_NAMESPACE`) calls `ls::cub::DeviceReduce::Sum`. hipCUB has no such macros and "
            "declares its names in `hipcub` only, so the qualifier up to `cub` becomes `hipcub` where a CUB "
            "name follows; a project's own `mylib::cub::x` stays.",
        ),
    ),
    fixtures=("namespaces/hip72/cub_wrapped*",),
)
