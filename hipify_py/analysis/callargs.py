"""A call's arguments as byte spans, and the edits that change them (wrap, insert, delete, move...).

One helper for every argument-level adaptation (pyupgrade's parse_call_args/delete_argument model):
a rule finds a call by its name's offset, gets a `Call` (from the syntax tree; inside macro bodies
from a re-parse of the body; in error regions from a lexical split) and asks for edits by argument
index. All offsets are the original file's, so the edits combine with every other rule's: renames
inside a deleted or replaced argument are superseded (covering edits), a moved or copied argument
keeps its renames (copy edits), see hipify_py/engine/edits.py.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hipify_py.engine.edits import COPY_MARK, Edit
from hipify_py.engine.parser import Node, parse
from hipify_py.util.lazyre import lazy

Span = tuple[int, int]


class Call(NamedTuple):
    name: Span  # the called name (the identifier itself, not a qualifier)
    open: int  # offset of `(`
    close: int  # offset of `)`
    args: tuple[Span, ...]  # each argument without surrounding blanks and comments

    def text(self, source: bytes, index: int) -> bytes:
        a, b = self.args[index]
        return source[a:b]


# -- finding calls ---------------------------------------------------------------------------------
def from_node(node: Node, shift: int = 0) -> Call | None:
    """The call a `call_expression` node stands for (offsets + shift); None if the tree is unsure."""
    if node.type != "call_expression" or node.has_error:
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None or arguments.type != "argument_list":
        return None
    name = _name_of(function)
    if name is None:
        return None
    parens = arguments.children
    if not parens or parens[0].type != "(" or parens[-1].type != ")":
        return None
    args = tuple(
        (c.start_byte + shift, c.end_byte + shift) for c in arguments.named_children if c.type != "comment"
    )
    return Call(
        (name.start_byte + shift, name.end_byte + shift),
        parens[0].start_byte + shift,
        parens[-1].start_byte + shift,
        args,
    )


def _name_of(function: Node) -> Node | None:
    """The identifier a callee ends with: `f`, `ns::f`, `f<T>`."""
    node: Node | None = function
    while node is not None and node.type != "identifier":
        if node.type in ("qualified_identifier", "template_function"):
            node = node.child_by_field_name("name")
        else:
            return None
    return node


def from_text(source: bytes, name: Span, limit: int | None = None) -> Call | None:
    """The call whose name is at `name`, split lexically (macro bodies the parser cannot read).

    Brackets nest; commas inside them or inside literals do not split arguments; comments are skipped.
    `<`/`>` are not brackets lexically (`a < b, c > d` is two arguments), so a template argument list
    with a comma outside any bracket splits wrongly: the tree is asked first wherever there is one.
    """
    end = len(source) if limit is None else limit
    i = _skip_blanks(source, name[1], end)
    if i >= end or source[i : i + 1] != b"(":
        return None
    open_ = i
    depth = 0
    args: list[Span] = []
    first = last = -1  # extent of the current argument's code (comments and blanks excluded)
    i += 1
    while i < end:
        c = source[i : i + 1]
        if source.startswith((b"//", b"/*"), i):
            i = _skip_comment(source, i, end)
            continue
        if c in b" \t\r\n\\":
            i += 1
            continue
        if depth == 0 and c in (b",", b")"):
            if first >= 0 or c == b"," or args:
                args.append((first, last) if first >= 0 else (i, i))
            if c == b")":
                return Call(name, open_, i, tuple(args))
            first = last = -1
            i += 1
            continue
        if first < 0:
            first = i
        if c in (b'"', b"'") and not (c == b"'" and source[i - 1 : i].isalnum()):  # 1'000: a separator
            i = _skip_literal(source, i, end)
            last = i
            continue
        if c in (b"(", b"[", b"{"):
            depth += 1
        elif c in (b")", b"]", b"}"):
            if depth == 0:
                return None
            depth -= 1
        i += 1
        last = i
    return None


class CallFinder:
    """Finds calls in one file by the offset of their name; macro bodies are parsed once each.

    why a plain class, not a dataclass: see engine/options.py"""

    def __init__(self, source: bytes, root: Node) -> None:
        self.source = source
        self.root = root
        self._bodies: dict[int, tuple[Node, int]] = {}

    def at(self, name: Span) -> Call | None:
        """The call whose callee's name is at `name`; None for declarations and anything unsure."""
        found = self._at(name)
        if found is not None and any(_parameter(found.text(self.source, i)) for i in range(len(found.args))):
            # `T __shfl_sync(hypre_mask mask, T val)` misread as a call (a project's own definition
            # after `static __device__ __forceinline__`): no argument is `type name`
            return None
        return found

    def _at(self, name: Span) -> Call | None:
        node = self.root.descendant_for_byte_range(name[0], name[1])
        call = _enclosing_call(node, name[0])
        if call is not None:
            found = from_node(call)
            if found is not None:
                return found
        region = _opaque(node)
        if region is None:  # parsed code: a call with a syntax error inside is split lexically
            return None if call is None else from_text(self.source, name, call.end_byte)
        if region.type == "preproc_arg":
            found = self._in_body(region, name)
            if found is not None:
                return found
        return from_text(self.source, name, region.end_byte)

    def _in_body(self, body: Node, name: Span) -> Call | None:
        """A #define body re-parsed as statements (as kernel launches in macros are)."""
        cached = self._bodies.get(body.start_byte)
        if cached is None:
            text = self.source[body.start_byte : body.end_byte]
            tree = parse(_PREFIX + text + _SUFFIX)
            cached = (tree.root_node, body.start_byte - len(_PREFIX))
            self._bodies[body.start_byte] = cached
        root, shift = cached
        node = root.descendant_for_byte_range(name[0] - shift, name[1] - shift)
        call = _enclosing_call(node, name[0] - shift)
        if call is None:
            return None
        found = from_node(call, shift)
        return found if found is not None and found.name == name else None


# `hypre_mask mask`, `unsigned int width = 32`: a parameter's declaration, never an argument (two names
# side by side are no expression, but for the keywords that take an operand)
_PARAMETER = lazy(
    rb"\s*([A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)+)(?:\s*=[^=].*)?\s*",
    re.S,
)


# words that make two names side by side an expression: operators spelled as words, and the keywords
# that take an operand
_OPERATOR_WORDS = frozenset(
    b"sizeof alignof new delete throw co_await co_yield noexcept typeid return and or not xor bitand bitor "
    b"compl and_eq or_eq xor_eq not_eq".split()
)


def _parameter(text: bytes) -> bool:
    m = _PARAMETER.fullmatch(text)
    return m is not None and not _OPERATOR_WORDS.intersection(m.group(1).split())


# Wraps a macro body so it parses as statements: offsets are shifted back by len(_PREFIX).
_PREFIX = b"void __hipify_py_macro_body__() {\n"
_SUFFIX = b"\n;}\n"


def _opaque(node: Node | None) -> Node | None:
    while node is not None:
        if node.type in ("preproc_arg", "ERROR"):
            return node
        node = node.parent
    return None


def _enclosing_call(node: Node | None, name_start: int) -> Node | None:
    """The call_expression whose callee's name starts at name_start."""
    while node is not None and node.type in ("identifier", "qualified_identifier", "template_function"):
        parent = node.parent
        if parent is not None and parent.type == "call_expression":
            function = parent.child_by_field_name("function")
            if function is not None and function.id == node.id:
                name = _name_of(function)
                return parent if name is not None and name.start_byte == name_start else None
        node = parent
    return None


# -- edits -----------------------------------------------------------------------------------------
def wrap(call: Call, index: int, before: bytes, after: bytes = b")") -> list[Edit]:
    """`a` -> `before a after`, e.g. wrap(call, 0, b"reinterpret_cast<const void*>(")."""
    a, b = call.args[index]
    return [Edit(a, a, before), Edit(b, b, after)]


def insert(call: Call, index: int, text: bytes) -> list[Edit]:
    """`text` becomes argument `index` (before the argument there now; appended when index >= count)."""
    if index < len(call.args):
        a = call.args[index][0]
        return [Edit(a, a, text + b", ")]
    if not call.args:
        return [Edit(call.open + 1, call.open + 1, text)]
    end = call.args[-1][1]
    return [Edit(end, end, b", " + text)]


def replace(call: Call, index: int, text: bytes) -> list[Edit]:
    """Argument `index` becomes `text` (renames inside the old argument are superseded)."""
    a, b = call.args[index]
    return [Edit(a, b, text, covers=True)]


def delete(call: Call, index: int) -> list[Edit]:
    """Remove argument `index` and the comma that separates it."""
    return delete_many(call, {index})


def delete_many(call: Call, indices: set[int] | frozenset[int]) -> list[Edit]:
    """Remove several arguments of one call with their commas (deleting them one by one would remove
    a shared comma twice, or none)."""
    edits: list[Edit] = []
    count = len(call.args)
    for k in sorted(indices):
        a, b = call.args[k]
        edits.append(Edit(a, b, b"", covers=True))
        if any(j not in indices for j in range(k + 1, count)):
            edits.append(Edit(b, call.args[k + 1][0], b""))  # its comma and the blanks after it
        elif k > 0:
            edits.append(Edit(call.args[k - 1][1], a, b""))  # the comma before it
    return edits


def copy(call: Call, index: int, to: int) -> list[Edit]:
    """Insert a copy of argument `index` as argument `to` (with the other edits made inside it)."""
    return _copies(call, [call.args[index]], to)


def move(call: Call, index: int, to: int, count: int = 1) -> list[Edit]:
    """Move `count` arguments starting at `index` to stand before argument `to` (or at the end).

    Indices are the original call's. Several moves or deletions on one call must share one
    delete_many(): use moved_copies() for each move and delete the moved arguments together.
    """
    return moved_copies(call, index, to, count) + delete_many(call, set(range(index, index + count)))


def moved_copies(call: Call, index: int, to: int, count: int = 1) -> list[Edit]:
    """The insertions of move() without the deletion of the originals."""
    return _copies(call, list(call.args[index : index + count]), to)


def rename(call: Call, text: bytes) -> list[Edit]:
    """Call another function (supersedes the plain rename of the name)."""
    return [Edit(call.name[0], call.name[1], text, covers=True)]


def _copies(call: Call, spans: list[Span], to: int) -> list[Edit]:
    if to < len(call.args):
        at = call.args[to][0]
        return [Edit(at, at, COPY_MARK + b", ", copy=s) for s in spans]
    at = call.args[-1][1] if call.args else call.open + 1
    first = not call.args
    edits = []
    for s in spans:
        edits.append(Edit(at, at, (b"" if first else b", ") + COPY_MARK, copy=s))
        first = False
    return edits


# -- lexical helpers -------------------------------------------------------------------------------
def balanced_parens(text: bytes) -> bool:
    """Whether `text` (an argument's text) closes every `(` it opens and no other: `x` of `int(x)` is one
    operand, `a) + int(b` is not."""
    depth = 0
    for c in text:
        depth += (c == 0x28) - (c == 0x29)
        if depth < 0:
            return False
    return depth == 0


def _skip_blanks(source: bytes, i: int, end: int) -> int:
    while i < end:
        if source[i : i + 1] in (b" ", b"\t", b"\r", b"\n", b"\\"):
            i += 1
        elif source.startswith((b"//", b"/*"), i):
            i = _skip_comment(source, i, end)
        else:
            break
    return i


def _skip_literal(source: bytes, i: int, end: int) -> int:
    quote = source[i]
    i += 1
    while i < end and source[i] != quote and source[i] != 0x0A:
        i += 2 if source[i] == 0x5C else 1
    return i + 1


def _skip_comment(source: bytes, i: int, end: int) -> int:
    if source.startswith(b"//", i):
        nl = source.find(b"\n", i, end)
        return end if nl == -1 else nl
    close = source.find(b"*/", i + 2, end)
    return end if close == -1 else close + 2
