"""`T (*p)[n][m] = (T (*)[n][m])q;` with run-time bounds -> `auto p = (T (*)[n][m])q;` (HIP228).

GNU C++ takes variable-length arrays as an extension, and host code of C programs ported to CUDA uses
pointers to them to index a flat buffer as a 3-D array (NPB-GPU's MG: `double (*u)[n2][n1] = (double
(*)[n2][n1])pointer_u;`, n1 and n2 the function's parameters). nvcc's host compiler (GCC) accepts the
declaration; clang, which hipcc is, rejects it: each spelling of a variably modified type is a type of
its own, so the cast's type does not convert to the variable's ("cannot initialize a variable of type
'double (*)[n2][n1]' with an rvalue of type 'double (*)[n2][n1]'"). Declared with `auto`, the variable
takes the cast's own type: the same type GCC gives it, and the same code. Only where the cast's type is
the declared one, spelled alike, and a bound names a variable (not a macro, a name the file declares
`constexpr` or `const`, a template's parameter, an enumerator or an upper-case name: no variable-length
array there, and nothing to change).

The parse reads such a declaration as an expression (`double(*u)` a call), so this is textual.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# TYPE (*NAME)[..][..] = (TYPE (*)[..][..]): groups type, name, bounds, cast type, cast bounds
_DECLARATION = lazy(
    rb"(?<![\w$.>:])((?:const[ \t]+|volatile[ \t]+)*[A-Za-z_][\w:]*(?:[ \t]+(?:const|long|int|short))*)"
    rb"[ \t]*\([ \t]*\*[ \t]*([A-Za-z_]\w*)[ \t]*\)((?:[ \t]*\[[^\]\n;]+\])+)[ \t]*=[ \t]*"
    rb"\([ \t]*((?:const[ \t]+|volatile[ \t]+)*[A-Za-z_][\w:]*(?:[ \t]+(?:const|long|int|short))*)"
    rb"[ \t]*\([ \t]*\*[ \t]*\)((?:[ \t]*\[[^\]\n;]+\])+)[ \t]*\)"
)
_WORD = lazy(rb"[A-Za-z_]\w*")
_BRACKETED = lazy(rb"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")
_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
# names the file declares constant: `constexpr int max_D1D = ...` (MFEM's kernels), `const int n = 4`,
# a template's value parameter, an enumerator: no variable-length array has such a bound
_CONSTANT = lazy(rb"\b(?:constexpr|const)\b[^;=(){}]*?\b([A-Za-z_]\w*)[ \t]*=")
_TEMPLATE_VALUE = lazy(rb"\btemplate[ \t\n]*<([^<>]*)>")
_ENUMERATORS = lazy(rb"\benum\b[^{;]*\{([^}]*)\}")
_NOT_VARIABLES = frozenset({b"sizeof", b"alignof", b"static_cast", b"int", b"long", b"unsigned", b"size_t"})


def vla_pointer_casts(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"(*)[" not in ctx.source.replace(b" ", b""):
        return result
    constant = _constants(ctx.source)
    for m, where in ctx.code_matches(_DECLARATION):
        if where not in REWRITABLE or ctx.is_protected(m.start()):
            continue
        if _squeeze(m.group(1)) != _squeeze(m.group(4)) or _squeeze(m.group(3)) != _squeeze(m.group(5)):
            continue  # a cast to another type: not the declaration's own
        if not _runtime_bound(m.group(3), constant) or not _one_declarator(ctx.source, m.end()):
            continue
        start = m.start(1)
        if ctx.source[max(0, start - 7) : start].rstrip().endswith((b"static", b"extern")):
            continue  # no variable-length array has static storage: a constant bound the pattern misread
        result.edits.append(Edit(start, m.end(3), b"auto " + m.group(2)))
        message = (
            f"`{m.group(2).decode()}` points to a variable-length array: declared with `auto`, it takes "
            "the cast's type (clang gives each spelling of such a type a type of its own)"
        )
        result.diagnostics.append(ctx.diag("HIP228", start, m.end(3), message))
    return result


def _squeeze(text: bytes) -> bytes:
    return b"".join(text.split())


def _constants(source: bytes) -> frozenset[bytes]:
    """The file's macros and the names it declares constant (any scope: a bound naming one is no VLA)."""
    names = set(_DEFINE.findall(source)) | set(_CONSTANT.findall(source))
    for m in _TEMPLATE_VALUE.finditer(source):
        names.update(_WORD.findall(m.group(1)))  # typename T too: harmless, a type is no bound
    for m in _ENUMERATORS.finditer(source):
        names.update(e.split(b"=")[0].strip() for e in m.group(1).split(b","))
    return frozenset(names)


def _runtime_bound(bounds: bytes, constant: frozenset[bytes]) -> bool:
    """A bound names a variable: a word that is no constant of the file, no keyword and not upper case."""
    return any(
        w not in constant and w not in _NOT_VARIABLES and not w.isupper() for w in _WORD.findall(bounds)
    )


def _one_declarator(source: bytes, at: int) -> bool:
    """The declaration ends with this declarator's initialiser: no `, q = ...` follows outside brackets."""
    end = source.find(b";", at)
    if end < 0:
        return False
    rest = source[at:end]
    while (inner := _BRACKETED.sub(b"", rest)) != rest:
        rest = inner
    return b"," not in rest


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={41: vla_pointer_casts},
    texts=(
        Rule(
            "HIP228",
            "vla-pointer-cast",
            Severity.INFO,
            "A pointer to a variable-length array initialised by a cast: declared with `auto`",
            "Nothing to do; the variable has the type GCC gives it.",
            "GNU C++ takes variable-length arrays as an extension (`double (*u)[n2][n1] = (double "
            "(*)[n2][n1])p;` with n1 and n2 variables, to index a flat buffer as a 3-D array; NPB-GPU). "
            "nvcc's host compiler, GCC, accepts the declaration; clang, which hipcc is, gives each spelling "
            "of a variably modified type a type of its own and rejects the initialisation. Declared with "
            "`auto`, the variable takes the cast's type, which is the one GCC gives it.",
        ),
    ),
    fixtures=("cxx/vla_pointer_casts*",),
)
