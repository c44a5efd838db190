"""A declaration of one of CUDA's built-in variables -> kept for HIP's NVIDIA platform only (HIP229).

`#ifndef __CUDA_ARCH__ extern const dim3 blockDim; extern const uint3 threadIdx; #endif` (ccminer's
cuda_helper.h, copied by ethminer and many miners) declares the built-ins for nvcc's host pass, which
has none. HIP on AMD declares them itself, in both passes and with types of its own
(`__hip_builtin_blockDim_t`), so the declaration is a redeclaration with another type: "redeclaration of
'blockDim' with a different type". The lines are kept under `#if !defined(__HIP_PLATFORM_AMD__)`, where
nvcc still takes them.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_BUILTINS = rb"gridDim|blockDim|blockIdx|threadIdx|warpSize"
# one or more whole lines, each `extern [const] TYPE NAME;` (a comment may follow)
_DECLARATIONS = lazy(
    rb"(?:^[ \t]*extern[ \t]+(?:const[ \t]+)?(?:dim3|uint3|int|unsigned(?:[ \t]+int)?)[ \t]+"
    rb"(?:" + _BUILTINS + rb")[ \t]*;[ \t]*(?://[^\n]*)?(?:\r?\n|\Z))+",
    re.MULTILINE,
)
_NAME = lazy(rb"\b(?:" + _BUILTINS + rb")\b")
_GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)  // hipify-py: HIP declares CUDA's built-in variables itself"


def builtin_declarations(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"extern" not in ctx.source or _NAME.search(ctx.source) is None:
        return result
    nl = newline_of(ctx.source)
    for m, where in ctx.code_matches(_DECLARATIONS):
        if where not in REWRITABLE or ctx.is_protected(m.start()):
            continue
        if ctx.source[max(0, m.start() - len(_GUARD) - 4) : m.start()].rstrip().endswith(_GUARD):
            continue  # ours, from an earlier run
        block = m.group()
        tail = b"" if block.endswith(b"\n") else nl
        result.edits.append(Edit(m.start(), m.start(), _GUARD + nl))
        result.edits.append(Edit(m.end(), m.end(), tail + b"#endif" + nl))
        names = ", ".join(f"`{n.decode()}`" for n in dict.fromkeys(_NAME.findall(block)))
        message = (
            f"declaration of CUDA's built-in {names}: HIP on AMD declares them itself, with types of its "
            "own; kept for HIP's NVIDIA platform only"
        )
        end = m.start() + len(block.rstrip())
        result.diagnostics.append(ctx.diag("HIP229", m.start(), end, message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={43: builtin_declarations},
    texts=(
        Rule(
            "HIP229",
            "builtin-variable-declaration",
            Severity.INFO,
            "A declaration of CUDA's built-in variables: kept for HIP's NVIDIA platform only",
            "Nothing to do; on AMD the code uses HIP's own built-in variables.",
            "Code that declares the built-ins for nvcc's host pass (`#ifndef __CUDA_ARCH__ extern const dim3 "
            "blockDim; extern const uint3 threadIdx; #endif`, ccminer's cuda_helper.h and its copies) "
            "redeclares them under HIP on AMD, which declares gridDim, blockDim, blockIdx, threadIdx and "
            "warpSize itself in both passes with types of its own (`__hip_builtin_blockDim_t`): "
            "'redeclaration of blockDim with a different type'. The declarations are put under `#if "
            "!defined(__HIP_PLATFORM_AMD__)`.",
        ),
    ),
    fixtures=("cxx/builtin_declarations*",),
)
