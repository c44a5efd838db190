"""Texture and surface references (HIP111): the reference API is gone in CUDA 12 and HIP."""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, match_text
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_TEX_REF = lazy(rb"\b(texture|surface)\s*<")


def texture_references(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_TEX_REF):
        node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
        if node is None or node.type not in ("type_identifier", "identifier", "template_type"):
            continue
        kind = match_text(m, 1)
        msg = f"{kind} reference `{kind}<...>`: the {kind} reference API was removed (CUDA 12, HIP)"
        result.diagnostics.append(ctx.diag("HIP111", m.start(1), m.end(1), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((130, texture_references, (b"texture", b"surface")),),
    texts=(
        Rule(
            "HIP111",
            "texture-reference",
            Severity.ERROR,
            "Texture/surface reference (removed API)",
            "Use texture objects: hipCreateTextureObject with a hipResourceDesc/hipTextureDesc, and pass "
            "the hipTextureObject_t to the kernel.",
            "Texture and surface references (`texture<T, dim, mode>` globals, cudaBindTexture*) were "
            "removed in CUDA 12 and are deprecated/unsupported in HIP. Only texture objects are portable.",
        ),
    ),
    fixtures=("detectors/texture_refs*",),
)
