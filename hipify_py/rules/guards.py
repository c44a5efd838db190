"""CUDA header guards and feature macros in `#if` conditions -> the macro the HIP header defines.

`#ifdef __DRIVER_TYPES_H__` (helper headers hiding helpers until a CUDA header is included) never
holds under hipcc; mappings/guards.yaml says which macro the HIP counterpart header really defines.
Only conditions are rewritten (`#if/#ifdef/#ifndef/#elif`, `defined()` in them); a file that
`#define`s the macro itself keeps it (its own guard, or a stub that blocks the CUDA header).
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.pp_branches import directives
from hipify_py.data.schema import Guard
from hipify_py.engine import lexer
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.options import Options
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_CONDITIONS = frozenset({b"if", b"ifdef", b"ifndef", b"elif"})
_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


def guard_for(rows: tuple[Guard, ...], options: Options) -> Guard | None:
    """The row that holds for the target HIP version (the first one listed, when several do)."""
    return next((row for row in rows if row.holds_for(options.hip_version)), None)


def guard_target(guard: Guard, options: Options) -> str | None:
    return guard.roc if options.roc and guard.roc else guard.hip


def rewrite_guards(ctx: Context) -> RuleResult:
    result = RuleResult()
    guards = ctx.tables.mappings.guards
    if not guards or b"#" not in ctx.source or ctx.identifiers.isdisjoint(ctx.tables.guard_names):
        return result
    own: set[bytes] | None = None  # macros this file defines itself (computed on the first hit)
    for start, end, kind, _ in directives(ctx.source):
        if kind not in _CONDITIONS:
            continue
        line_start = start
        body = ctx.source[line_start:end]
        for token in lexer.identifiers(body, line_start):
            rows = guards.get(token.text.decode())
            if rows is None or token.member:
                continue
            if own is None:
                own = set(_DEFINE.findall(ctx.source))
            if token.text in own or ctx.is_protected(token.start):
                continue
            if ctx.classify(token.start, token.end) in (Where.COMMENT, Where.STRING):
                continue
            _rewrite(ctx, rows, token.start, token.end, result)
    return result


def _rewrite(ctx: Context, rows: tuple[Guard, ...], start: int, end: int, result: RuleResult) -> None:
    guard = guard_for(rows, ctx.options)
    name = ctx.source[start:end].decode()
    if guard is None:  # every row is dated outside the target version
        guard = rows[0]
    target = guard_target(guard, ctx.options)
    if target is None:
        header = f" of {guard.cuda_header}" if guard.cuda_header else ""
        message = (
            f"`{name}` (guard/feature macro{header}) is never defined under hipcc: code that needs it "
            f"is dropped on ROCm ({guard.reason})"
        )
        result.diagnostics.append(ctx.diag("HIP307", start, end, message))
        return
    if not guard.holds_for(ctx.options.hip_version):
        dated = f"HIP {guard.since or '?'}-{guard.until or ''}".rstrip("-")
        message = f"`{name}` -> `{target}`: {guard.hip_header} defines it in {dated} only"
        result.diagnostics.append(ctx.diag("HIP307", start, end, message))
    result.edits.append(Edit(start, end, target.encode()))
    result.counts["guards"] += 1


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={30: rewrite_guards},
    texts=(
        Rule(
            "HIP307",
            "cuda-header-guard",
            Severity.WARNING,
            "Guard or feature macro of a CUDA header that HIP does not define",
            "Include the HIP counterpart and test its macro, or test __HIP_PLATFORM_AMD__ for a ROCm "
            "branch; without a counterpart, port the guarded code by hand.",
            "Helper headers hide code behind the include guards of CUDA headers (`#ifdef "
            "__DRIVER_TYPES_H__`, `CUBLAS_API_H_`, `CUSPARSEAPI`...). hipify-py rewrites the guards whose "
            "HIP counterpart header defines a macro (mappings/guards.yaml, checked against the installed "
            "headers) and reports the others: a library without a HIP counterpart (nvJPEG, NPP), or a macro "
            "the target HIP version's header does not define. Under hipcc the condition never holds, so the "
            "code it guards is silently dropped on ROCm.",
        ),
    ),
    fixtures=(
        "guards/helper_guards",
        "guards/own_macros",
    ),
)
