"""WMMA (`<mma.h>`, namespace nvcuda::wmma): reported where it is used, dropped where it is not.

HIP has no WMMA: AMD's rocWMMA has a similar API, but its fragments belong to a 64-lane wavefront, so a
kernel's warp arithmetic must be revisited by hand (headers.yaml says so at the include, HIP101).
- A use of the API (`wmma::fragment`, `nvcuda::wmma::mma_sync`, `using namespace nvcuda;` before
  `wmma::` names) in a file that does not include `<mma.h>` itself (the names came through a project
  header) is an error finding too (HIP101): before, such a file got none.
- A file that uses none of it (NWQ-Sim's sv_cuda.cuh includes `<mma.h>` and opens `using namespace
  nvcuda;` for nothing) gets the include and the using-directive commented out (HIP160, info), so it
  compiles; a file that includes it and uses names from it keeps the include's HIP101.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_INCLUDE = lazy(rb"^[ \t]*#[ \t]*include[ \t]*<mma\.h>[^\n]*", re.M)
_USING = lazy(rb"\busing\s+namespace\s+nvcuda\s*;")
# a name of the API: nvcuda::... (not the using-directive), or wmma::... where the file does not
# declare a wmma of its own (`namespace wmma = rocwmma;` in HIP code)
_USE = lazy(rb"\bnvcuda\s*::\s*\w+|(?<![\w:])wmma\s*::\s*\w+")
_OWN_WMMA = lazy(rb"\bnamespace\s+wmma\b")
_SETTLES = frozenset({"HIP101"})
_HINT = "rocWMMA (rocwmma/rocwmma.hpp) has a similar API for 64-lane wavefronts: port the kernel by hand"


def wmma(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if b"mma.h" not in src and b"nvcuda" not in src and b"wmma" not in src:
        return result
    if _OWN_WMMA.search(src) is not None:
        return result  # the file's own wmma (rocWMMA's alias): HIP code
    uses = [m for m, where in ctx.code_matches(_USE) if where in REWRITABLE]
    includes = [
        m
        for m in _INCLUDE.finditer(src)
        if not ctx.is_protected(m.start()) and ctx.classify(m.start(), m.start() + 1) in REWRITABLE
    ]
    usings = [m for m, where in ctx.code_matches(_USING) if where in REWRITABLE]
    if uses:
        if not includes:
            first = uses[0]
            message = f"`{first.group().decode()}`: WMMA (nvcuda::wmma) has no HIP counterpart; {_HINT}"
            result.diagnostics.append(ctx.diag("HIP101", first.start(), first.end(), message))
            result.counts["unsupported"] += 1
        return result
    for m in (*includes, *usings):
        text = m.group()
        result.edits.append(Edit(m.start(), m.end(), b"// hipify-py: HIP has no WMMA: " + text.lstrip()))
        what = "<mma.h>" if m in includes else "`using namespace nvcuda;`"
        message = f"{what} commented out: HIP has no WMMA, and this file uses none of it"
        result.diagnostics.append(ctx.diag("HIP160", m.start(), m.end(), message))
        result.settled.append((m.start(), m.end(), _SETTLES))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={29: wmma},
    texts=(
        Rule(
            "HIP160",
            "unused-wmma",
            Severity.INFO,
            "WMMA included or opened but not used: commented out",
            "Nothing to do; if another file used WMMA through this header, it is reported there (HIP101).",
            "HIP has no <mma.h> and no namespace nvcuda (rocWMMA is a different library, for 64-lane "
            "wavefronts). A file that includes <mma.h> or opens `using namespace nvcuda;` and names "
            "nothing of WMMA would fail only on the include or the directive: both are commented out. "
            "A file that uses WMMA names keeps its HIP101, at the include or, where the names come "
            "through another header, at the first use.",
        ),
    ),
    fixtures=("identifiers/*/wmma_*",),
)
