"""What the collision checks (collisions.py, collision_cases.py) share: code as tokens after renaming,
and which preprocessor arms code sits in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from hipify_py.analysis.context import Context
from hipify_py.engine.parser import Node

CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"})
_COMMENT_NODES = frozenset({"comment"})
# leaves the identifier rule renames (string contents and members are never renamed)
_NAME_LEAVES = frozenset({"identifier", "type_identifier", "namespace_identifier"})


class Renamer(NamedTuple):
    """Token text of a subtree after renaming (comments dropped), to compare code as hipcc will see it."""

    ctx: Context
    targets: dict[bytes, bytes]

    def leaves(self, node: Node) -> Iterator[Node]:
        stack = [node]
        while stack:
            cur = stack.pop()
            if cur.type in _COMMENT_NODES:
                continue
            if cur.child_count == 0:
                yield cur
            else:
                stack.extend(reversed(cur.children))

    def text(self, node: Node) -> bytes:
        return self.ctx.source[node.start_byte : node.end_byte]

    def tokens(self, node: Node, skip: frozenset[int] = frozenset()) -> tuple[bytes, ...]:
        out = []
        for leaf in self.leaves(node):
            if leaf.start_byte in skip:
                continue
            text = self.text(leaf)
            out.append(self.targets.get(text, text) if leaf.type in _NAME_LEAVES else text)
        return tuple(out)

    def original(self, node: Node, skip: frozenset[int] = frozenset()) -> tuple[bytes, ...]:
        return tuple(self.text(leaf) for leaf in self.leaves(node) if leaf.start_byte not in skip)


def spell(tokens: tuple[bytes, ...]) -> str:
    """Tokens as C++ text: a blank only between two word tokens (`const char*`, `f(hipError_t)`)."""
    out = b""
    for token in tokens:
        if token == b"\0":
            continue
        if (
            out
            and token
            and (out[-1:].isalnum() or out[-1:] == b"_")
            and (token[:1].isalnum() or token[:1] == b"_")
        ):
            out += b" "
        out += token
    return out.decode(errors="replace")


def arms(node: Node) -> dict[int, bool]:
    """Preprocessor conditionals around `node`: directive offset -> True in the #else/#elif part."""
    arms: dict[int, bool] = {}
    child, cur = node, node.parent
    while cur is not None:
        if cur.type in CONDITIONALS:
            arms[cur.start_byte] = cur.child_by_field_name("alternative") == child
        child, cur = cur, cur.parent
    return arms


def exclusive(a: Node, b: Node) -> bool:
    """Two nodes in different branches of one #if chain are never compiled together."""
    arms_a, arms_b = arms(a), arms(b)
    return any(at in arms_b and arms_b[at] != arm for at, arm in arms_a.items())


def skipped(ctx: Context, node: Node) -> bool:
    """Code hipcc never compiles, or that the user keeps for HIP already."""
    start = node.start_byte
    if ctx.is_protected(start):
        return True
    return any(a <= start < b for a, b in ctx.branches.dead)
