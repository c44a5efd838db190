"""`--annotate`: `// HIPIFY-PY: HIPxxx message` comment lines above lines that need human attention.

annotation_edits() returns insertions into the ORIGINAL source, applied by translate() with every other
edit. A comment line can go between any two C++ tokens except inside a token that spans lines (block
comment, raw string, `//` comment continued with `\\`) and inside a `\\`-continued line (a macro body):
there the comment moves up to the first line where it is harmless. Re-running never duplicates a note:
the ids already written in the block of HIPIFY-PY comments above a line are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hipify_py.engine import lexer
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import UTF8_BOM, LineIndex, newline_of
from hipify_py.util.fileio import is_valid_utf8
from hipify_py.util.lazyre import lazy

MARK = "HIPIFY-PY:"
MAX_MESSAGE = 160  # a note is a pointer to the report, not the report; keep lines readable

_NOTE = lazy(rb"^[ \t]*//[ \t]*HIPIFY-PY:[ \t]*(HIP\d+)\b")
_IGNORE = lazy(rb"^[ \t]*//[ \t]*hipify-py:\s*ignore\b")


def annotation_edits(
    source: bytes, diagnostics: Iterable[Diagnostic], edits: Sequence[Edit] = ()
) -> list[Edit]:
    """Insertions of one note per (anchor line, rule) for diagnostics of severity >= warning.

    `edits` are the translation's own edits: a note never lands inside a text they replace.
    """
    wanted = sorted(
        (d for d in diagnostics if d.severity >= Severity.WARNING), key=lambda d: (d.line, d.col, d.rule)
    )
    if not wanted:
        return []
    index = LineIndex(source)
    lines = _physical_lines(source, index)
    blocked = _blocked_lines(source, index, lines) | _replaced_line_starts(index, edits)
    notes: dict[int, dict[str, Diagnostic]] = {}
    for d in wanted:
        anchor = _anchor(d.line, blocked, len(lines))
        notes.setdefault(anchor, {}).setdefault(d.rule, d)
    utf8 = is_valid_utf8(source)
    edits = []
    for anchor, by_rule in sorted(notes.items()):
        top, existing = _note_block(lines, anchor)
        text = lines[anchor - 1]
        indent = text[: len(text) - len(text.lstrip(b" \t"))]
        newline = _line_newline(source, index, anchor)
        new = [
            indent + _note(d, utf8) + newline for rule, d in sorted(by_rule.items()) if rule not in existing
        ]
        if new:
            at = index.starts[top - 1]
            if at == 0 and source.startswith(UTF8_BOM):
                at = len(UTF8_BOM)  # the BOM stays first
            edits.append(Edit(at, at, b"".join(new)))
    return edits


def _note(d: Diagnostic, utf8: bool) -> bytes:
    message = " ".join(d.message.split())  # one line
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3].rstrip() + "..."
    # why: a trailing backslash would continue the comment onto the code line; `hipify-py:` inside the
    # text would be read back as a suppression/off directive on the next run
    message = message.rstrip("\\ ").replace("hipify-py:", "hipify-py :")
    encoded = message.encode("utf-8") if utf8 else message.encode("ascii", "replace")
    return f"// {MARK} {d.rule} ".encode() + encoded


def _physical_lines(source: bytes, index: LineIndex) -> list[bytes]:
    """Each 1-based line's bytes without its newline (index 0 is line 1)."""
    starts = index.starts
    ends = [*starts[1:], len(source)]
    lines = [source[s:e].rstrip(b"\r\n") for s, e in zip(starts, ends, strict=True)]
    if lines and not lines[-1] and len(lines) > 1 and source.endswith(b"\n"):
        lines.pop()  # the empty "line" after a final newline
    if lines:
        lines[0] = lines[0].removeprefix(UTF8_BOM)
    return lines


def _blocked_lines(source: bytes, index: LineIndex, lines: Sequence[bytes]) -> set[int]:
    """Lines whose start cannot take a comment line above it (1-based)."""
    blocked: set[int] = set()
    for number, text in enumerate(lines, start=1):
        if text.endswith(b"\\"):  # continued line (macro body, long directive): the next line joins it
            blocked.add(number + 1)
    for start, end in lexer.skipped_spans(source):  # comments and literals: only some span lines
        first, _ = index.line_col(start)
        last, _ = index.line_col(max(start, end - 1))
        blocked.update(range(first + 1, last + 1))
    return blocked


def _replaced_line_starts(index: LineIndex, edits: Sequence[Edit]) -> set[int]:
    """Lines that start strictly inside a replaced range (e.g. a launch split across lines)."""
    blocked: set[int] = set()
    for edit in edits:
        if edit.end - edit.start > 1:
            first, _ = index.line_col(edit.start)
            last, _ = index.line_col(edit.end - 1)
            blocked.update(range(first + 1, last + 1))
    return blocked


def _anchor(line: int, blocked: set[int], count: int) -> int:
    """The nearest line at or above `line` before which a comment line can be inserted."""
    line = min(max(line, 1), max(count, 1))
    while line > 1 and line in blocked:
        line -= 1
    return line


def _note_block(lines: Sequence[bytes], anchor: int) -> tuple[int, set[str]]:
    """(first line of the HIPIFY-PY/ignore comment block directly above `anchor`, ids noted in it).

    New notes go on top of the block, so a `// hipify-py: ignore[...]` line stays next to its code.
    """
    top, ids = anchor, set()
    while top > 1:
        above = lines[top - 2]
        note = _NOTE.match(above)
        if note is None and _IGNORE.match(above) is None:
            break
        if note is not None:
            ids.add(note.group(1).decode())
        top -= 1
    return top, ids


def _line_newline(source: bytes, index: LineIndex, line: int) -> bytes:
    """The newline ending `line` (mixed-newline files keep each line's own), else the file's."""
    end = index.starts[line] if line < len(index.starts) else len(source)
    if source[:end].endswith(b"\r\n"):
        return b"\r\n"
    if source[:end].endswith(b"\n"):
        return b"\n"
    return newline_of(source)
