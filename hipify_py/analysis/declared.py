"""The declared type of a name or expression, where the file itself says it (no guessing).

Rules that must not change a call's or an assignment's meaning ask here what type an argument or a
variable has: a literal's suffix, a cast, or the declaration in scope (a local before the use, a
parameter, a file-level variable, a member of a struct/class defined in the file). Typedefs and
aliases in the file and the fixed-width integer types (LP64: what hipcc targets on Linux) are
resolved. Anything else is unknown (None): the caller then does what is safe without the type.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType

from hipify_py.engine.parser import Node, ancestors
from hipify_py.util.lazyre import lazy

EMPTY: Mapping[bytes, bytes] = MappingProxyType({})

# LP64 (Linux x86_64 host and amdgcn device alike): the fixed-width typedefs' underlying types
STANDARD_TYPEDEFS = {
    b"int8_t": b"signed char",
    b"uint8_t": b"unsigned char",
    b"int16_t": b"short",
    b"uint16_t": b"unsigned short",
    b"int32_t": b"int",
    b"uint32_t": b"unsigned int",
    b"int64_t": b"long",
    b"uint64_t": b"unsigned long",
    b"intptr_t": b"long",
    b"uintptr_t": b"unsigned long",
    b"size_t": b"unsigned long",
    b"ssize_t": b"long",
    b"ptrdiff_t": b"long",
}
_QUALIFIERS = lazy(rb"\b(?:const|volatile|__restrict__|__restrict|restrict|struct|class|enum)\b")
_INT_LITERAL = lazy(rb"(?i)(?:0x[0-9a-f']+|0b[01']+|\d[\d']*)(?P<suffix>[ul]*)")
_FLOAT_LITERAL = lazy(
    rb"(?i)(?:\d[\d']*\.?[\d']*(?:e[+-]?\d+)?|\.\d[\d']*(?:e[+-]?\d+)?|0x[\w.]+p[+-]?\d+)(?P<suffix>[fl]?)"
)
_INT_SUFFIX = {
    b"": b"int",
    b"u": b"unsigned int",
    b"l": b"long",
    b"ul": b"unsigned long",
    b"lu": b"unsigned long",
    b"ll": b"long long",
    b"ull": b"unsigned long long",
    b"llu": b"unsigned long long",
}


_INT_AFTER = lazy(rb"\b(short|long|long long) int\b")
_INT_BEFORE = lazy(rb"\bint (short|long|long long)\b")
_SIGNED = lazy(rb"\bsigned (?=int|short|long)")
_BARE_UNSIGNED = lazy(rb"\bunsigned(?! (char|short|int|long))")
_WORD = lazy(rb"\w+")


def normal(text: bytes) -> bytes:
    """`unsigned long int const` -> `unsigned long`; `signed` and `int` spelled the short way."""
    words = b" ".join(_QUALIFIERS.sub(b" ", text).split())
    words = _INT_AFTER.sub(rb"\1", words)
    words = _INT_BEFORE.sub(rb"\1", words)
    words = _SIGNED.sub(b"", words)
    words = _BARE_UNSIGNED.sub(b"unsigned int", words)
    return words.strip()


def expression_type(source: bytes, node: Node, returns: Mapping[bytes, bytes] = EMPTY) -> bytes | None:
    """The type of an expression the file states: a literal, a cast, a declared name, or a call of a
    function in `returns` (name -> the one type it returns)."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    text = source[node.start_byte : node.end_byte]
    if node.type == "number_literal":
        return _literal_type(text)
    if node.type == "char_literal":
        return b"char" if text.startswith(b"'") else None
    if node.type in ("true", "false"):
        return b"bool"
    if node.type == "cast_expression":
        return resolve(source, node, _type_text(source, node.child_by_field_name("type")))
    if node.type == "call_expression":  # static_cast<T>(x), f(...)
        function = node.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            return returns.get(source[function.start_byte : function.end_byte])
        if function is not None and function.type == "template_function":
            name = function.child_by_field_name("name")
            args = function.child_by_field_name("arguments")
            if (
                name is not None
                and source[name.start_byte : name.end_byte] == b"static_cast"
                and args is not None
                and args.named_child_count == 1
            ):
                return resolve(source, node, _type_text(source, args.named_children[0]))
        return None
    if node.type == "identifier":
        return declared_type(source, node)
    return None


def _literal_type(text: bytes) -> bytes | None:
    m = _INT_LITERAL.fullmatch(text)
    if m is not None:
        return _INT_SUFFIX.get(m.group("suffix").lower())
    m = _FLOAT_LITERAL.fullmatch(text)
    if m is not None:
        return {b"": b"double", b"f": b"float", b"l": b"long double"}[m.group("suffix").lower()]
    return None


def _type_text(source: bytes, node: Node | None) -> bytes | None:
    if node is None:
        return None
    if node.type == "type_descriptor":
        if node.child_by_field_name("declarator") is not None:
            return None  # a pointer or reference type
        node = node.child_by_field_name("type") or node
    return source[node.start_byte : node.end_byte]


def declared_type(source: bytes, use: Node) -> bytes | None:
    """The type of the variable `use` (an identifier) names, from its declaration in scope; None when
    it is not a plain variable of a named type (pointer, array, `auto`) or the declaration is unknown."""
    name = source[use.start_byte : use.end_byte]
    for scope in ancestors(use):
        found = _declaration_in(source, scope, name, use.start_byte)
        if found is not None:
            declaration, declarator = found
            if declarator.type not in ("identifier", "field_identifier", "reference_declarator"):
                return None
            return resolve(source, use, _type_text(source, declaration.child_by_field_name("type")))
    return None


_DEVICE_VARIABLE = frozenset((b"__device__", b"__constant__", b"__managed__"))


def holds_an_address(source: bytes, use: Node) -> bool:
    """True when the identifier `use` names a pointer declared in scope that is not itself a device
    variable: a parameter or host variable (`const void* symbol`) holding a symbol's address, where
    `__device__ float* p` is the symbol."""
    name = source[use.start_byte : use.end_byte]
    for scope in ancestors(use):
        found = _declaration_in(source, scope, name, use.start_byte)
        if found is not None:
            declaration, declarator = found
            if declarator.type != "pointer_declarator":
                return False
            specifiers = (source[c.start_byte : c.end_byte] for c in declaration.children)
            return not any(s in _DEVICE_VARIABLE for s in specifiers)
    return False


def member_type(source: bytes, owner: bytes, field: bytes, root: Node) -> bytes | None:
    """The type of member `field` of the struct/class named `owner` defined in this file."""
    for node in _walk_types(root):
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None or source[name.start_byte : name.end_byte] != owner:
            continue
        found = _declaration_in(source, body, field, body.end_byte)
        if found is not None and found[1].type in ("field_identifier", "identifier"):
            return resolve(source, body, _type_text(source, found[0].child_by_field_name("type")))
    return None


def _walk_types(root: Node, templates: bool = False) -> list[Node]:
    """struct/class definitions at file or namespace level (and nested in them); `templates`: class
    templates' too."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in ("struct_specifier", "class_specifier", "union_specifier"):
                out.append(child)
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
            elif _holds_types(child, templates):
                stack.append(child)
    return out


_TYPE_HOLDERS = frozenset(("declaration_list", "namespace_definition", "declaration", "type_definition"))


def _holds_types(node: Node, templates: bool) -> bool:
    if node.type in _TYPE_HOLDERS or (node.type.startswith("preproc_") and node.type != "preproc_def"):
        return True
    return templates and node.type == "template_declaration"


_DECLARATIONS = (
    "declaration",
    "field_declaration",
    "parameter_declaration",
    "optional_parameter_declaration",
)
_FUNCTION_DECLARATORS = ("function_declarator", "abstract_function_declarator")
_SCOPES_IN_ORDER = ("compound_statement", "translation_unit", "declaration_list")


def _declaration_in(source: bytes, scope: Node, name: bytes, before: int) -> tuple[Node, Node] | None:
    """(declaration, declarator) of `name` directly in `scope` (before `before` in ordered scopes)."""
    candidates: list[Node] = []
    if scope.type in _SCOPES_IN_ORDER or scope.type == "field_declaration_list":
        ends, found = _scope_index(source, scope).get(name, ((), ()))
        if scope.type not in _SCOPES_IN_ORDER:
            return found[-1] if found else None
        k = bisect.bisect_right(ends, before)
        return found[k - 1] if k else None
    if scope.type in ("for_statement", "for_range_loop"):
        init = scope.child_by_field_name("initializer")
        candidates = [init] if init is not None else []
    elif scope.type in ("function_definition", "lambda_expression"):
        declarator = scope.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in _FUNCTION_DECLARATORS:
            declarator = declarator.child_by_field_name("declarator")
        params = declarator.child_by_field_name("parameters") if declarator is not None else None
        candidates = list(params.named_children) if params is not None else []
    found = None
    for decl, inner, declared in _declarators(source, candidates):
        if declared == name:
            found = (decl, inner)
    return found


def _declarators(source: bytes, candidates: list[Node]) -> Iterator[tuple[Node, Node, bytes]]:
    """(declaration, declarator, declared name) of each declaration among `candidates`, in order."""
    for decl in candidates:
        if decl.type not in _DECLARATIONS:
            continue
        for declarator in decl.children_by_field_name("declarator"):
            inner = declarator
            if declarator.type == "init_declarator":
                inner = declarator.child_by_field_name("declarator")
            name = _declarator_name(source, inner) if inner is not None else None
            if inner is not None and name is not None:
                yield decl, inner, name


@functools.lru_cache(maxsize=64)
def _scope_index(source: bytes, scope: Node) -> dict[bytes, tuple[list[int], list[tuple[Node, Node]]]]:
    """name -> (end of each declaration, (declaration, declarator)) in order, for a block or class body.
    Why: looked up per use, the scan made a function of n statements cost n^2 (seconds at 400 `min`s)."""
    index: dict[bytes, tuple[list[int], list[tuple[Node, Node]]]] = {}
    for decl, inner, name in _declarators(source, _flatten_preproc(scope)):
        ends, found = index.setdefault(name, ([], []))
        ends.append(decl.end_byte)
        found.append((decl, inner))
    return index


def _flatten_preproc(scope: Node) -> list[Node]:
    out: list[Node] = []
    for child in scope.named_children:
        if child.type in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"):
            out.extend(_flatten_preproc(child))
        else:
            out.append(child)
    return out


def _declarator_name(source: bytes, declarator: Node) -> bytes | None:
    node: Node | None = declarator
    while node is not None and node.type not in ("identifier", "field_identifier"):
        node = node.child_by_field_name("declarator") or (
            node.named_children[0] if node.type == "reference_declarator" and node.named_child_count else None
        )
    return source[node.start_byte : node.end_byte] if node is not None else None


def resolve(source: bytes, at: Node, type_text: bytes | None) -> bytes | None:
    """Normalised type with the file's typedefs/aliases and the fixed-width typedefs resolved."""
    if type_text is None:
        return None
    text = normal(type_text)
    if text in (b"auto", b"decltype(auto)") or text.startswith(b"decltype"):
        return None
    root = at
    while root.parent is not None:
        root = root.parent
    seen: set[bytes] = set()
    while text not in seen:
        seen.add(text)
        bare = text.removeprefix(b"std::")
        if bare in STANDARD_TYPEDEFS:
            return STANDARD_TYPEDEFS[bare]
        alias = _alias(source, root, text)
        if alias is None:
            return text
        text = normal(alias)
    return None


@functools.lru_cache(maxsize=128)  # why: one scan of the file per name, not per use (n^2 for `float`)
def _alias(source: bytes, root: Node, name: bytes) -> bytes | None:
    if not _WORD.fullmatch(name) or name not in source:
        return None
    for m in re.finditer(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", source):
        node = root.descendant_for_byte_range(m.start(), m.end())
        parent = node.parent if node is not None else None
        if node is None or node.type != "type_identifier" or parent is None:
            continue
        if parent.type == "type_definition" and node in parent.children_by_field_name("declarator"):
            return _type_text(source, parent.child_by_field_name("type"))
        if parent.type == "alias_declaration" and parent.child_by_field_name("name") == node:
            return _type_text(source, parent.child_by_field_name("type"))
    return None


_POINTER_CASTS = (b"static_cast", b"reinterpret_cast", b"const_cast")


def pointee_type(source: bytes, node: Node) -> bytes | None:
    """The type a pointer expression points to, where the file states it: a pointer or array variable
    (`p`, `p + i`, `i + p`, `p - i`), `&x` (x's declared type), `&a[i]` (a's element type), a cast to
    `T*` (`(const T*)q`, `reinterpret_cast<const T*>(q)`), a pointer member of a struct the file
    defines (`s.p`, `ps->p`). None for anything else (calls, pointers to pointers, multi-dimensional
    arrays, members of members)."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "identifier":
        return _pointer_target(source, node)
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is None or left is None or right is None or operator.type not in ("+", "-"):
            return None
        return pointee_type(source, left) or (pointee_type(source, right) if operator.type == "+" else None)
    if node.type == "pointer_expression":
        operator, argument = node.child_by_field_name("operator"), node.child_by_field_name("argument")
        if operator is None or argument is None or operator.type != "&":
            return None
        while argument.type == "parenthesized_expression" and argument.named_child_count == 1:
            argument = argument.named_children[0]
        if argument.type == "identifier":
            return declared_type(source, argument)
        if argument.type == "subscript_expression":
            array = argument.child_by_field_name("argument")
            return pointee_type(source, array) if array is not None else None
        return None
    if node.type == "field_expression":  # `s.p`, `s->p`: a member of a struct the file defines
        owner, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
        operator = node.child_by_field_name("operator")
        if owner is None or field is None or operator is None or owner.type != "identifier":
            return None
        struct = declared_type(source, owner) if operator.type == "." else _pointer_target(source, owner)
        if struct is None:
            return None
        struct = struct.split(b"<", 1)[0].strip()  # `P<float, int>`: the template's members (T: unknown)
        root = node
        while root.parent is not None:
            root = root.parent
        return _member_target(source, struct, source[field.start_byte : field.end_byte], root)
    if node.type == "cast_expression":
        return _pointer_type_target(source, node, node.child_by_field_name("type"))
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "template_function":
            return None
        name, args = function.child_by_field_name("name"), function.child_by_field_name("arguments")
        if name is None or args is None or args.named_child_count != 1:
            return None
        if source[name.start_byte : name.end_byte] not in _POINTER_CASTS:
            return None
        return _pointer_type_target(source, node, args.named_children[0])
    return None


def _pointer_type_target(source: bytes, at: Node, descriptor: Node | None) -> bytes | None:
    """`const T*` (a type descriptor with one pointer level) -> T."""
    if descriptor is None or descriptor.type != "type_descriptor":
        return None
    declarator = descriptor.child_by_field_name("declarator")
    if declarator is None or declarator.type != "abstract_pointer_declarator":
        return None
    if declarator.child_by_field_name("declarator") is not None:
        return None  # `T**`
    return resolve(source, at, _type_text(source, descriptor.child_by_field_name("type")))


def _member_target(source: bytes, owner: bytes, field: bytes, root: Node) -> bytes | None:
    """The pointee of member `field` declared `T* field` in the struct/class `owner` of this file."""
    for node in _walk_types(root, templates=True):
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or body is None or source[name.start_byte : name.end_byte] != owner:
            continue
        found = _declaration_in(source, body, field, body.end_byte)
        if found is not None:
            return _single_level(source, body, *found)
    return None


def _single_level(source: bytes, at: Node, declaration: Node, declarator: Node) -> bytes | None:
    """T of a declarator `*name` or `name[N]` (one level) in `declaration`; None for anything else."""
    if declarator.type not in ("pointer_declarator", "array_declarator"):
        return None
    inner = declarator.child_by_field_name("declarator")
    if inner is None or inner.type not in ("identifier", "field_identifier"):
        return None
    return resolve(source, at, _type_text(source, declaration.child_by_field_name("type")))


def _pointer_target(source: bytes, use: Node) -> bytes | None:
    """The pointee of a variable declared `T* p` (one level) or the element of `T a[N]` (one dimension)."""
    name = source[use.start_byte : use.end_byte]
    for scope in ancestors(use):
        found = _declaration_in(source, scope, name, use.start_byte)
        if found is not None:
            return _single_level(source, use, *found)
    return None
