"""Template parameters and the entities they belong to, for detectors that follow a value or a type
through a file's instantiations (`Test<32>()` -> `Kernel<BLOCK>` -> `BlockLoad<int, BLOCK, ...>`)."""

from __future__ import annotations

from collections.abc import Iterator

from hipify_py.engine.parser import Node


def _text(source: bytes, node: Node) -> bytes:
    return source[node.start_byte : node.end_byte]


def template_of(source: bytes, node: Node, name: bytes) -> tuple[bytes, int] | None:
    """(templated entity's name, parameter index) when `name` is a template parameter around `node`."""
    for template, names in _enclosing_templates(source, node):
        if name in names:
            entity = _entity_name(source, template)
            return (entity, names.index(name)) if entity else None
    return None


def template_parameters(source: bytes, node: Node) -> frozenset[bytes]:
    """Names of every template parameter of the templates around `node`."""
    return frozenset(n for _, names in _enclosing_templates(source, node) for n in names if n)


def _enclosing_templates(source: bytes, node: Node) -> Iterator[tuple[Node, list[bytes | None]]]:
    """Each template declaration around `node`, innermost first, with its parameters' names."""
    cur = node.parent
    while cur is not None:
        if cur.type == "template_declaration":
            params = cur.child_by_field_name("parameters")
            yield cur, [_param_name(source, p) for p in (params.named_children if params is not None else ())]
        cur = cur.parent


def _param_name(source: bytes, param: Node) -> bytes | None:
    if param.type == "template_template_parameter_declaration":  # template <class> class W
        param = next((c for c in param.named_children if c.type == "type_parameter_declaration"), param)
    if param.type in (
        "type_parameter_declaration",
        "optional_type_parameter_declaration",
        "variadic_type_parameter_declaration",
    ):
        name = param.child_by_field_name("name") or next(
            (c for c in param.named_children if c.type == "type_identifier"), None
        )
        return _text(source, name) if name is not None else None
    declarator = param.child_by_field_name("declarator")
    if declarator is not None and declarator.type == "variadic_declarator":  # int... Ns
        declarator = next((c for c in declarator.named_children if c.type == "identifier"), None)
    return _text(source, declarator) if declarator is not None and declarator.type == "identifier" else None


def _entity_name(source: bytes, template: Node) -> bytes | None:
    for child in template.named_children:
        if child.type in ("class_specifier", "struct_specifier"):
            name = child.child_by_field_name("name")
            return _text(source, name) if name is not None else None
        if child.type in ("function_definition", "declaration"):
            declarator = child.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            inner = declarator.child_by_field_name("declarator") if declarator is not None else None
            return _text(source, inner).rpartition(b"::")[2] if inner is not None else None
    return None


def instantiations(source: bytes, root: Node) -> list[tuple[bytes, list[Node]]]:
    """(template name's last `::` component, its argument list) of every template-id, in walk order."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("template_type", "template_function"):
            name, args = node.child_by_field_name("name"), node.child_by_field_name("arguments")
            if name is not None and args is not None:
                arguments = [c for c in args.named_children if c.type != "comment"]
                found.append((_text(source, name).rpartition(b"::")[2], arguments))
        stack.extend(node.children)
    return found


def template_uses(source: bytes, root: Node) -> dict[bytes, list[list[Node]]]:
    """Template name -> the argument lists it is instantiated with in the file."""
    uses: dict[bytes, list[list[Node]]] = {}
    for name, arguments in instantiations(source, root):
        uses.setdefault(name, []).append(arguments)
    return uses


def type_bindings(
    source: bytes, uses: dict[bytes, list[list[Node]]], node: Node, names: tuple[bytes, ...], depth: int = 3
) -> list[tuple[bytes, ...]]:
    """The types `names` (written inside `node`'s templates) stand for, one tuple per instantiation chain
    the file shows: a name that is no template parameter stands for itself. Empty when a parameter has
    no instantiation in the file."""
    owners = {n: template_of(source, node, n) for n in names}
    entities = {o[0] for o in owners.values() if o is not None}
    if not entities:
        return [names]
    if len(entities) > 1 or depth == 0:
        return []  # parameters of nested templates: not followed
    entity = entities.pop()
    found: list[tuple[bytes, ...]] = []
    for arguments in uses.get(entity, []):
        picked = []
        for n in names:
            owner = owners[n]
            if owner is None:
                picked.append(n)
            elif owner[1] < len(arguments):
                picked.append(b" ".join(_text(source, arguments[owner[1]]).split()))
            else:
                break
        else:
            found += type_bindings(source, uses, arguments[0], tuple(picked), depth - 1)
    return list(dict.fromkeys(found))
