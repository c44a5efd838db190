"""`X<T>::f<N>(...)` in a template becomes `X<T>::template f<N>(...)` (HIP138, info).

A member template named through a dependent scope (the scope, or one of its template arguments, is a
template parameter of the code around the call) needs the `template` keyword before its name
([temp.names]): otherwise the `<` is a less-than. nvcc's front end accepts the call without it and reads
a template; clang (every HIP release) reads a comparison and fails: `reference to overloaded function
could not be resolved`, or `use 'template' keyword to treat 'f' as a dependent template name`. The
keyword is what the standard asks for and what nvcc understood, so it is inserted. Only calls are
rewritten (the name parses as a template call: `f<...>(`); member access through a dependent object
(`obj.f<N>()`) needs the object's type and is not covered. A member template named as a type after
`typename` (`typename std::allocator_traits<A>::rebind_alloc<T>`) is the same case and gets it too.
"""

from __future__ import annotations

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.templates import template_parameters
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_CANDIDATE = lazy(rb"::[ \t]*([A-Za-z_]\w*)[ \t]*<")
_NAMES = ("identifier", "type_identifier", "namespace_identifier")


def insert_template_keywords(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"template" not in source or b"::" not in source:
        return result
    for m in _CANDIDATE.finditer(source):
        start, end = m.span(1)
        scopes = _call_scopes(ctx.root.descendant_for_byte_range(start, end))
        if not scopes:  # most candidates (`std::vector<int> v;`): no tree walk, no token class
            continue
        params = template_parameters(source, scopes[0])
        if not params or not any(_mentions(source, scope, params) for scope in scopes):
            continue
        if not ctx.is_protected(start) and ctx.classify(start, end) in REWRITABLE:
            result.edits.append(Edit(start, start, b"template "))
            name = source[start:end].decode()
            message = f"'{name}' is a member template of a dependent scope: written 'template {name}'"
            result.diagnostics.append(ctx.diag("HIP138", start, end, message))
            result.counts["template_keyword"] += 1
    return result


def _call_scopes(name: Node | None) -> list[Node]:
    """The scopes of `A<T>::B::name<...>(...)` when `name` is such a call's template name, or of
    `typename A<T>::name<...>` (BGHT's `typename std::allocator_traits<A>::rebind_alloc<T>`) when it
    names such a type, else []."""
    if name is None or name.type not in ("identifier", "type_identifier"):
        return []
    kind = "template_function" if name.type == "identifier" else "template_type"
    named = name.parent
    if named is None or named.type != kind or named.child_by_field_name("name") != name:
        return []
    found = _qualified(named)
    if found is None:
        return []
    scopes, top = found
    if kind == "template_type":  # a type: only after `typename`, where the scope is dependent
        return scopes if scopes and top.parent is not None and top.parent.type == "dependent_type" else []
    call = top.parent
    if call is None or call.type != "call_expression" or call.child_by_field_name("function") != top:
        return []
    return scopes


def _qualified(node: Node) -> tuple[list[Node], Node] | None:
    """The scopes of the qualified names `node` is the last part of, and the outermost of them; None
    where `node` is a scope itself."""
    scopes: list[Node] = []
    while (parent := node.parent) is not None and parent.type == "qualified_identifier":
        if parent.child_by_field_name("name") != node:
            return None
        scope = parent.child_by_field_name("scope")
        if scope is not None:
            scopes.append(scope)
        node = parent
    return scopes, node


def _mentions(source: bytes, scope: Node, params: frozenset[bytes]) -> bool:
    stack = [scope]
    while stack:
        node = stack.pop()
        if node.type in _NAMES and source[node.start_byte : node.end_byte] in params:
            return True
        stack.extend(node.children)
    return False


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={170: insert_template_keywords},
    texts=(
        Rule(
            "HIP138",
            "template-keyword-inserted",
            Severity.INFO,
            "Member template of a dependent scope called without `template`: the keyword was inserted",
            "Nothing to do; the keyword is standard C++ and nvcc accepts it too.",
            "In a template, `X<T>::f<N>(args)` names a member template through a scope that depends on a "
            "template parameter; C++ requires `X<T>::template f<N>(args)`. nvcc's front end accepts the "
            "call without the keyword and reads a template; clang, which every hipcc uses, reads the `<` as "
            'less-than and fails ("reference to overloaded function could not be resolved", "use '
            "'template' keyword to treat 'f' as a dependent template name\"). Calls through `::` and types "
            "after `typename` (`typename std::allocator_traits<A>::rebind_alloc<T>`) are rewritten; "
            "`obj.f<N>()` on an object of dependent type needs `obj.template f<N>()` by hand.",
        ),
    ),
    fixtures=("cxx/template_keyword",),
)
