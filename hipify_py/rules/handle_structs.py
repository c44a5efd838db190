"""The opaque struct behind a CUDA library handle, named in code, becomes `void` where the target's HIP
handle is `void*` (HIP163).

`typedef struct cublasContext *cublasHandle_t;`: code that owns a handle names the struct
(`std::unique_ptr<cublasContext, Deleter>`, Ginkgo's `handle_manager<cublasContext>`, mblas-bench), and
`std::remove_pointer_t<cublasHandle_t>` is that struct. hipBLAS, hipSPARSE, hipSOLVER and the external
memory/semaphore handles are `typedef void* NAME;` (scripts/probe_void_handles.py), so the handle's
pointee there is `void`: `std::unique_ptr<void, Deleter>` holds a hipblasHandle_t as the original held a
cublasHandle_t. The name was left as written with HIP101. An elaborated `struct cublasContext*` loses
its keyword too; a forward declaration (`struct cublasContext;`) or a definition stays. The structs and
their handles: data/detector_data.py HANDLE_STRUCTS.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import HANDLE_STRUCTS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.merge_sets import void_handles
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_USE = lazy(rb"(?<![\w$:.>])(?:(?:struct|class)\s+)?(" + b"|".join(HANDLE_STRUCTS) + rb")\b(?!\s*[;{:])")
_DECLARATION = lazy(rb"\b(?:struct|class)\s+(" + b"|".join(HANDLE_STRUCTS) + rb")\s*;")
# the findings of the identifier tables (no counterpart, no table) that `void` settles
_SETTLES = frozenset({"HIP101", "HIP102"})


def void_pointees(ctx: Context) -> RuleResult:
    result = RuleResult()
    if not any(name in ctx.source for name in HANDLE_STRUCTS):
        return result
    handles = void_handles(ctx.options.hip_version)
    for m, where in ctx.code_matches(_USE):
        name = m.group(1)
        hip = HANDLE_STRUCTS[name]
        if where not in REWRITABLE or hip.decode() not in handles:
            continue
        if any(a <= m.start() < b for a, b in ctx.branches.dead):
            continue  # a branch hipcc never compiles keeps CUDA's code
        result.edits.append(Edit(m.start(), m.end(), b"void", covers=True))
        result.settled.append((m.start(), m.end(), _SETTLES))
        message = f"`{name.decode()}` is the pointee of a handle that is `void*` in HIP ({hip.decode()})"
        result.diagnostics.append(ctx.diag("HIP163", m.start(1), m.end(1), message))
    for m, _ in ctx.code_matches(_DECLARATION):
        if HANDLE_STRUCTS[m.group(1)].decode() in handles:
            result.settled.append((m.start(1), m.end(1), _SETTLES))  # declares a struct of its own: compiles
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={32: void_pointees},
    texts=(
        Rule(
            "HIP163",
            "handle-struct-void",
            Severity.INFO,
            "The struct behind a CUDA library handle, where the HIP handle is `void*`: void",
            "Nothing to do; `std::remove_pointer_t<hipblasHandle_t>` says the same for any HIP release.",
            "CUDA's handles point to opaque structs (`typedef struct cublasContext *cublasHandle_t;`) that "
            "code names to own a handle (`std::unique_ptr<cublasContext, Deleter>`). hipBLAS, hipSPARSE, "
            "hipSOLVER and HIP's external memory handles are `void*` (scripts/probe_void_handles.py), so the "
            "struct's name becomes `void` (an elaborated `struct cublasContext` loses its keyword); a "
            "forward declaration or definition of the struct stays.",
        ),
    ),
    loads=(void_handles,),
    fixtures=("calls/hip64/handle_struct*",),
)
