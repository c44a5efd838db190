"""A tiny C lexer for text the parser cannot structure (macro bodies, error regions).

It only needs to tell code identifiers from comments and string/char literals, and whether an
identifier is a member access (preceded by `.` or `->`). Numbers are matched as whole pp-numbers so
a digit separator (`1'000`) never opens a char literal.
"""

from __future__ import annotations

import re
import sys
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
# Python 3.10's engine has no possessive quantifier: there the run is atomic through a lookahead and a
# backreference (same matches; the group is unused). A token's own offsets are those of its group:
# m.start(m.lastgroup), not m.start().
_SKIP = rb"[^/\"'\w.]*+" if sys.version_info >= (3, 11) else rb"(?=(?P<skip>[^/\"'\w.]*))(?P=skip)"
_SCAN = lazy(_SKIP + rb"(?:" + _TOKEN.pattern + rb")", re.VERBOSE | re.DOTALL)
_MEMBER_BEFORE = lazy(rb"(?:\.|->)\s*\Z")
# Shared by the rules: one pattern (compiled once a process) instead of a copy in each module.
IDENTIFIER = lazy(rb"[A-Za-z_]\w*")
COMMENT = lazy(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)  # in text known to hold no string literal


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
    whole = Scanner(text, base).through(base + len(text))
    return whole.skipped, whole.members


_END = 1 << 62


class Scanner:
    """scan()'s results for `text` (offsets shifted by `base`), read only as far as they are asked for.

    why: classifying a token needs only the tokens up to it, and the tokens a region (an error region
    of the tree, a macro body) is asked about stand mostly near its start (39% of the bytes of the
    regions of 400 small files)."""

    def __init__(self, text: bytes, base: int = 0) -> None:
        self.skipped: list[tuple[int, int]] = []
        self.members: set[int] = set()
        self._text = text
        self._base = base
        self._matches = _SCAN.finditer(text)
        self._floor = 0  # end of the last comment/literal read
        self._reached = -1  # start of the last token read (_END once the text is read)

    def through(self, offset: int) -> Scanner:
        """Read on until a token starts after `offset`: the spans and members up to it are then complete."""
        limit = offset - self._base
        while self._reached <= limit:
            m = next(self._matches, None)
            if m is None:
                self._reached = _END
                break
            kind = m.lastgroup
            start = m.start(kind)
            self._reached = start
            if kind == "ident":
                if _is_member(self._text, start, self._floor):
                    self.members.add(self._base + start)
            elif kind != "number":
                self.skipped.append((self._base + start, self._base + m.end()))
                self._floor = m.end()
        return self


def skipped_spans(text: bytes, base: int = 0) -> list[tuple[int, int]]:
    """Spans of comments and string/char literals (never rewritten)."""
    return [
        (base + m.start(), base + m.end())
        for m in _TOKEN.finditer(text)
        if m.lastgroup not in ("ident", "number")
    ]
