"""Rename policy: `.cu` -> `.hip`/`.cpp`, `.cuh` -> `.hip.h`/`.h`, and the quoted includes that follow.

A pre-pass over all discovered files builds the old -> new name table (RenamePlan); each source file's
`#include "..."` lines that name a renamed file get the new file name: `include_edits` finds them in the
source and translate() applies them with its own edits (pipeline/insertions.py: one apply_edits, one line
map). Only the file-name part of the include string changes, so the include keeps resolving the same way.

An include resolves to a renamed file when (1) it is a path relative to the including file's directory,
or, failing that, (2) exactly one renamed file's path ends with the include text (project-root
relative includes and bare basenames; an ambiguous name is left alone).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.util.lazyre import lazy

POLICIES = ("none", "hip", "cpp")
_SUFFIXES: Mapping[str, Mapping[str, str]] = {
    "hip": {".cu": ".hip", ".cuh": ".hip.h"},
    "cpp": {".cu": ".cpp", ".cuh": ".h"},
}

# A quoted include at the start of a line (after optional blanks), capturing the quoted text.
_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"', re.MULTILINE)
# Comments and literals, so that an include-looking line inside /* ... */ is not touched.
_SKIPPED = lazy(rb'/\*.*?(?:\*/|\Z)|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


def new_name(name: str, policy: str) -> str | None:
    """The renamed file name, or None when the policy keeps it."""
    for old, new in _SUFFIXES.get(policy, {}).items():
        if name.endswith(old) and len(name) > len(old):
            return name[: -len(old)] + new
    return None


class RenamePlan(NamedTuple):
    """old absolute path -> new absolute path (both normalised strings), for every renamed file."""

    policy: str
    table: Mapping[str, str]

    def __call__(self, path: Path) -> Path:
        new = self.table.get(os.path.abspath(path))
        return path.with_name(os.path.basename(new)) if new else path

    def digest_text(self) -> str:
        """Stable text of the plan, for cache keys (the include edits depend on it)."""
        return self.policy + "\0" + "\0".join(f"{k}\0{v}" for k, v in sorted(self.table.items()))

    def resolve_include(self, including: Path, text: str) -> str | None:
        """Old absolute path of the renamed file an include names, or None."""
        if not self.table:
            return None
        local = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(including)), text))
        if local in self.table:
            return local
        if os.path.isabs(text) or text.startswith(".."):
            return None
        suffix = "/" + text.replace("\\", "/").lstrip("./")
        matches = [old for old in self.table if old.replace(os.sep, "/").endswith(suffix)]
        return matches[0] if len(matches) == 1 else None

    def relative_to(self, directory: Path) -> dict[str, str]:
        """Renamed files below `directory` as relative posix paths old -> new (for build files)."""
        top = os.path.abspath(directory)
        out: dict[str, str] = {}
        for old, new in self.table.items():
            if old.startswith(top + os.sep):
                rel_old = os.path.relpath(old, top).replace(os.sep, "/")
                out[rel_old] = os.path.relpath(new, top).replace(os.sep, "/")
        return out


def make_plan(paths: Iterable[Path], policy: str) -> RenamePlan:
    if policy not in POLICIES:
        raise ValueError(f"rename policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    table: dict[str, str] = {}
    for path in paths:
        name = new_name(path.name, policy)
        if name is not None:
            old = os.path.abspath(path)
            table[old] = os.path.join(os.path.dirname(old), name)
    return RenamePlan(policy, table)


def update_includes(text: bytes, including: Path, plan: RenamePlan) -> tuple[bytes, int]:
    """`text` with quoted includes of renamed files pointing at the new names; and how many changed."""
    edits = include_edits(text, including, plan)
    if not edits:
        return text, 0
    return apply_edits(text, edits), len(edits)


def include_edits(text: bytes, including: Path, plan: RenamePlan) -> list[Edit]:
    """Edits pointing quoted includes of renamed files at the new names."""
    if not plan.table or b"include" not in text:
        return []
    comments: list[tuple[int, int]] | None = None
    edits: list[Edit] = []
    for match in _INCLUDE.finditer(text):
        old = plan.resolve_include(including, os.fsdecode(match.group(1)))
        if old is None:
            continue
        if comments is None:  # why lazy: most files include no renamed file
            comments = _comment_spans(text)
        if any(start <= match.start(1) < end for start, end in comments):
            continue
        spelled = os.fsdecode(match.group(1))
        base = spelled.replace("\\", "/").rsplit("/", 1)[-1]
        renamed = spelled[: len(spelled) - len(base)] + os.path.basename(plan.table[old])
        edits.append(Edit(match.start(1), match.end(1), os.fsencode(renamed)))
    return edits


def _comment_spans(text: bytes) -> list[tuple[int, int]]:
    """Spans of comments, found by a scan that also steps over string and char literals (so that
    `"/*"` does not open a comment). An include line's own quoted text is a literal, not a comment."""
    return [m.span() for m in _SKIPPED.finditer(text) if not m.group().startswith((b'"', b"'"))]
