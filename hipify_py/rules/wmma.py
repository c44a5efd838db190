"""WMMA (`<mma.h>`, namespace nvcuda::wmma): reported where it is used, dropped where it is not.

HIP has no WMMA: AMD's rocWMMA has a similar API, but its fragments belong to a 64-lane wavefront, so a
kernel's warp arithmetic must be revisited by hand (headers.yaml says so at the include, HIP101).
- A use of the API (`wmma::fragment`, `nvcuda::wmma::mma_sync`, `using namespace nvcuda;` before
  `wmma::` names) in a file that does not include `<mma.h>` itself (the names came through a project
  header) is an error finding too (HIP101): before, such a file got none.
- `using namespace nvcuda;` gets an empty `namespace nvcuda {}` declared at the top of the file (HIP160,
  info): the directive compiles on AMD, and on HIP's NVIDIA platform the declaration only reopens CUDA's
  namespace. NWQ-Sim opens it unconditionally and uses WMMA only under a project option.
- A file that includes `<mma.h>` and uses none of it (NWQ-Sim's sv_cuda.cuh) gets the include commented
  out (HIP160), so it compiles; a file that includes it and uses names from it keeps the include's HIP101.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.includes import include_position
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_INCLUDE = lazy(rb"^[ \t]*#[ \t]*include[ \t]*<mma\.h>[^\n]*", re.M)
_USING = lazy(rb"\busing\s+namespace\s+nvcuda\s*;")
# at global scope, where the file's includes start (a directive inside a namespace finds it there)
_EMPTY = b"namespace nvcuda {}  // hipify-py: HIP has no WMMA; `using namespace nvcuda;` compiles\n"
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
    if usings and _EMPTY.rstrip() not in src:
        result.requests.append(Insertion.helper(include_position(ctx), _EMPTY))
    for m in usings:
        message = (
            "`using namespace nvcuda;`: HIP has no namespace nvcuda (WMMA); an empty one is declared at the "
            "top, so the directive compiles, and WMMA names are reported where they are used"
        )
        result.diagnostics.append(ctx.diag("HIP160", m.start(), m.end(), message))
    if uses:
        if not includes:
            first = uses[0]
            message = f"`{first.group().decode()}`: WMMA (nvcuda::wmma) has no HIP counterpart; {_HINT}"
            result.diagnostics.append(ctx.diag("HIP101", first.start(), first.end(), message))
            result.counts["unsupported"] += 1
        return result
    for m in includes:
        text = m.group()
        result.edits.append(
            Edit(m.start(), m.end(), b"/* hipify-py: HIP has no WMMA: " + text.lstrip() + b" */")
        )
        message = "<mma.h> commented out: HIP has no WMMA, and this file uses none of it"
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
            "WMMA's header where nothing uses it, or `using namespace nvcuda;`: made to compile",
            "Nothing to do; if another file used WMMA through this header, it is reported there (HIP101).",
            "HIP has no <mma.h> and no namespace nvcuda (rocWMMA is a different library, for 64-lane "
            "wavefronts). `using namespace nvcuda;` gets an empty `namespace nvcuda {}` at the top of the "
            "file, so the directive compiles (on HIP's NVIDIA platform it reopens CUDA's namespace); an "
            "include of "
            "<mma.h> in a file that names nothing of WMMA is commented out. A file that uses WMMA names "
            "keeps its HIP101, at the include or, where the names come through another header, at the "
            "first use.",
        ),
    ),
    fixtures=("identifiers/*/wmma_*",),
)
