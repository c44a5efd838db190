"""CUDA version and architecture macros in conditions (HIP301-HIP303), runtime version numbers
compared with CUDA's (HIP304).
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.analysis.version_tests import VERSION_MACROS, error_branch
from hipify_py.data.detector_data import HIP_PLATFORM_MACRO, LIBRARY_VERSION_MACROS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, logical_line, match_text, word_start
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

VERSION_MACRO = lazy(
    rb"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__CUDACC_VER_BUILD__|"
    rb"__CUDA_ARCH__|__CUDA_ARCH_LIST__|__NVCC__|__CUDA_API_VERSION|" + LIBRARY_VERSION_MACROS + rb")\b"
)
_COMPARE_AFTER = lazy(rb"\s*(?:<=|>=|==|!=|<|>)\s*\(?\s*\d")
_COMPARE_BEFORE = lazy(rb"\d\s*\)?\s*(?:<=|>=|==|!=|<|>)\s*$")
# re.M: `^` must match at the line start we pass as `pos` (without it, only at offset 0).
_PREPROC_LINE = lazy(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b", re.M)
_DIRECTIVE_LINE = lazy(rb"^(?:\xef\xbb\xbf)?[ \t]*#", re.M)  # a UTF-8 BOM may open the first line


def _compared(source: bytes, m: re.Match[bytes]) -> bool:
    before = source[max(0, m.start() - 24) : m.start()]
    return bool(_COMPARE_AFTER.match(source, m.end()) or _COMPARE_BEFORE.search(before))


def _version_finding(name: str, compared: bool, amd: int | None) -> tuple[str, str]:
    """(rule, message) for one version-macro use in a condition or comparison; `amd` is the value of
    the whole #if condition under hipcc when known."""
    effect = {
        None: "",
        0: "so the condition is false on ROCm and the code it guards is dropped",
    }.get(amd, "so the condition is true on ROCm (unlike on current NVIDIA GPUs) and its code is compiled")
    if name == "__NVCC__":
        return (
            "HIP303",
            f"`__NVCC__` is never defined by hipcc, {effect or 'so this guard takes the non-NVCC branch'}",
        )
    if name.startswith("__CUDA_ARCH"):
        what = "compared with an NVIDIA compute capability" if compared else "tested"
        rest = effect or "device passes set __HIP_DEVICE_COMPILE__ instead"
        return "HIP302", f"`{name}` {what}: not defined by hipcc, {rest}"
    what = "compared with a CUDA version number" if compared else "tested"
    return (
        "HIP301",
        f"`{name}` {what}: undefined under hipcc, {effect or 'so this condition silently changes on ROCm'}",
    )


def version_macros(ctx: Context, scan: Scan) -> RuleResult:
    """One finding per rule and logical line; conditions that already test a HIP macro are fine."""
    result = RuleResult()
    src = ctx.source
    found: dict[tuple[int, str], tuple[int, re.Match[bytes], str]] = {}
    own: set[bytes] | None = None
    for m in scan.code(VERSION_MACRO):
        line_start, line_end = logical_line(src, m.start())
        condition = bool(_PREPROC_LINE.match(src, line_start))
        if not _DIRECTIVE_LINE.match(src, line_start) and VERSION_MACROS.fullmatch(m.group()):
            own = {d.group(1) for d in ctx.define_lines} if own is None else own
            if m.group() not in own:  # in code hipcc compiles: an undeclared identifier there
                name = match_text(m)
                text = f"`{name}` in code: undefined under hipcc, so it is an undeclared identifier there"
                result.diagnostics.append(ctx.diag("HIP225", m.start(), m.end(), text))
                continue
        compared = _compared(src, m)
        if not (condition or compared or m.group() == b"__NVCC__"):
            continue  # `__CUDA_ARCH__` in code, a version macro the file defines: not a condition
        if HIP_PLATFORM_MACRO.search(src, line_start, line_end):
            continue  # `... || defined(__HIP_PLATFORM_AMD__)`: the user already handled ROCm
        amd = scan.branches.amd.get(line_start) if condition else None
        if condition and (scan.branches.harmless(line_start) or scan.branches.only_pragmas(src, line_start)):
            continue  # ROCm takes the branch current NVIDIA GPUs take: `defined(__CUDA_ARCH__) && ... < 600`
        rule, message = _version_finding(match_text(m), compared, amd)
        key = (line_start, rule)
        rank = 1 if compared else 0
        if key not in found or rank > found[key][0]:
            found[key] = (rank, m, message)
    for key, (_, m, message) in found.items():
        result.diagnostics.append(ctx.diag(key[1], m.start(), m.end(), message))
        amd = scan.branches.amd.get(key[0])
        if key[1] == "HIP301" and amd is not None:
            at = error_branch(src, logical_line(src, m.start())[1], bool(amd))
            if at is not None:
                line = ctx.lines.line_col(at)[0]
                name = match_text(m)
                text = f"`{name}` is undefined under hipcc: the build stops at the #error on line {line}"
                result.diagnostics.append(ctx.diag("HIP224", m.start(), m.end(), text))
    return result


def nv_target_queries(ctx: Context, scan: Scan) -> RuleResult:
    """`NV_IF_TARGET(NV_PROVIDES_SM_70, (...))`: an NVIDIA architecture query's block is dropped on AMD."""
    result = RuleResult()
    for query, _ in ctx.nv_arch_blocks:
        if any(a <= query[0] < b for a, b in scan.cuda_only):
            continue  # nested in code hipcc never compiles: its enclosing branch is what matters
        name = ctx.source[query[0] : query[1]].decode()
        text = f"`{name}` holds on no AMD GPU (hipcc targets no NVIDIA architecture): this block is dropped"
        result.diagnostics.append(ctx.diag("HIP302", query[0], query[1], text))
    return result


_GET_VERSION = lazy(rb"(cuda(?:Runtime|Driver)GetVersion)\s*\(\s*&\s*(\w+)\s*\)")


def runtime_version_compare(ctx: Context, scan: Scan) -> RuleResult:
    """cudaRuntimeGetVersion(&v) ... v >= 11000: HIP reports its own version numbering."""
    result = RuleResult()
    variables: dict[bytes, str] = {}
    for m in scan.code(_GET_VERSION):
        variables.setdefault(m.group(2), match_text(m, 1))
    if not variables:
        return result
    src = ctx.source
    uses = re.compile(rb"(?:" + b"|".join(re.escape(v) for v in variables) + rb")\b")

    def compared(m: re.Match[bytes]) -> bool:  # a plain variable (not obj.v / p->v) next to a number
        before = src[m.start() - 1 : m.start()]
        return word_start(src, m.start()) and before not in (b".", b">") and _compared(src, m)

    for m in scan.code(uses, keep=compared):
        var = m.group()
        fn = variables[var]
        msg = (
            f"result of {fn} (`{var.decode()}`) compared with a number: HIP versions are numbered differently"
        )
        result.diagnostics.append(ctx.diag("HIP304", m.start(), m.end(), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=(
        (20, version_macros, (b"_VERSION", b"__CUDA", b"__NVCC__")),
        (30, runtime_version_compare, (b"GetVersion",)),
        (31, nv_target_queries, (b"NV_",)),
    ),
    texts=(
        Rule(
            "HIP224",
            "version-test-reaches-error",
            Severity.ERROR,
            "A CUDA version test makes hipcc reach an #error",
            "Give ROCm its own branch before the #error: `#if CUBLAS_VERSION >= 110402 || "
            "defined(__HIP_PLATFORM_AMD__)` (and check that the code it selects exists in HIP).",
            "The version macro (CUDA_VERSION, CUDART_VERSION, CUBLAS_VERSION, ...) is undefined under "
            "hipcc, so the condition takes the branch of old or unknown toolkits; where that branch is "
            "`#error` (`#else #error CUDART_VERSION Undefined!`), the build stops there. Reported beside "
            "HIP301.",
        ),
        Rule(
            "HIP225",
            "version-macro-in-code",
            Severity.ERROR,
            "A CUDA version macro used in code hipcc compiles",
            "Decide the value for ROCm in a preprocessor branch: `#if defined(__HIP_PLATFORM_AMD__) ... "
            "#else ... CUDA_VERSION ... #endif`, or test HIP_VERSION there.",
            "CUDA_VERSION, CUDART_VERSION, __CUDACC_VER_*__ and the library version macros (CUBLAS_VERSION, "
            "...) are defined by CUDA's headers and nvcc only, so `return CUDA_VERSION >= 11000 && enable;` "
            'or `printf("%d", CUDART_VERSION)` in code hipcc compiles is an undeclared identifier there. '
            "Not reported in #define bodies, in branches hipcc skips, or where the file defines the macro.",
        ),
        Rule(
            "HIP301",
            "cuda-version-macro",
            Severity.WARNING,
            "CUDA version macro in a condition",
            "Add a HIP branch: `#if CUDA_VERSION >= 11000 || defined(__HIP_PLATFORM_AMD__)` (or test "
            "HIP_VERSION).",
            "CUDA_VERSION, CUDART_VERSION, __CUDACC_VER_*__ and the library version macros (CUBLAS_VERSION, "
            "CUDNN_VERSION, ...) are undefined under hipcc (value 0 in #if), so version-gated code is "
            "silently dropped (>=) or entered (<) on ROCm; the message says which. Conditions that select "
            "on ROCm what they select with every current CUDA toolkit (11.8-13.0), e.g. "
            "`defined(CUDA_VERSION) && CUDA_VERSION < 9000`, are not reported.",
        ),
        Rule(
            "HIP302",
            "cuda-arch-macro",
            Severity.WARNING,
            "__CUDA_ARCH__ test",
            "Use `__HIP_DEVICE_COMPILE__` for 'device pass' tests and the architecture macros (__gfx90a__, "
            "__gfx942__) for architecture checks; the wavefront size is `warpSize` (ROCm 7's clang no longer "
            "predefines __AMDGCN_WAVEFRONT_SIZE).",
            "hipcc does not define __CUDA_ARCH__; `#ifdef __CUDA_ARCH__` device-only paths and "
            "compute-capability comparisons (>= 700) never match on AMD, and `#ifndef __CUDA_ARCH__` host "
            "paths are compiled for the AMD device. Conditions that select on AMD what they select on every "
            "current NVIDIA GPU (sm_80 to sm_90a), e.g. `defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`, "
            "are not reported; nor are conditions nested in a branch hipcc never compiles. libcu++'s "
            "`NV_IF_TARGET(NV_PROVIDES_SM_70, (...))` (and NV_IS_EXACTLY_SM_*, NV_HAS_FEATURE_SM_*) is the "
            "same test: its block is dropped on AMD.",
        ),
        Rule(
            "HIP303",
            "nvcc-guard",
            Severity.WARNING,
            "__NVCC__ guard: hipcc does not define __NVCC__",
            "Test `defined(__NVCC__) || defined(__HIPCC__)` or __HIP_PLATFORM_AMD__ as intended.",
            "hip-clang defines __HIPCC__ and __HIP__ but not __NVCC__, so nvcc-only branches are skipped.",
        ),
        Rule(
            "HIP304",
            "runtime-version-compare",
            Severity.WARNING,
            "CUDA runtime/driver version compared with a number",
            "Compare hipRuntimeGetVersion results with HIP_VERSION-style numbers (major*10000000 + "
            "minor*100000 + patch), or branch on the platform.",
            "hipRuntimeGetVersion/hipDriverGetVersion return HIP's own numbering, so comparisons with CUDA "
            "numbers like 11000 give the wrong answer.",
        ),
    ),
    fixtures=(
        "detectors/version_*",
        "detectors/runtime_version*",
        "detectors/cuda_header_guard*",
    ),
)
