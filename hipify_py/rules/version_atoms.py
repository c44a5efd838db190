"""A CUDA toolkit comparison inside a condition the project's own macros decide -> ROCm decides the
comparison as every current toolkit does (HIP147).

`#if (defined(SPFFT_CUDA) && (CUDART_VERSION >= 10000)) || (defined(SPFFT_ROCM) && HIP_VERSION_MAJOR >= 6)`
(SpFFT): whether the whole test holds depends on the project's switches, which the translation cannot
know, so version_errors.py does not open it; but with SPFFT_CUDA set, hipcc (CUDART_VERSION undefined, 0)
compiles the branch for toolkits older than any supported one (`attr.memoryType`, which ROCm 6 removed as
CUDA 11 did). Where every current toolkit (11.8-13.0) decides such a comparison one way and hipcc the
other, the comparison alone is written `(CUDART_VERSION >= 10000 || defined(__HIP_PLATFORM_AMD__))` (or
`&& !defined(...)`): with any values of the project's switches, ROCm now takes the branch current CUDA
takes, and HIP's NVIDIA platform still tests CUDA's macros. Only where the condition's value under hipcc
is unknown, and under the same limits as the whole-condition case (pp_branches / version_tests.py): an
`#if ... #else ... #endif` choice between two pieces of code, no __CUDA_ARCH__ or asm in them, every test
of that condition in the file alike, and a target from ROCm 6.0 (HIP's API cleanup that followed CUDA's).
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.analysis.pp_branches import Env, directives, evaluate, nvidia_envs, tokens
from hipify_py.analysis.version_tests import TOOLKIT_COMPARE, choices_to_open
from hipify_py.data.versions import compare_versions
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_TOOLKIT = rb"(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR)__|__CUDA_API_VERSION)\b"
_NUMBER = rb"\d+[uUlL]*\b"
_OP = rb"(?:[<>]=?|[!=]=)"
# `CUDART_VERSION >= 10000` or `10000 <= CUDART_VERSION`, not already followed by our own widening
_FORWARD = _TOOLKIT + rb"\s*" + _OP + rb"\s*" + _NUMBER
_BACKWARD = _NUMBER + rb"\s*" + _OP + rb"\s*" + _TOOLKIT
_ATOM = lazy(
    rb"\b(?:"
    + _FORWARD
    + rb"|"
    + _BACKWARD
    + rb")(?!\s*(?:\|\||&&)\s*!?\s*defined\s*\(\s*__HIP_PLATFORM_AMD__)"
)
_TOOLKIT_NAME = lazy(_TOOLKIT)
_AMD = b"defined(__HIP_PLATFORM_AMD__)"
# ROCm 6.0 followed CUDA 11's API removals (version_errors.py's HIP147 holds from there too)
_FROM = "6.0"


def _current(atom: bytes) -> bool | None:
    """The comparison's value on every current toolkit where they all agree and hipcc decides it the
    other way; None otherwise."""
    toks = tokens(atom)
    if toks is None:
        return None
    names = frozenset(text for kind, text in toks if kind == "i")
    values = {evaluate(toks, env) for env in nvidia_envs(names)}
    if None in values or len({bool(v) for v in values}) != 1:
        return None
    nvidia = bool(next(iter(values)))
    hipcc = evaluate(toks, Env({}, names))  # undefined under hipcc: 0 in #if
    return nvidia if hipcc is not None and bool(hipcc) != nvidia else None


def open_version_atoms(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if TOOLKIT_COMPARE.search(src) is None or (ctx.target and compare_versions(ctx.target, _FROM) < 0):
        return result
    branches = ctx.branches
    candidates = []
    for start, end, kind, text in directives(src):
        if kind != b"if" or start in branches.opened or branches.amd.get(start) is not None:
            continue
        if ctx.is_protected(start) or any(a <= start < b for a, b in branches.dead):
            continue
        atoms = [(m, way) for m in _ATOM.finditer(text) if (way := _current(m.group())) is not None]
        if atoms and b"\\\n" not in text:
            candidates.append((start, end, text, atoms))
    chosen = choices_to_open(src, [(s, e, t, None) for s, e, t, _ in candidates], ctx.lacking_names)
    for start, end, text, atoms in candidates:
        if start not in chosen:
            continue
        at = end - len(text)
        for m, way in atoms:
            glue = b" || " + _AMD if way else b" && !" + _AMD
            result.edits.append(Edit(at + m.start(), at + m.end(), b"(" + m.group() + glue + b")"))
            message = (
                f"`{m.group().decode()}` is undefined under hipcc, where it is the opposite of every current "
                f"CUDA toolkit's (11.8-13.0): ROCm now decides it as they do ({'true' if way else 'false'} "
                f"with {_AMD.decode()}), whatever the project's own switches in the condition"
            )
            result.diagnostics.append(ctx.diag("HIP147", at + m.start(), at + m.end(), message))
        result.settled.append((start, end, frozenset({"HIP301"})))
        result.counts["version tests"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py); HIP147's text is version_errors'
DECLARED = declare(
    __name__,
    translate={46: open_version_atoms},
    fixtures=("version_tests/*/toolkit_atoms*",),
)
