"""Parse clang/hipcc diagnostics (stderr) into errors with their notes and include stacks.

clang prints, per diagnostic: the "In file included from X:L:" lines (outermost first) when the include
stack differs from the previous diagnostic's, then `file:line:col: error: message`, the source line and
caret, then its notes (`note: expanded from macro`, `note: in instantiation of ... requested here`,
`note: previous definition is here`). hipcc compiles host and device separately, so one mistake is often
reported twice ("... when compiling for host" / "for gfx90a"): duplicates are merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hipify_py.util.lazyre import lazy

_LOCATED = lazy(
    r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+): (?P<kind>fatal error|error|warning|note|remark): "
    r"(?P<text>.*)$"
)
_UNLOCATED = lazy(r"^(?:(?P<tool>[\w.+-]+): )?(?P<kind>fatal error|error): (?P<text>.*)$")
_INCLUDED = lazy(r"^(?:In file included from|\s+from) (?P<file>.+?):(?P<line>\d+):$")
_FLAG_SUFFIX = lazy(r" \[-W[\w-]+(?:=[\w-]+)?\]$")


@dataclass(frozen=True)
class Location:
    file: str  # as printed (relative to the compiler's working directory, or absolute)
    line: int
    col: int = 0


@dataclass(frozen=True)
class Note:
    where: Location
    text: str


@dataclass
class CompilerError:
    where: Location | None  # None: an error without a location (bad flag, missing input)
    text: str
    fatal: bool = False
    notes: list[Note] = field(default_factory=list)
    included_from: tuple[Location, ...] = ()  # outermost first

    def key(self) -> tuple:
        return (self.where, self.text)


def parse(stderr: str) -> list[CompilerError]:
    """Errors in order of appearance, host/device duplicates merged (warnings are dropped)."""
    errors: list[CompilerError] = []
    seen: set[tuple] = set()
    pending: list[Location] = []  # "In file included from" lines before the next diagnostic
    stacks: dict[str, tuple[Location, ...]] = {}  # last include stack printed per file
    current: CompilerError | None = None  # the error the following notes belong to
    for raw in stderr.splitlines():
        line = raw.rstrip()
        inc = _INCLUDED.match(line)
        if inc:
            pending.append(Location(inc["file"], int(inc["line"])))
            continue
        m = _LOCATED.match(line)
        if m:
            where = Location(m["file"], int(m["line"]), int(m["col"]))
            if pending:
                stacks[where.file] = tuple(pending)
                pending = []
            kind, text = m["kind"], _FLAG_SUFFIX.sub("", m["text"])
            if kind == "note":
                if current is not None:
                    current.notes.append(Note(where, text))
                continue
            if kind not in ("error", "fatal error"):
                current = None  # a warning's notes are not the error's
                continue
            current = CompilerError(
                where, text, kind == "fatal error", included_from=stacks.get(where.file, ())
            )
            if current.key() in seen:
                current = None
                continue
            seen.add(current.key())
            errors.append(current)
            continue
        u = _UNLOCATED.match(line)
        if u and not line.startswith(" "):
            current = CompilerError(None, u["text"], u["kind"] == "fatal error")
            if current.key() not in seen:
                seen.add(current.key())
                errors.append(current)
            current = None
    return errors
