"""A macro whose whole value is a CUDA library's API prefix -> the HIP library's (HIP167).

PETSc names its BLAS and solver calls by pasting a prefix macro to a suffix through a concatenation helper:
`#define PETSC_CUPMBLAS_PREFIX cublas` then `PetscConcat(PETSC_CUPMBLAS_PREFIX, Daxpy)`. No `##` is
next to the prefix (rules/pasted_prefixes.py), and `cublas` alone is no API name, so the translation left
it and hipcc met `cublasDaxpy`. A prefix means nothing but the names it builds, so the value becomes the
HIP library's prefix (`hipblas`, `HIPBLAS` for the status and enum names). The runtime's own `cuda`/`CU`
are left: projects name namespaces and files so.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# each library prefix and its HIP library's (hipBLAS, hipBLASLt, hipSPARSE, hipSOLVER, hipRAND, hipFFT)
LIBRARY_PREFIXES = {
    b"cublas": b"hipblas",
    b"cublasLt": b"hipblasLt",
    b"cusparse": b"hipsparse",
    b"cusolverDn": b"hipsolverDn",
    b"cusolverSp": b"hipsolverSp",
    b"curand": b"hiprand",
    b"cufft": b"hipfft",
    b"CUBLAS": b"HIPBLAS",
    b"CUBLASLT": b"HIPBLASLT",
    b"CUSPARSE": b"HIPSPARSE",
    b"CUSOLVER": b"HIPSOLVER",
    b"CURAND": b"HIPRAND",
    b"CUFFT": b"HIPFFT",
}
_DEFINE = lazy(
    rb"^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+("
    + b"|".join(LIBRARY_PREFIXES)
    + rb")(_?)[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?$",
    re.MULTILINE,
)
_SETTLES = frozenset({"HIP101", "HIP102"})


def translate_prefix_macros(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"#" not in ctx.source:
        return result
    for m, where in ctx.code_matches(_DEFINE):
        start, end = m.span(1)
        if ctx.is_protected(start) or any(a <= start < b for a, b in ctx.branches.dead):
            continue
        if where not in REWRITABLE and ctx.classify(start, end) not in REWRITABLE:
            continue
        cuda, hip = m.group(1), LIBRARY_PREFIXES[m.group(1)]
        result.edits.append(Edit(start, end, hip, covers=True))
        result.settled.append((start, end + len(m.group(2)), _SETTLES))
        message = (
            f"`{cuda.decode()}` is a library prefix, which this macro pastes into names: `{hip.decode()}`"
        )
        result.diagnostics.append(ctx.diag("HIP167", start, end, message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={36: translate_prefix_macros},
    texts=(
        Rule(
            "HIP167",
            "library-prefix-macro",
            Severity.INFO,
            "A macro whose value is a CUDA library's API prefix: the HIP library's",
            "Check that the names it builds exist in the HIP library: hipify-py cannot see them.",
            "`#define BLAS_PREFIX cublas`, pasted to suffixes through a concatenation helper "
            "(`CONCAT(BLAS_PREFIX, Daxpy)`), builds cuBLAS names hipify-py cannot see. The value becomes the "
            "HIP library's prefix (cublas -> hipblas, cusolverDn -> hipsolverDn, CUBLAS -> HIPBLAS, ...), "
            "whose names follow cuBLAS's, cuSPARSE's, cuSOLVER's; `cuda` and `CU` are left (namespaces, "
            "file names).",
        ),
    ),
    fixtures=("calls/hip64/prefix_macro*",),
)
