"""`__restrict__ T *p` -> `T *__restrict__ p` (HIP173).

nvcc accepts `__restrict__` among a pointer declaration's specifiers (`__restrict__ T *out_base =
...;`: Legion's transpose copy) and applies it to the pointer; clang rejects it there once T is known
("restrict requires a pointer or reference ('float' is invalid)"). Where every declarator of the
declaration is a pointer, the qualifier moves after each one's `*`, where both compilers read it the
same way.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_RESTRICT = lazy(rb"(?<![\w$])__restrict(?:__)?(?![\w$])")
_HOLDERS = frozenset({"declaration", "parameter_declaration", "field_declaration"})


def move_restrict(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"__restrict" not in source:
        return result
    for m in _RESTRICT.finditer(source):
        if ctx.is_protected(m.start()):
            continue
        qualifier = ctx.root.descendant_for_byte_range(m.start(), m.end())
        while qualifier is not None and qualifier.type != "type_qualifier":
            qualifier = qualifier.parent if qualifier.end_byte <= m.end() else None
        holder = qualifier.parent if qualifier is not None else None
        if qualifier is None or holder is None or holder.type not in _HOLDERS:
            continue
        stars = [_star(d) for d in holder.children_by_field_name("declarator")]
        if not stars or any(s is None for s in stars):
            continue  # a declarator that is no pointer: nothing for the qualifier to move to
        end = qualifier.end_byte
        while end < len(source) and source[end] in b" \t":
            end += 1
        result.edits.append(Edit(qualifier.start_byte, end, b""))
        for star in stars:
            assert star is not None
            result.edits.append(Edit(star + 1, star + 1, m.group() + b" "))
        message = f"`{m.group().decode()}` before the type: clang takes it only after the pointer's `*`"
        result.diagnostics.append(ctx.diag("HIP173", qualifier.start_byte, qualifier.end_byte, message))
    return result


def _star(declarator: Node) -> int | None:
    """The offset of the `*` of a pointer declarator (or of an initialised one), unless it is already
    restrict-qualified."""
    if declarator.type == "init_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return None
        declarator = inner
    if declarator.type != "pointer_declarator" or not declarator.children:
        return None
    first = declarator.children[0]
    if first.type != "*" or any(c.type == "type_qualifier" for c in declarator.children[1:-1]):
        return None
    return first.start_byte


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={39: move_restrict},
    texts=(
        Rule(
            "HIP173",
            "restrict-placement",
            Severity.INFO,
            "`__restrict__` before a pointer's type: moved after its `*`",
            "Nothing to do; the pointer is restrict-qualified as nvcc read it.",
            "nvcc accepts `__restrict__ T *p` (the qualifier among the declaration's specifiers) and applies "
            'it to the pointer; clang rejects it once T is known ("restrict requires a pointer or '
            'reference"). Where every declarator of the declaration is a pointer, the qualifier moves '
            "after each one's `*`: `T *__restrict__ p`, which both compilers read the same way.",
        ),
    ),
    fixtures=("cxx/restrict_placement*",),
)
