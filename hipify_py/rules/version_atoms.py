"""A CUDA toolkit comparison inside a condition the project's own macros decide -> ROCm decides the
comparison as every current toolkit does (HIP147).

Which conditions, and why: analysis/toolkit_atoms.py (the file's branch analysis already counts them
decided so). Each comparison is written `(CUDART_VERSION >= 10000 || defined(__HIP_PLATFORM_AMD__))` (or
`&& !defined(...)`): HIP's NVIDIA platform still tests CUDA's macros.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.analysis.toolkit_atoms import AtomTest
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare

_AMD = b"defined(__HIP_PLATFORM_AMD__)"


def open_version_atoms(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"VERSION" not in ctx.source and b"__CUDACC_VER_" not in ctx.source:
        return result
    src = ctx.source
    tests: dict[int, AtomTest] = ctx.branches.atoms
    for start, test in tests.items():
        for atom in test.atoms:
            text = src[atom.start : atom.end]
            glue = b" || " + _AMD if atom.way else b" && !" + _AMD
            result.edits.append(Edit(atom.start, atom.end, b"(" + text + glue + b")"))
            way = "true" if atom.way else "false"
            message = (
                f"`{text.decode()}` is undefined under hipcc, where it is the opposite of every current "
                f"CUDA toolkit's (11.8-13.0): ROCm now decides it as they do ({way} with {_AMD.decode()}), "
                "whatever the project's own switches in the condition"
            )
            result.diagnostics.append(ctx.diag("HIP147", atom.start, atom.end, message))
        end = src.find(b"\n", start)
        result.settled.append((start, len(src) if end < 0 else end, frozenset({"HIP301"})))
        result.counts["version tests"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py); HIP147's text is version_errors'
DECLARED = declare(
    __name__,
    translate={46: open_version_atoms},
    fixtures=("version_tests/*/toolkit_atoms*",),
)
