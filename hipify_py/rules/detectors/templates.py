"""Template parameters and the entities they belong to, for detectors that follow a value or a type
through a file's instantiations (`Test<32>()` -> `Kernel<BLOCK>` -> `BlockLoad<int, BLOCK, ...>`)."""

from __future__ import annotations

from hipify_py.engine.parser import Node


def _text(source: bytes, node: Node) -> bytes:
    return source[node.start_byte : node.end_byte]


def template_of(source: bytes, node: Node, name: bytes) -> tuple[bytes, int] | None:
    """(templated entity's name, parameter index) when `name` is a template parameter around `node`."""
    cur = node.parent
    while cur is not None:
        if cur.type == "template_declaration":
            params = cur.child_by_field_name("parameters")
            names = [_param_name(source, p) for p in (params.named_children if params is not None else [])]
            if name in names:
                entity = _entity_name(source, cur)
                return (entity, names.index(name)) if entity else None
        cur = cur.parent
    return None


def _param_name(source: bytes, param: Node) -> bytes | None:
    declarator = param.child_by_field_name("declarator")
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
