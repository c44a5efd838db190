"""A CUDA version test whose branch under hipcc reaches `#error` -> ROCm takes the other branch (HIP145).

`#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 110402 ... #else #error ... #endif`: the CUDA and
library version macros (CUDA_VERSION, CUDART_VERSION, CUBLAS_VERSION, CUFFT_VERSION, ...) are
undefined under hipcc, so the condition takes the branch of old or unknown toolkits, and where that
branch is an `#error` the build can only stop there. A HIP library's version numbers mean something
else (hipBLAS 2.x/3.x is not cuBLAS 11.x), so the test is not translated to one; instead the condition
gets `|| defined(__HIP_PLATFORM_AMD__)` (or `&& !defined(__HIP_PLATFORM_AMD__)`) so that ROCm takes
the branch without the `#error`, whose CUDA names the other rules translate or report where HIP lacks
them. HIP's NVIDIA platform still tests CUDA's own macros. Reported as HIP145 (warning) in place of
HIP224/HIP301; a condition whose both branches reach an `#error`, or which already tests a HIP macro,
is left alone.

The same for a comparison of the CUDA toolkit's version (CUDA_VERSION, CUDART_VERSION,
__CUDACC_VER_MAJOR__, ...) that every current toolkit (11.8-13.0) decides one way and hipcc the other
(HIP147): `#if CUDA_VERSION >= 11000 attr.type #else attr.memoryType #endif`. The other branch is code for
toolkits older than any supported one, written against APIs CUDA has removed since (cudaPointerAttributes'
memoryType, the legacy cuSPARSE csrmv, ...) and HIP followed; ROCm now compiles what current CUDA
compiles. Library version macros are left alone (their values are unknown here), as are presence tests
(`#ifdef CUDART_VERSION`: "built with CUDA").
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.analysis.pp_branches import directives
from hipify_py.analysis.version_tests import error_branch, includes_only, names_version_in_code
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.versions import VERSION_MACRO
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_COMMENT_START = lazy(rb"/[/*]")
_AMD = "defined(__HIP_PLATFORM_AMD__)"
# before the file includes a CUDA or HIP header, HIP's headers have not defined __HIP_PLATFORM_AMD__ yet;
# hip-clang defines __HIP__ itself (nvcc, HIP's NVIDIA platform, does not)
_AMD_EARLY = "(defined(__HIP_PLATFORM_AMD__) || defined(__HIP__))"
# a CUDA or HIP header, or a project's own (which may bring one): from there on HIP's macros may be set
_GPU_INCLUDE = lazy(
    rb"^[ \t]*#[ \t]*include[ \t]*(?:<(?:hip\w*/|cu\w*\.h|cuda|thrust/|cub/)|\")", re.MULTILINE
)


def open_version_errors(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if VERSION_MACRO.search(src) is None:
        return result
    opened = ctx.branches.opened  # pp_branches decides which tests go the other way (the detectors agree)
    if not opened:
        return result
    first_gpu = _GPU_INCLUDE.search(src)
    for start, end, kind, condition in directives(src):
        if start not in opened or ctx.is_protected(start):
            continue
        early = first_gpu is None or start < first_gpu.start()
        amd = bool(opened[start])
        macro = VERSION_MACRO.search(src, start, end)
        at = error_branch(src, end, amd)
        newer = at is None and kind == b"elif" and not amd  # the `#elif X >= N` after an opened #error test
        edit = _rewrite(src, start, end, kind, condition, amd, _AMD_EARLY if early else _AMD)
        if edit is None or macro is None:
            continue
        name = macro.group().decode()
        if at is not None:
            line = ctx.lines.line_col(at)[0]
            way = "skips its branch" if amd else "takes the branch without it"
            code = "HIP145"
            message = (
                f"`{name}` is undefined under hipcc, so this test would stop the build at the #error on "
                f"line {line}: ROCm now {way} ({_AMD} added); check that the code it selects exists in HIP"
            )
        elif newer:  # the `#elif X >= N` after an opened #error test (pp_branches.newer_toolkit_elif)
            code = "HIP145"
            message = (
                f"`{name}` is undefined under hipcc and the test before this one, which required it, now "
                f"lets ROCm through: ROCm takes this branch for current toolkits ({_AMD} added), not the "
                "one for old toolkits after it; check that the code it selects exists in HIP"
            )
        else:  # opened for HIP147 (pp_branches.current_toolkits_differ)
            way = "false" if amd else "true"
            code = "HIP147"
            if names_version_in_code(src, end, amd):
                why = f"the other names `{name}` in code, an undeclared identifier under hipcc"
            elif not amd and includes_only(src, end, ctx.tables.headers_at(ctx.target)):
                why = "it only includes headers the target HIP has"
            else:
                why = "the other is code for older toolkits"
            message = (
                f"`{name}` is undefined under hipcc, where this test is the opposite of every current CUDA "
                f"toolkit's (11.8-13.0): ROCm now takes their branch ({way} with {_AMD}); {why}"
            )
        result.edits.append(edit)
        result.diagnostics.append(ctx.diag(code, macro.start(), macro.end(), message))
        result.settled.append((start, end, frozenset({"HIP224", "HIP301"})))
        result.counts["version tests"] += 1
    return result


def _rewrite(
    src: bytes, start: int, end: int, kind: bytes, condition: bytes, amd: bool, amd_test: str = _AMD
) -> Edit | None:
    """The directive with ROCm sent the other way; None for a condition we cannot rebuild safely."""
    comment = _COMMENT_START.search(condition)
    code = condition[: comment.start()] if comment else condition
    tail = condition[len(code.rstrip()) :]  # trailing blanks and comment, kept as they are
    code = code.strip()
    if not code or b"\\\n" in code:
        return None
    text = code.decode("latin-1")
    if kind == b"ifdef":
        text = f"defined({text})"
    elif kind == b"ifndef":
        text = f"!defined({text})"
    new = f"({text}) && !{amd_test}" if amd else f"({text}) || {amd_test}"
    keyword = "elif" if kind == b"elif" else "if"
    hash_at = src.index(b"#", start)
    return Edit(hash_at, end, f"#{keyword} {new}".encode("latin-1") + tail)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={45: open_version_errors},
    texts=(
        Rule(
            "HIP145",
            "version-test-opened",
            Severity.WARNING,
            "A CUDA version test that would reach an #error under hipcc: ROCm takes the other branch",
            "Check that the branch ROCm now compiles uses only what HIP has (other findings name what it "
            "lacks); a HIP library's own version (hipblasVersionMajor, HIP_VERSION) is the test to use "
            "where the HIP releases differ.",
            "CUDA_VERSION, CUDART_VERSION and the library version macros (CUBLAS_VERSION, CUFFT_VERSION, "
            "CUSPARSE_VERSION, ...) are undefined under hipcc, so `#if CUBLAS_VERSION >= 110402 ... #else "
            "#error ... #endif` stops the build on ROCm (HIP224). A HIP library's version numbers mean "
            "something else, so the test is not translated to one: the condition gets `|| "
            "defined(__HIP_PLATFORM_AMD__)` (`&& !defined(__HIP_PLATFORM_AMD__)` where the #error is in its "
            "own branch) and ROCm takes the branch without the #error, as current CUDA toolkits do; HIP's "
            "NVIDIA platform still tests CUDA's macros. Not done where both ways reach an #error. Where the "
            "opened test is `#ifndef CUDART_VERSION / #error` and the `#elif` after it tests for toolkits "
            "from some version on (`#elif CUDART_VERSION >= 11050`), that test is opened too, so ROCm "
            "takes the current toolkits' branch and not the old toolkits' `#else`.",
        ),
        Rule(
            "HIP147",
            "version-test-current-toolkits",
            Severity.WARNING,
            "A CUDA toolkit version test that hipcc decides unlike every current toolkit: ROCm takes their "
            "branch",
            "Check that the branch ROCm now compiles uses only what HIP has (other findings name what it "
            "lacks); test HIP_VERSION where HIP releases differ.",
            "CUDA_VERSION, CUDART_VERSION and __CUDACC_VER_MAJOR__ are undefined under hipcc (0 in #if), so "
            "`#if CUDA_VERSION >= 11000 ... #else ... #endif` compiles on ROCm the branch for toolkits older "
            "than any supported one, written against APIs CUDA removed since (cudaPointerAttributes' "
            "memoryType, cuSPARSE's csrmv) and HIP followed. Where every current toolkit (11.8-13.0) decides "
            "the comparison the same way, the condition gets `|| defined(__HIP_PLATFORM_AMD__)` (or `&& "
            "!defined(__HIP_PLATFORM_AMD__)`) and ROCm compiles what current CUDA compiles; HIP's NVIDIA "
            "platform still tests CUDA's macros. Tests current toolkits disagree on (`CUDA_VERSION >= "
            "12080`), library versions, presence tests (`#ifdef CUDART_VERSION`) and tests whose other "
            "branch is an #error are left alone (HIP301). A test with no alternative (`#if CUDA_VERSION < "
            "9010 ... #endif`) is opened only where the branch hipcc would take names the version macro in "
            "code (`LOG << CUDA_VERSION`), an undeclared identifier there (done for every target), or where "
            "it only includes headers the target HIP has (`#if CUDART_VERSION >= 11000 #include "
            "<cuda_bf16.h> #endif`).",
        ),
    ),
    fixtures=("detectors/version_error_branch*", "version_errors/*/*", "version_tests/*"),
)
