"""A test of nvcc's feature macros for what hip-clang always does -> it holds on AMD too (HIP159).

nvcc defines `__CUDACC_EXTENDED_LAMBDA__` under `--expt-extended-lambda` (`__device__` lambdas in host
code) and `__CUDACC_RELAXED_CONSTEXPR__` under `--expt-relaxed-constexpr` (constexpr functions called
from device code). hip-clang has both without a flag and defines neither, so `#ifndef
__CUDACC_EXTENDED_LAMBDA__ / #error "compile with --expt-extended-lambda"` (cuCollections, RAPIDS)
stops the build on ROCm and an `#ifdef` path is dropped. Each test of one becomes
`(defined(X) || defined(__HIP_PLATFORM_AMD__))`: HIP's NVIDIA platform still tests nvcc's macro. Not in a
condition that already tests a HIP macro, nor in one the version-test rule rewrites whole.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.analysis.pp_branches import directives
from hipify_py.data.detector_data import HIP_PLATFORM_MACRO, NVCC_FEATURE_MACROS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_AMD = b"defined(__HIP_PLATFORM_AMD__)"
_NAMES = b"|".join(sorted(NVCC_FEATURE_MACROS))
# `defined(X)`, `defined X`, or X as a value, in an #if/#elif condition
_TEST = lazy(
    rb"\bdefined\s*\(\s*(" + _NAMES + rb")\s*\)|\bdefined\s+(" + _NAMES + rb")\b|\b(" + _NAMES + rb")\b"
)
_COMMENT = lazy(rb"/[/*]")
_CONDITIONS = (b"if", b"elif", b"ifdef", b"ifndef")


def hold_feature_tests(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if not any(name in src for name in NVCC_FEATURE_MACROS):
        return result
    opened = ctx.branches.opened  # rewritten whole by rules/version_errors.py
    for start, end, kind, condition in directives(src):
        comment = _COMMENT.search(condition)
        code = condition[: comment.start()] if comment else condition
        if kind not in (b"if", b"elif", b"ifdef", b"ifndef") or not any(
            n in code for n in NVCC_FEATURE_MACROS
        ):
            continue
        if ctx.is_protected(start) or start in opened or HIP_PLATFORM_MACRO.search(code):
            continue
        at = end - len(condition)  # where the condition starts
        if kind in (b"ifdef", b"ifndef"):
            name = code.strip()
            if name not in NVCC_FEATURE_MACROS:
                continue
            test = (
                b"defined(%s) || %s" % (name, _AMD)
                if kind == b"ifdef"
                else b"!defined(%s) && !%s" % (name, _AMD)
            )
            hash_at = src.index(b"#", start)
            tail = condition[len(code.rstrip()) :]
            result.edits.append(Edit(hash_at, end, b"#if " + test + tail))
            _report(ctx, result, at + code.index(name), name)
            continue
        for m in _TEST.finditer(code):
            name = m.group(1) or m.group(2) or m.group(3)
            if m.group(3) is not None:
                new = b"(%s || %s)" % (name, _AMD)  # its value: nvcc defines it as 1
            else:
                new = b"(defined(%s) || %s)" % (name, _AMD)
            result.edits.append(Edit(at + m.start(), at + m.end(), new))
            _report(ctx, result, at + m.start(m.lastindex or 0), name)
    return result


def _report(ctx: Context, result: RuleResult, at: int, name: bytes) -> None:
    text = name.decode()
    message = (
        f"`{text}` is nvcc's mark of {NVCC_FEATURE_MACROS[name]}, a feature hip-clang always has and marks "
        f"with no macro: the test now holds on AMD ({_AMD.decode()} added)"
    )
    result.diagnostics.append(ctx.diag("HIP159", at, at + len(name), message))
    result.counts["feature tests"] += 1


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={47: hold_feature_tests},
    texts=(
        Rule(
            "HIP159",
            "nvcc-feature-test",
            Severity.INFO,
            "A test of an nvcc feature flag hip-clang always has: it now holds on AMD",
            "Nothing to do: on AMD the code the test guards is compiled as nvcc compiles it with the flag.",
            "nvcc defines __CUDACC_EXTENDED_LAMBDA__ with --expt-extended-lambda (__device__ lambdas in "
            "host code) and __CUDACC_RELAXED_CONSTEXPR__ with --expt-relaxed-constexpr (constexpr "
            "functions in device code). hip-clang does both without a flag and defines neither macro, so "
            "`#ifndef __CUDACC_EXTENDED_LAMBDA__ #error ...` would stop the build on ROCm and `#ifdef` "
            "paths would be dropped. Each test gets `|| defined(__HIP_PLATFORM_AMD__)`; HIP's NVIDIA "
            "platform still tests nvcc's macro.",
        ),
    ),
    fixtures=("version_tests/*nvcc_feature*",),
)
