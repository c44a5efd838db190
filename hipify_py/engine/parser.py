"""tree-sitter-cuda setup and small node helpers."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import tree_sitter
import tree_sitter_cuda

from hipify_py.engine.source import UTF8_BOM

Node = tree_sitter.Node
Tree = tree_sitter.Tree


@functools.lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cuda.language())


def warm_up() -> None:
    """Load the grammar now (before a process pool forks) rather than in every worker."""
    _language()


def parse(source: bytes) -> Tree:
    """Parse CUDA/C++ bytes. A leading BOM is blanked (same length) so offsets stay exact."""
    if source.startswith(UTF8_BOM):
        source = b"   " + source[3:]
    # A parser per call: tree_sitter.Parser is cheap and not shareable across threads.
    return tree_sitter.Parser(_language()).parse(source)


def ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def has_ancestor(node: Node, types: frozenset[str]) -> bool:
    return any(a.type in types for a in ancestors(node))


def node_text(source: bytes, node: Node) -> bytes:
    return source[node.start_byte : node.end_byte]
