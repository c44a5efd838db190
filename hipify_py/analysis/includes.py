"""Where an include goes in a file, and what a header guard looks like: per-file facts the rules
that insert text share (implicit includes, shims, library macros, warp-sync and macro-order
defines), computed here, below the rules, instead of in the pipeline.

Two guard predicates, for the two questions asked: `include_position` walks the parse tree
(`#ifndef X` whose first directive is `#define X`: insert inside it); `guards_define` reads the line
before one `#define NAME` (`#ifndef NAME` or `#if !defined(NAME)`: that #define is a guard, not a
clobber of a CUDA name).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipify_py.engine.source import UTF8_BOM
from hipify_py.util.lazyre import lazy

if TYPE_CHECKING:
    from hipify_py.analysis.context import Context
    from hipify_py.engine.parser import Node


def _guard_block(source: bytes, block: Node, name: Node, define: Node) -> bool:
    """`#ifndef X` directly followed by `#define X` (not `#ifdef __CUDACC__` + some #define)."""
    if define.type != "preproc_def" or not source[block.start_byte : name.start_byte].strip().startswith(
        b"#ifndef"
    ):
        return False
    defined = define.child_by_field_name("name")
    return (
        defined is not None
        and source[defined.start_byte : defined.end_byte] == source[name.start_byte : name.end_byte]
    )


def include_position(ctx: Context) -> int:
    """Before the first top-level #include; else after a header guard/#pragma once; else top."""
    root = ctx.root
    for child in root.children:
        if child.type == "preproc_include":
            return child.start_byte
        if child.type == "preproc_ifdef" and child.child_by_field_name("name") is not None:
            inner = [c for c in child.named_children if c.type != "comment"]
            if len(inner) > 1 and _guard_block(ctx.source, child, inner[0], inner[1]):
                for grandchild in inner[2:]:
                    if grandchild.type == "preproc_include":
                        return grandchild.start_byte
                return inner[1].end_byte
        if child.type == "preproc_call" and b"pragma" in ctx.source[child.start_byte : child.start_byte + 12]:
            return child.end_byte
        if child.type != "comment":
            break
    # After leading comments (licence headers stay first).
    pos = 0
    for child in root.children:
        if child.type != "comment":
            break
        pos = child.end_byte
    if pos:
        nl = ctx.source.find(b"\n", pos)
        return len(ctx.source) if nl == -1 else nl + 1
    return len(UTF8_BOM) if ctx.source.startswith(UTF8_BOM) else 0  # the BOM stays first


def top_level(ctx: Context) -> list[Node]:
    """The file's top-level nodes: the root's, or those inside a header guard that opens the file."""
    children = ctx.root.children
    for child in children:
        if child.type == "preproc_ifdef" and child.child_by_field_name("name") is not None:
            inner = [c for c in child.named_children if c.type != "comment"]
            if len(inner) > 1 and _guard_block(ctx.source, child, inner[0], inner[1]):
                return inner[2:]
            return children
        if child.type != "comment":
            return children
    return children


# why the name as a group, not in the pattern: a pattern per #define name was compiled for nearly every
# file; for a word `name` (a #define's), the group is the name exactly when that pattern matched
_NOT_DEFINED = lazy(rb"[ \t]*#[ \t]*(?:ifndef[ \t]+|if[ \t]+!\s*defined\s*\(?\s*)(\w+)\s*\)?\s*")


def guards_define(source: bytes, define: int, name: bytes) -> bool:
    """`#ifndef NAME` (or `#if !defined(NAME)`) on the line before: a header guard, not a clobber."""
    before = source[:define].rstrip()
    m = _NOT_DEFINED.fullmatch(before, before.rfind(b"\n") + 1)
    return m is not None and m.group(1) == name


_ANY_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"][^>"\n]+[>"][^\n]*\n?', re.MULTILINE)


def after_last_include(ctx: Context, before: int) -> tuple[int, bytes]:
    """Where a helper that needs none of the file's headers goes: after the last include (in code)
    before offset `before`, else where an include would go; with the newline to put first, if any."""
    from hipify_py.analysis.context import REWRITABLE
    from hipify_py.engine.source import newline_of

    at = None
    for m in _ANY_INCLUDE.finditer(ctx.source, 0, before):
        if ctx.classify(m.start(), m.start() + 1) in REWRITABLE and not ctx.is_protected(m.start()):
            at = m
    if at is None:
        return include_position(ctx), b""
    return at.end(), (b"" if at.group().endswith(b"\n") else newline_of(ctx.source))


_CONDITIONAL = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b[^\n]*", re.MULTILINE)


def helper_blocks(source: bytes) -> list[tuple[int, int]]:
    """Spans of the groups hipify-py wrote helpers in (`#if !defined(HIPIFY_PY_SHIM_x)` or an `#elif` of
    it, up to its #endif): the calls in them are meant as written, and a second run leaves them alone."""
    if b"HIPIFY_PY_SHIM_" not in source:
        return []
    spans: list[tuple[int, int]] = []
    stack: list[int | None] = []  # per open group: where a helper branch started, or None
    for m in _CONDITIONAL.finditer(source):
        kind, line = m.group(1), m.group()
        ours = b"HIPIFY_PY_SHIM_" in line and kind in (b"if", b"elif")
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append(m.start() if ours else None)
        elif kind in (b"elif", b"else") and stack:
            if stack[-1] is None and ours:
                stack[-1] = m.start()
        elif kind == b"endif" and stack:
            start = stack.pop()
            if start is not None:
                spans.append((start, m.end()))
    return spans
