"""A forward declaration of a CUDA library struct whose HIP counterpart is a typedef (HIP166).

madgraph4gpu's RandomNumberKernels.h declares `struct curandGenerator_st;` so that the header need not
include curand.h. hipRAND's counterpart, hiprandGenerator_st, is not a struct but a typedef of one
(`typedef struct rocrand_generator_base_type hiprandGenerator_st;` on AMD, of CUDA's own struct on HIP's
NVIDIA platform), so the renamed `struct hiprandGenerator_st;` clashes with hiprand.h's typedef ("typedef
redefinition with different types"). The declaration becomes hipRAND's own typedef, per platform: a
repeated identical typedef is valid C++, so hiprand.h may follow. Only a declaration alone on its lines at
file scope is rewritten; the structs: data/detector_data.py FORWARD_TYPEDEF_STRUCTS.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import FORWARD_TYPEDEF_STRUCTS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_DECLARATION = lazy(
    rb"^[ \t]*(struct[ \t]+(" + b"|".join(FORWARD_TYPEDEF_STRUCTS) + rb")[ \t]*;)[ \t]*(?://[^\n]*)?$",
    re.MULTILINE,
)
_NESTED = frozenset(
    {"namespace_definition", "field_declaration_list", "compound_statement", "linkage_specification"}
)
_SETTLES = frozenset({"HIP101", "HIP102"})


def typedef_forward_structs(ctx: Context) -> RuleResult:
    result = RuleResult()
    if not any(name in ctx.source for name in FORWARD_TYPEDEF_STRUCTS):
        return result
    nl = newline_of(ctx.source).decode()
    for m, where in ctx.code_matches(_DECLARATION):
        start, end = m.span(1)
        if (
            where not in REWRITABLE
            or _nested(ctx, start)
            or any(a <= start < b for a, b in ctx.branches.dead)
        ):
            continue
        cuda = m.group(2)
        hip, amd_tag = FORWARD_TYPEDEF_STRUCTS[cuda]
        text = nl.join(
            (
                "#if defined(__HIPCC__) && defined(__HIP_PLATFORM_NVIDIA__)",  # a second run skips HIP code
                f"typedef struct {cuda.decode()} {hip.decode()};",
                "#else",
                f"typedef struct {amd_tag.decode()} {hip.decode()};",
                "#endif",
            )
        )
        result.edits.append(Edit(start, end, text.encode(), covers=True))
        result.settled.append((start, end, _SETTLES))
        message = (
            f"`struct {cuda.decode()};`: HIP's {hip.decode()} is a typedef of another struct; "
            "the declaration is that typedef"
        )
        result.diagnostics.append(ctx.diag("HIP166", start, end, message))
    return result


def _nested(ctx: Context, at: int) -> bool:
    """Inside a namespace, class, function or `extern "C++" {}`: the struct is another one."""
    node = ctx.root.descendant_for_byte_range(at, at)
    while node is not None:
        if node.type in _NESTED:
            return True
        node = node.parent
    return False


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={35: typedef_forward_structs},
    texts=(
        Rule(
            "HIP166",
            "forward-struct-typedef",
            Severity.INFO,
            "A forward declaration of a CUDA library struct whose HIP counterpart is a typedef: that typedef",
            "Nothing to do; hiprand.h may follow the declaration.",
            "`struct curandGenerator_st;` lets a header name cuRAND's generator without curand.h. hipRAND's "
            "hiprandGenerator_st is `typedef struct rocrand_generator_base_type hiprandGenerator_st;` on AMD "
            "(CUDA's struct on HIP's NVIDIA platform), so `struct hiprandGenerator_st;` would clash with "
            "hiprand.h. The declaration becomes hipRAND's typedef for each platform, which hiprand.h may "
            "repeat.",
        ),
    ),
    fixtures=("calls/forward_struct*",),
)
