"""`#define UNROLL #pragma unroll` -> `#define UNROLL _Pragma("unroll")` (HIP237).

nvcc takes a `#pragma` that a macro expands to as a pragma (moderngpu's `PRAGMA_UNROLL`, under
`#ifdef __CUDA_ARCH__`); clang takes the `#` for a stray token ("expected expression"). C99/C++11's
`_Pragma("...")` operator is the pragma a macro can produce, in both compilers. The widened device pass
(HIP143) is what turns such a macro on under hipcc; the rewrite holds wherever the macro is expanded.
Only an object-like macro whose body is one `#pragma` to the end of its (continued) line is rewritten;
a function-like macro's `#` is the stringizing operator.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# after the macro's name: blanks, `#`, `pragma`, then the pragma's text to the end of the line
_BODY = lazy(rb"[ \t]+#[ \t]*pragma[ \t]+([^\n\\]*?)[ \t]*(?:\r?\n|\Z)")


def rewrite_macro_pragmas(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"pragma" not in ctx.source:
        return result
    for line in ctx.define_lines:
        if line.group(2) is not None:
            continue  # function-like: `#` stringizes a parameter
        body = _BODY.match(ctx.source, line.end(1))
        if body is None or ctx.is_protected(line.start()) or not body.group(1):
            continue
        text = body.group(1)
        if b'"' in text or b"//" in text or b"/*" in text:
            continue  # a quoted or commented pragma text: left as written
        start, end = ctx.source.index(b"#", line.end(1)), body.end(1)
        result.edits.append(Edit(start, end, b'_Pragma("' + text + b'")'))
        message = f"`#pragma {text.decode('utf-8', 'replace')}` in a macro is `_Pragma(...)` for clang"
        result.diagnostics.append(ctx.diag("HIP237", start, end, message))
        result.counts["macro_pragmas"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={156: rewrite_macro_pragmas},
    texts=(
        Rule(
            "HIP237",
            "macro-pragma",
            Severity.INFO,
            "A `#pragma` a macro expands to is written `_Pragma(...)`",
            "Nothing to do; the macro expands to the same pragma under nvcc and hipcc.",
            "nvcc takes a `#pragma` that a macro expands to (`#define UNROLL #pragma unroll`) as a pragma; "
            'clang takes the `#` for a stray token and fails ("expected expression"). The body becomes '
            '`_Pragma("unroll")`, the standard operator both compilers read as the pragma. Only object-'
            "like macros whose body is one pragma are rewritten.",
        ),
    ),
    fixtures=("cxx/macro_pragma*",),
)
