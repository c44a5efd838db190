"""CUDA-looking names that are in no mapping table (HIP102), minus what the file declares itself."""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import EXTRA_CUDA_FAMILIES, USER_HELPER_NAME
from hipify_py.data.tables import Tables, word_matches
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import NOT_A_TYPE, Scan, declares, match_text, report
from hipify_py.rules.detectors.libraries import LIBRARY_USE
from hipify_py.rules.detectors.versions import VERSION_MACRO
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

# `\b(?:cuda[A-Z]\w*|CU[a-z]\w*|cu(?:blas|...)?[A-Z][a-z]\w*|CU(?:DA|...)?_[A-Z]...|nvrtc[A-Z]\w*)\b` with
# each branch's first letter first and the word boundary checked behind it (`c(?<!\wc)` == `\bc`):
# the engine then searches for the letters instead of trying every byte. A match is a whole word either
# way, so the branches' grouping by first letter finds the same words.
_CUDA_LOOKING = lazy(
    rb"(?:c(?<!\wc)u(?:da[A-Z]\w*|(?:blas|blasLt|fft|rand|sparse|solver|solverDn|solverSp|dnn)?[A-Z][a-z]\w*)"
    rb"|C(?<!\wC)U(?:[a-z]\w*|(?:DA|BLAS|FFT|RAND|SPARSE|SOLVER|DNN)?_[A-Z][A-Z0-9_]*[A-Z0-9])"
    rb"|n(?<!\wn)vrtc[A-Z]\w*)\b"
)


def unknown_cuda_names(ctx: Context, scan: Scan) -> RuleResult:
    tables = ctx.tables
    # why a set first: a file names each CUDA API many times, nearly all of them known; deciding per
    # distinct name (and skipping the scan when none is unknown) keeps the per-match work in C
    unknown = {
        name
        # a superset of the names the pattern finds in the source, from fewer bytes (ctx.identifier_text)
        for name in set(_CUDA_LOOKING.findall(ctx.identifier_text))
        if not _known(name, tables)
        and not VERSION_MACRO.fullmatch(name)
        and not LIBRARY_USE.fullmatch(name)  # HIP110 reports these libraries
        and not USER_HELPER_NAME.match(name)
    }
    unknown = {n for n in unknown if _cuda_family(n, tables)} if unknown else unknown
    unknown -= _declared_names(ctx, unknown) if unknown else set()
    if not unknown:
        return RuleResult()
    src = ctx.source
    return report(
        *(
            ctx.diag(
                "HIP102", m.start(), m.end(), f"`{match_text(m)}` looks like a CUDA API but is in no table"
            )
            for m in scan.code(
                _CUDA_LOOKING, keep=lambda m: m.group() in unknown and not _QUALIFIER.match(src, m.end())
            )
        )
    )


def _known(name: bytes, tables: Tables) -> bool:
    if name in tables.names:  # bytes lookup first: most CUDA names in a file are renamed ones
        return True
    mappings = tables.mappings
    text = name.decode("ascii", "replace")
    return text in mappings.by_cuda or text in mappings.by_hip


_SCREAMING = lazy(rb"([A-Z][A-Z0-9]*_[A-Z0-9]+_)[A-Z0-9_]*[A-Z0-9]")


def _cuda_family(name: bytes, tables: Tables) -> bool:
    """A SCREAMING_CASE name of 3+ words belongs to a family of real CUDA constants (CU_TENSOR_MAP_*):
    its first two words start a table name. `CUDA_NUM_THREADS`, `CUFFT_MAX_PLAN_NUM` are project macros."""
    m = _SCREAMING.fullmatch(name)
    if m is None:
        return True
    family = m.group(1)
    if family in EXTRA_CUDA_FAMILIES:
        return True
    return family.decode("ascii") in tables.two_word_prefixes  # some table name starts with it


_QUALIFIER = lazy(rb"\s*::(?!\s*\*)")  # `cublasGemmDispatcher::run`: a class or namespace of the user
_WORD = lazy(rb"\b(\w+)")


def _declared_names(ctx: Context, names: set[bytes]) -> set[bytes]:
    """Names this file declares or defines anywhere (also in branches hipcc skips): macros, classes,
    template parameters, variables, functions, and names used as `Name::` qualifiers."""
    src = ctx.source
    declared: set[bytes] = set()
    for m in word_matches(src, names, _WORD):  # `\b(?:name1|name2|...)\b`, not compiled per file
        name = m.group()
        if name in declared:
            continue
        node = ctx.root.descendant_for_byte_range(m.start(), m.end())
        if (node is not None and declares(node)) or _QUALIFIER.match(src, m.end()):
            declared.add(name)
    for name in names - declared:
        esc = re.escape(name)
        lexical = compiled(  # why not re.compile: a few ms each, the same when the file is converted again
            rb"#[ \t]*define[ \t]+" + esc + rb"\b"
            rb"|\b(?:class|struct|union|enum(?:\s+class)?)\s+" + esc + rb"\s*(?:[:{]|final\b)"
            rb"|\b(?:typename|class|namespace)\s+" + esc + rb"\s*[,>={]"
            rb"|(?:\b(\w+)|>)[\s*&]+" + esc + rb"\s*(?:=(?!=)|;|\[|\{|,|\))"
            # a function definition: `static cudaError_t MACRO cudaLaunchX(...) {` (attribute macros
            # make tree-sitter misparse these)
            rb"|(?:\b(\w+)|>)[\s*&]+" + esc + rb"\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{"
        )
        if any((d.group(1) or d.group(2)) not in NOT_A_TYPE for d in lexical.finditer(src)):
            declared.add(name)
    return declared


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((230, unknown_cuda_names, ()),),
    texts=(
        Rule(
            "HIP102",
            "unknown-cuda-api",
            Severity.WARNING,
            "CUDA-looking identifier that is in no mapping table",
            "Check whether this is a CUDA API (then port it by hand) or a name of your own (then rename it "
            "or silence with `// hipify-py: ignore[HIP102]`).",
            "Identifiers that look like CUDA API names (cuda*, cu*, CU*) but are unknown to every mapping "
            "table are likely newer CUDA APIs the tables do not track yet. Names the file declares "
            "(anywhere, also in CUDA-only branches), `Name::` qualifiers, error-check helpers (CUDA_CHECK, "
            "CUFFT_CHECK, CUDA_KERNEL_ASSERT) and SCREAMING_CASE names outside every known constant family "
            "(CUDA_NUM_THREADS) are not reported; nor is code hipcc never compiles.",
        ),
    ),
    fixtures=("detectors/unknown_names*",),
)
