"""Source text as bytes plus a line index (byte offset -> line:col)."""

from __future__ import annotations

import bisect
import re

UTF8_BOM = b"\xef\xbb\xbf"


class LineIndex:
    """Byte offset <-> line and column of a source (read-only after construction)."""

    __slots__ = ("source", "starts")

    def __init__(self, source: bytes) -> None:
        starts = [0]
        find = source.find
        pos = find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find(b"\n", pos + 1)
        self.source = source
        self.starts: tuple[int, ...] = tuple(starts)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and 1-based byte column of a byte offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line_start(self, offset: int) -> int:
        return self.starts[bisect.bisect_right(self.starts, offset) - 1]

    def line_text(self, line: int) -> str:
        """The 1-based line, decoded for display (invalid bytes replaced), without the newline."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.source)
        return self.source[start:end].rstrip(b"\r\n").decode("utf-8", "replace")


def line_matches(pattern: re.Pattern[bytes], source: bytes, needle: bytes = b"#") -> list[re.Match[bytes]]:
    """`pattern.finditer(source)` for a MULTILINE pattern anchored at line starts (`^...`) whose matches
    hold `needle` in their first line and never reach past it (a directive: `^[ \t]*#[ \t]*define...`),
    tried only at the starts of the lines that hold the needle. why: the regex engine cannot search for
    such a pattern, it tries it at every byte (~0.4 ms on a 50 KB file); the lines with a `#` are few.
    Such matches are one per line at most, so none can hide another as finditer's could."""
    found = []
    at = source.find(needle)
    while at >= 0:
        m = pattern.match(source, source.rfind(b"\n", 0, at) + 1)
        if m is not None:
            found.append(m)
        at = source.find(b"\n", at)
        if at < 0:
            break
        at = source.find(needle, at)
    return found


def newline_of(source: bytes) -> bytes:
    """The file's dominant newline, so inserted lines match it."""
    crlf = source.count(b"\r\n")
    return b"\r\n" if crlf and crlf * 2 >= source.count(b"\n") else b"\n"
