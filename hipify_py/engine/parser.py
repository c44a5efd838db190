"""tree-sitter-cuda setup and small node helpers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import tree_sitter
import tree_sitter_cuda

from hipify_py.engine.source import UTF8_BOM
from hipify_py.util.lazyre import lazy

Node = tree_sitter.Node
Tree = tree_sitter.Tree


@functools.lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cuda.language())


def warm_up() -> None:
    """Load the grammar now (before a process pool forks) rather than in every worker."""
    _language()


# `class REALM_PUBLIC_API Name : public Base {`: an export macro between the key and the name, which
# tree-sitter cannot know expands to nothing (or an attribute); it reads the class as a function, and its
# members as statements. An all-caps word there, before a base clause or a body that ends the line,
# can only be such a macro (`struct POINT p{1, 2};` declares a variable: no line break after `{`).
_CLASS_HEAD_MACRO = lazy(
    rb"\b(?:class|struct|union)[ \t]+([A-Z_][A-Z0-9_]{2,})[ \t]+(?!final\b)(?=[A-Za-z_]\w*[ \t]*"
    rb"(?:final\b[ \t]*)?(?::(?!:)|\{[ \t]*(?://[^\n]*)?\r?\n))"
)


def parse(source: bytes) -> Tree:
    """Parse CUDA/C++ bytes. A leading BOM and export macros in class heads are blanked (same length),
    so offsets stay exact; the rules read the source itself, never the parsed copy."""
    if source.startswith(UTF8_BOM):
        source = b"   " + source[3:]
    if b"class " in source or b"struct " in source:
        source = _CLASS_HEAD_MACRO.sub(_blank_macro, source)
    # A parser per call: tree_sitter.Parser is cheap and not shareable across threads.
    return tree_sitter.Parser(_language()).parse(source)


def _blank_macro(m: re.Match[bytes]) -> bytes:
    head, macro = m.group(), m.group(1)
    at = m.start(1) - m.start()
    return head[:at] + b" " * len(macro) + head[at + len(macro) :]


def ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def has_ancestor(node: Node, types: frozenset[str]) -> bool:
    return any(a.type in types for a in ancestors(node))


def node_text(source: bytes, node: Node) -> bytes:
    return source[node.start_byte : node.end_byte]
