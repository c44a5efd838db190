"""Inline PTX with an exact HIP counterpart (`asm("trap;")`, `asm volatile("membar.gl;" ::: "memory")`):
the statement becomes the HIP builtin instead of an error (HIP204), which would otherwise stop the build."""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import PTX_EQUIVALENTS
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# asm [volatile] ( "template" ["template"...] [: : : "memory"] ): no operands, so nothing else to carry
_ASM_STATEMENT = lazy(
    rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"
    rb'((?:"(?:[^"\\\n]|\\.)*"\s*)+)(?::\s*:\s*:\s*(?:"memory"\s*)?)?\)'
)
_STRING_BODY = lazy(rb'"((?:[^"\\\n]|\\.)*)"')
_SETTLES = frozenset({"HIP204"})


def _key(strings: bytes) -> bytes:
    template = b"".join(_STRING_BODY.findall(strings))
    template = template.replace(b"\\n", b" ").replace(b"\\t", b" ").replace(b";", b" ")
    return b" ".join(template.split())


def adapt_ptx_equivalents(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"asm" not in ctx.source:
        return result
    for m, where in ctx.code_matches(_ASM_STATEMENT):
        hip = PTX_EQUIVALENTS.get(_key(m.group(1)))
        if hip is None or where not in REWRITABLE:
            continue
        result.edits.append(Edit(m.start(), m.end(), hip))
        result.settled.append((m.start(), m.end(), _SETTLES))
        result.counts["ptx_equivalents"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={95: adapt_ptx_equivalents},
    fixtures=("device/ptx_equivalents*",),
)
