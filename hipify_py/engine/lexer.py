"""A tiny C lexer for text the parser cannot structure (macro bodies, error regions).

It only needs to tell code identifiers from comments and string/char literals, and whether an
identifier is a member access (preceded by `.` or `->`). Numbers are matched as whole pp-numbers so
a digit separator (`1'000`) never opens a char literal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from hipify_py.util.lazyre import lazy

_TOKEN = lazy(
    rb"""
      (?P<comment>//(?:\\\r?\n|[^\n])*|/\*.*?(?:\*/|\Z))
    | (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)")
    | (?P<string>(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"?)
    | (?P<char>(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'?)
    | (?P<number>\.?\d(?:'?[\w.]|[eEpP][+-])*)
    | (?P<ident>[A-Za-z_]\w*)
    """,
    re.VERBOSE | re.DOTALL,
)
# _TOKEN behind a possessive run of bytes that cannot start a token: the engine then skips blanks and
# punctuation in one step instead of trying every alternative at each byte (3x faster on macro bodies).
# A token's own offsets are those of its group: m.start(m.lastgroup), not m.start().
_SCAN = lazy(rb"[^/\"'\w.]*+(?:" + _TOKEN.pattern + rb")", re.VERBOSE | re.DOTALL)
_MEMBER_BEFORE = lazy(rb"(?:\.|->)\s*\Z")


class Token(NamedTuple):
    start: int
    end: int
    text: bytes
    member: bool  # preceded by `.` or `->`


def _is_member(text: bytes, start: int, floor: int = 0) -> bool:
    """`floor`: end of the previous comment/literal (`// a period.` + newline + name: no member)."""
    window = text[max(0, start - 8, floor) : start]
    # why the `in` tests first: most identifiers follow neither, and they cost far less than the regex
    if b"." not in window and b"->" not in window:
        return False
    return bool(_MEMBER_BEFORE.search(window)) and not window.rstrip().endswith(b"..")


def identifiers(text: bytes, base: int = 0) -> Iterator[Token]:
    """Identifiers outside comments and literals, with offsets shifted by `base`."""
    floor = 0
    for m in _TOKEN.finditer(text):
        if m.lastgroup != "ident":
            if m.lastgroup != "number":
                floor = m.end()
            continue
        start = m.start()
        yield Token(base + start, base + m.end(), m.group(), _is_member(text, start, floor))


def scan(text: bytes, base: int = 0) -> tuple[list[tuple[int, int]], set[int]]:
    """skipped_spans() and the start offsets of member identifiers, in one pass over `text`."""
    skipped: list[tuple[int, int]] = []
    members: set[int] = set()
    floor = 0
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        start = m.start(kind)
        if kind == "ident":
            if _is_member(text, start, floor):
                members.add(base + start)
        elif kind != "number":
            skipped.append((base + start, base + m.end()))
            floor = m.end()
    return skipped, members


def skipped_spans(text: bytes, base: int = 0) -> list[tuple[int, int]]:
    """Spans of comments and string/char literals (never rewritten)."""
    return [
        (base + m.start(), base + m.end())
        for m in _TOKEN.finditer(text)
        if m.lastgroup not in ("ident", "number")
    ]
