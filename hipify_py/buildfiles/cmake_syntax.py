"""CMake syntax: commands and their arguments (unquoted, quoted, bracket) with byte offsets."""

from __future__ import annotations

import re
from typing import NamedTuple

from hipify_py.buildfiles.common import RULE_NOT_UNDERSTOOD, WARN, Note
from hipify_py.util.lazyre import lazy


class Arg(NamedTuple):
    start: int
    end: int
    kind: str  # "u" unquoted, "q" quoted, "b" bracket
    text: str  # raw, with quotes or brackets


class Cmd(NamedTuple):
    name: str
    start: int
    name_end: int
    rparen: int  # offset of the closing ')'
    args: tuple[Arg, ...]

    @property
    def key(self) -> str:
        return self.name.lower()

    def texts(self) -> list[str]:
        return [a.text for a in self.args]


_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*")


_BRACKET = lazy(r"\[(=*)\[")


def _skip_comment(text: str, i: int) -> int:
    m = _BRACKET.match(text, i + 1)
    if m:
        close = text.find("]" + m.group(1) + "]", m.end())
        return len(text) if close < 0 else close + len(m.group(1)) + 2
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl


def _parse_args(text: str, i: int) -> tuple[list[Arg], int | None]:
    """Arguments from just after '(' to the matching ')' (None: unterminated)."""
    args: list[Arg] = []
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _skip_comment(text, i)
        elif c == "(":
            depth, i = depth + 1, i + 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return args, i
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return args, None
            args.append(Arg(i, j + 1, "q", text[i : j + 1]))
            i = j + 1
        elif c == "[" and (m := _BRACKET.match(text, i)):
            close = text.find("]" + m.group(1) + "]", m.end())
            if close < 0:
                return args, None
            end = close + len(m.group(1)) + 2
            args.append(Arg(i, end, "b", text[i:end]))
            i = end
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n()#"':
                j += 2 if text[j] == "\\" else 1
                if j < n and text[j] == '"':  # legacy unquoted argument with an embedded quote: -DX="a b"
                    close = text.find('"', j + 1)
                    j = n if close < 0 else close + 1
            args.append(Arg(i, j, "u", text[i:j]))
            i = j
    return args, None


def cmake_parse(text: str) -> tuple[list[Cmd], list[Note]]:
    cmds: list[Cmd] = []
    notes: list[Note] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            i = _skip_comment(text, i)
            continue
        m = _IDENT.match(text, i)
        if m:
            j = m.end()
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "(":
                args, rparen = _parse_args(text, j + 1)
                if rparen is None:
                    notes.append(
                        Note(m.start(), m.end(), RULE_NOT_UNDERSTOOD, WARN, "unterminated CMake command")
                    )
                    break
                cmds.append(Cmd(m.group(), m.start(), m.end(), rparen, tuple(args)))
                i = rparen + 1
                continue
        eol = text.find("\n", i)
        eol = n if eol < 0 else eol
        notes.append(Note(i, eol, RULE_NOT_UNDERSTOOD, WARN, "CMake syntax not understood; left as is"))
        i = eol
    return cmds, notes


def quote_arg(item: str) -> str:
    return f'"{item}"' if re.search(r"[\s;()#]", item) else item


def inner(arg: Arg) -> tuple[int, str]:
    """Offset of the value inside the raw argument, and the value."""
    if arg.kind == "q":
        return 1, arg.text[1:-1]
    if arg.kind == "b":
        m = _BRACKET.match(arg.text)
        return m.end(), arg.text[m.end() : len(arg.text) - len(m.group(1)) - 2]
    return 0, arg.text
