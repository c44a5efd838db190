"""What every build-file translator shares: options, rule ids, the source view, edits and notes,
source renames, and the pattern of CUDA-looking leftovers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.util.lazyre import lazy

RULE_NOT_UNDERSTOOD = "HIP401"


RULE_NVCC_FLAG = "HIP402"


WARN = Severity.WARNING


INFO = Severity.INFO


@dataclass(frozen=True)
class BuildOptions:
    """How build files are translated: GPU targets, hip* or roc* libraries, renamed sources."""

    offload_arch: tuple[str, ...] = ("gfx90a",)  # AMD targets replacing sm_XX / -gencode
    hip_libraries: str = "hip"  # "hip": hipblas, hiprand, ...; "roc": rocblas, rocrand, ...
    # old -> new source file names, when the tree's files are renamed (e.g. kernel.cu -> kernel.hip)
    rename_sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.hip_libraries not in ("hip", "roc"):
            raise ValueError(f"hip_libraries must be 'hip' or 'roc', not {self.hip_libraries!r}")


def build_file_kind(path: str) -> str | None:
    """ "cmake", "make" or None, from the file name alone."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith((".mk", ".make")):
        return "make"
    return None


class Note(NamedTuple):
    start: int  # byte offsets in the original source
    end: int
    rule: str
    severity: Severity
    message: str
    hint: str = ""


@dataclass(frozen=True)
class Src:
    raw: bytes
    text: str  # latin-1 view: one char per byte, so str offsets are byte offsets
    line_starts: tuple[int, ...]
    nl: str  # the file's line break, reused for inserted lines

    @classmethod
    def of(cls, raw: bytes) -> Src:
        text = raw.decode("latin-1")
        starts = (0, *(m.end() for m in re.finditer("\n", text)))
        return cls(raw, text, starts, "\r\n" if "\r\n" in text else "\n")

    def line_no(self, pos: int) -> int:
        return bisect.bisect_right(self.line_starts, pos) - 1

    def line_span(self, pos: int) -> tuple[int, int, int]:
        """(start, content end without the line break, start of the next line)."""
        i = self.line_no(pos)
        start = self.line_starts[i]
        nxt = self.line_starts[i + 1] if i + 1 < len(self.line_starts) else len(self.text)
        end = nxt
        if end > start and self.text[end - 1] == "\n":
            end -= 1
            if end > start and self.text[end - 1] == "\r":
                end -= 1
        return start, end, nxt

    def indent_at(self, pos: int) -> str:
        start = self.line_span(pos)[0]
        return re.match(r"[ \t]*", self.text[start:pos]).group(0)

    def diagnostic(self, note: Note) -> Diagnostic:
        start, end, _ = self.line_span(note.start)
        return Diagnostic(
            rule=note.rule,
            severity=note.severity,
            start=note.start,
            end=note.end,
            line=self.line_no(note.start) + 1,
            col=note.start - start + 1,
            message=note.message,
            hint=note.hint,
            source_line=self.raw[start:end].decode("utf-8", "replace"),
        )


def edit(start: int, end: int, text: str) -> Edit:
    # texts are latin-1 views of the source plus ASCII, so this restores the original bytes
    return Edit(start, end, text.encode("latin-1"))


def leftover_note(start: int, end: int, token: str) -> Note:
    """A CUDA-looking token no rule understood: reported, never guessed."""
    return Note(
        start,
        end,
        RULE_NOT_UNDERSTOOD,
        WARN,
        f"CUDA-specific `{token}` left as is: not understood",
        "port this part of the build by hand",
    )


def finish(src: Src, edits: Iterable[Edit], notes: Iterable[Note]) -> tuple[bytes, list[Diagnostic]]:
    ordered = sorted(set(notes), key=lambda n: (n.start, n.end, n.rule, n.message))
    return apply_edits(src.raw, edits), [src.diagnostic(n) for n in ordered]


def line_deletions(text: str, spans: Iterable[tuple[int, int]], ls: int, ce: int) -> tuple[list, bool]:
    """Deletions inside one physical line [ls, ce), widened so the line stays tidy.

    A deleted word takes the blanks before it (or after it, when it starts the line, so the indent
    stays). Returns the widened spans and whether nothing but blanks is left on the line.
    """
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and text[merged[-1][1] : s].strip(" \t") == "":
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    out: list[tuple[int, int]] = []
    for s, e in merged:
        left = s
        while left > ls and text[left - 1] in " \t":
            left -= 1
        if left > ls:
            out.append((left, e))
            continue
        right = e
        while right < ce and text[right] in " \t":
            right += 1
        out.append((s, right))
    pos, rest = ls, []
    for s, e in out:
        rest.append(text[pos:s])
        pos = e
    rest.append(text[pos:ce])
    return out, "".join(rest).strip(" \t") == ""


@dataclass(frozen=True)
class Renames:
    table: Mapping[str, str]  # latin-1 views of the names
    uniform_ext: str | None  # ".hip" when every renamed .cu file gets that extension, else None

    @classmethod
    def of(cls, rename: Mapping[str, str]) -> Renames:
        table = {
            k.encode().decode("latin-1").replace("\\", "/"): v.encode().decode("latin-1").replace("\\", "/")
            for k, v in rename.items()
        }
        exts = {_ext(v) for k, v in table.items() if k.endswith(".cu")}
        return cls(MappingProxyType(table), exts.pop() if len(exts) == 1 else None)

    def lookup(self, item: str) -> str | None:
        """New spelling of a source name as written (only the file name part changes)."""
        for old, new in self.table.items():
            if item == old or item.endswith("/" + old) or old.endswith("/" + item):
                base_old, base_new = old.rsplit("/", 1)[-1], new.rsplit("/", 1)[-1]
                if item.endswith(base_old):
                    return item[: len(item) - len(base_old)] + base_new
        return None


def _ext(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base[base.rfind(".") :] if "." in base else ""


RESIDUE = lazy(r"[A-Za-z0-9_]*(?:[Cc][Uu][Dd][Aa]|[Nn][Vv][Cc][Cc])[A-Za-z0-9_]*")
