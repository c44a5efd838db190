"""Finding the user's free operators in a file and reading their signatures (rules/vector_ops.py).

An operator counts at namespace scope (also inside #if blocks and header guards), not as a class member,
outside dead branches and protected regions; its parameters are read as spelled (`const`, `&`, `&&`),
its `__host__`/`__device__` qualifiers after expanding the file's own macros, and a short body as the
token texts of each statement, for the proofs that it does what HIP's operator does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from hipify_py.analysis.context import Context, Where
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.engine.parser import Node
from hipify_py.util.lazyre import lazy

_OPERATOR = lazy(rb"\boperator\s*(\+\+|--|<<=?|>>=?|[=!]=|[-+*/%^|&]=?)\s*\(")
# namespace scope, also inside #if blocks and header guards (not a class: a member is another story)
_SCOPE_OK = frozenset(
    {
        "translation_unit",
        "declaration_list",
        "linkage_specification",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
        "preproc_elifdef",
    }
)
_KEYWORDS = frozenset(
    {
        b"inline",
        b"static",
        b"extern",
        b"constexpr",
        b"__forceinline__",
        b"__inline__",
        b"__noinline__",
        b"__global__",
    }
)


class Param(NamedTuple):
    type: bytes  # spelled without const/&: b"float4", b"float", b"unsigned int"
    const: bool
    ref: str  # "", "&" or "&&"
    name: bytes


class Operator(NamedTuple):
    node: Node  # function_definition or declaration
    op: str
    params: tuple[Param, ...]
    returns: bytes  # return type spelled as text, `&` included
    body: Node | None
    stmts: tuple[tuple[bytes, ...], ...] | None  # the body's statements as tokens, when short
    qualifiers: frozenset[bytes] | None  # {__host__, __device__} after macro expansion; None: unknown macro
    declarator_end: int  # where the function declarator ends (a declaration's `;` should follow)


def operators(ctx: Context, macros: dict[bytes, bytes]) -> Iterator[Operator]:
    seen: set[int] = set()
    for m in _OPERATOR.finditer(ctx.source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(), m.start() + 8) != Where.CODE:
            continue
        node = ctx.root.descendant_for_byte_range(m.start(), m.start() + 8)
        while node is not None and node.type != "operator_name":
            node = node.parent if node.type not in ("translation_unit", "compound_statement") else None
        if node is None or node.parent is None or node.parent.type != "function_declarator":
            continue
        declarator = node.parent
        owner = declarator.parent
        while owner is not None and owner.type in ("reference_declarator", "pointer_declarator"):
            owner = owner.parent
        if (
            owner is None
            or owner.type not in ("function_definition", "declaration")
            or owner.start_byte in seen
        ):
            continue
        if owner.parent is None or owner.parent.type not in _SCOPE_OK or _skipped(ctx, owner):
            continue
        seen.add(owner.start_byte)
        parsed = _parse(ctx, owner, declarator, m.group(1).decode(), macros)
        if parsed is not None:
            yield parsed


def _skipped(ctx: Context, node: Node) -> bool:
    start = node.start_byte
    return ctx.is_protected(start) or any(a <= start < b for a, b in ctx.branches.dead)


def _parse(
    ctx: Context, owner: Node, declarator: Node, op: str, macros: dict[bytes, bytes]
) -> Operator | None:
    source = ctx.source
    params_node = declarator.child_by_field_name("parameters")
    if params_node is None:
        return None
    params = []
    for p in params_node.named_children:
        if p.type == "comment":
            continue
        if p.type != "parameter_declaration":
            return None
        parsed = _param(source, p)
        if parsed is None:
            return None
        params.append(parsed)
    head = source[owner.start_byte : declarator.start_byte]
    body = owner.child_by_field_name("body") if owner.type == "function_definition" else None
    return Operator(
        node=owner,
        op=op,
        params=tuple(params),
        returns=_return_type(source, owner, declarator, macros),
        body=body,
        stmts=_statements(source, body),
        qualifiers=_qualifiers(head, macros),
        declarator_end=declarator.end_byte,
    )


def _qualifiers(head: bytes, macros: dict[bytes, bytes], depth: int = 0) -> frozenset[bytes] | None:
    """__host__/__device__ among the words before the declarator, expanding the file's own macros;
    None when a macro from elsewhere (HOST_DEVICE, __hostdev__) may stand for them."""
    found: set[bytes] = set()
    for word in IDENTIFIER.findall(head):
        if word in (b"__host__", b"__device__"):
            found.add(word)
        elif word in macros:
            inner = _qualifiers(macros[word], macros, depth + 1) if depth < 4 else None
            if inner is None:
                return None
            found |= inner
        elif word not in _KEYWORDS and (word.isupper() or word.startswith(b"__")):
            return None
    return frozenset(found)


def _return_type(source: bytes, owner: Node, declarator: Node, macros: dict[bytes, bytes]) -> bytes:
    type_node = owner.child_by_field_name("type")
    text = b"" if type_node is None else source[type_node.start_byte : type_node.end_byte]
    if text in macros:  # `FNQUALIFIERS inline double2& operator+=(...)`: the parser took the macro
        words = [
            w
            for w in IDENTIFIER.findall(source[owner.start_byte : declarator.start_byte])
            if w not in macros and w not in _KEYWORDS and w not in (b"__host__", b"__device__", b"const")
        ]
        text = b" ".join(words)
    wrapper = declarator.parent
    if wrapper is not None and wrapper.type == "reference_declarator":
        text += b"&"
    return text


def _param(source: bytes, p: Node) -> Param | None:
    type_node = p.child_by_field_name("type")
    if type_node is None:
        return None
    const = any(c.type == "type_qualifier" and c.text == b"const" for c in p.children)
    declarator = p.child_by_field_name("declarator")
    ref = ""
    name = b""
    cur = declarator
    while cur is not None and cur.type != "identifier":
        if cur.type == "reference_declarator":
            ref = "&&" if b"&&" in source[cur.start_byte : cur.start_byte + 3] else "&"
        elif cur.type != "reference_declarator":
            return None  # pointers, arrays: not a vector operand
        cur = cur.child_by_field_name("declarator") or next(
            (c for c in cur.named_children if c.type in ("identifier", "reference_declarator")), None
        )
    if cur is not None:
        name = source[cur.start_byte : cur.end_byte]
    spelled = b" ".join(source[type_node.start_byte : type_node.end_byte].split())
    if type_node.type == "qualified_identifier":
        spelled = b"::" + spelled  # my::float3 is not HIP's float3
    return Param(type=spelled, const=const, ref=ref, name=name)


def _statements(source: bytes, body: Node | None) -> tuple[tuple[bytes, ...], ...] | None:
    """Token texts of each statement of a short body (at most 4 components + `return`); None otherwise."""
    if body is None or body.named_child_count > 6:
        return None
    out = []
    for stmt in body.named_children:
        if stmt.type == "comment":
            continue
        leaves: list[bytes] = []
        stack = [stmt]
        while stack:
            cur = stack.pop()
            if cur.type == "comment":
                continue
            if cur.child_count == 0:
                leaves.append(source[cur.start_byte : cur.end_byte])
            else:
                stack.extend(reversed(cur.children))
        inner = leaves[2:-2]
        if leaves[:2] == [b"return", b"("] and leaves[-2:] == [b")", b";"] and _balanced_tokens(inner):
            leaves = [b"return", *inner, b";"]  # `return(v);` is `return v;`
        out.append(tuple(leaves))
    return tuple(out)


def _balanced_tokens(tokens: list[bytes]) -> bool:
    depth = 0
    for t in tokens:
        depth += (t == b"(") - (t == b")")
        if depth < 0:
            return False
    return depth == 0 and bool(tokens)
