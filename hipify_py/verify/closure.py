"""Which files of the run a translation unit can include: its local include closure.

A TU may be compiled as soon as every file of the run it can include has been written (runner.py lets
compiles start while other files are still being translated). The closure is read from the input
files before the run starts, with the include search the compiler does (quoted: the including file's
folder, then -iquote, -I, -isystem, -idirafter; angled: from -I on), every `#include` line counted
whatever its `#if` (more files to wait for, never fewer). Files found in the user's include folders
that the run does not convert are followed too (they may include converted ones); a header found in
none of them is the system's. An include that cannot be resolved without the preprocessor
(`#include MACRO`, `#include_next`) makes the TU wait for the whole translation.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hipify_py.util.lazyre import lazy

_DIRECTIVE = lazy(rb"^[ \t]*#[ \t]*include(_next)?\b[ \t]*([^\n]*)", re.MULTILINE)
_NAMED = lazy(rb'"([^"\n]+)"|<([^>\n]+)>')


@dataclass(frozen=True)
class SearchPath:
    """Include folders in the compiler's order, absolute input paths."""

    quote: tuple[str, ...] = ()  # -iquote
    angled: tuple[str, ...] = ()  # -I, -isystem, -idirafter (in that order, as clang searches)
    forced: tuple[str, ...] = ()  # -include FILE: read before the TU's first line


def search_path(args: Sequence[str], cwd: str) -> SearchPath:
    """The include search of compile flags (`-Idir`, `-isystem dir`, ...; relative to cwd)."""
    found: dict[str, list[str]] = {"-iquote": [], "-I": [], "-isystem": [], "-idirafter": [], "-include": []}
    i = 0
    while i < len(args):
        word = args[i]
        flag = next((f for f in found if word.startswith(f)), None)
        if flag is not None:
            value = word[len(flag) :] or (args[i + 1] if i + 1 < len(args) else "")
            if value:
                found[flag].append(os.path.normpath(os.path.join(cwd, value)))
            i += 1 if word != flag else 2
            continue
        i += 1
    angled = (*found["-I"], *found["-isystem"], *found["-idirafter"])
    return SearchPath(tuple(found["-iquote"]), angled, tuple(found["-include"]))


def includes_of(text: bytes) -> list[tuple[bool, str] | None]:
    """(quoted, name) of every #include line; None for one the preprocessor must compute."""
    if b"include" not in text:
        return []
    out: list[tuple[bool, str] | None] = []
    for m in _DIRECTIVE.finditer(text):
        named = _NAMED.match(m.group(2))
        if m.group(1) or named is None:
            out.append(None)
        else:
            quoted = named.group(1) is not None
            out.append((quoted, os.fsdecode(named.group(1) if quoted else named.group(2))))
    return out


class Closures:
    """Include closures of many TUs over one input tree; each file is read and scanned once."""

    def __init__(self, run_files: Iterable[str]) -> None:
        self.run = {os.path.normpath(p) for p in run_files}
        self.real = {os.path.realpath(p): p for p in self.run}  # why: a symlinked folder is the same file
        self.scanned: dict[str, list[tuple[bool, str] | None]] = {}
        self.resolved: dict[tuple[str, bool, str, SearchPath], str | None] = {}

    def _includes(self, path: str) -> list[tuple[bool, str] | None]:
        if path not in self.scanned:
            try:
                with open(path, "rb") as handle:
                    self.scanned[path] = includes_of(handle.read())
            except OSError:
                self.scanned[path] = []
        return self.scanned[path]

    def _resolve(self, includer: str, quoted: bool, name: str, search: SearchPath) -> str | None:
        key = (os.path.dirname(includer) if quoted else "", quoted, name, search)
        if key not in self.resolved:
            self.resolved[key] = self._find(includer, quoted, name, search)
        return self.resolved[key]

    def _find(self, includer: str, quoted: bool, name: str, search: SearchPath) -> str | None:
        if os.path.isabs(name):
            dirs: Sequence[str] = ("",)
        elif quoted:  # why realpath: `..` from a symlinked folder goes up from where the file really is
            dirs = (os.path.realpath(os.path.dirname(includer)), *search.quote, *search.angled)
        else:
            dirs = search.angled
        for d in dirs:
            candidate = os.path.normpath(os.path.join(d, name))
            if candidate in self.run:
                return candidate
            if os.path.isfile(candidate):
                return self.real.get(os.path.realpath(candidate), candidate)
        return None  # a system header (or a missing one): nothing of the run

    def run_files_of(self, tu: str, search: SearchPath) -> frozenset[str] | None:
        """The run's files the TU can include (itself too); None when an include cannot be resolved."""
        start = os.path.normpath(tu)
        seen = {start}
        todo = [start, *(self.real.get(os.path.realpath(f), f) for f in search.forced)]
        while todo:
            path = todo.pop()
            seen.add(path)
            for include in self._includes(path):
                if include is None:
                    return None
                found = self._resolve(path, *include, search)
                if found is not None and found not in seen:
                    seen.add(found)
                    todo.append(found)
        return frozenset(p for p in seen if p in self.run)

    def included_by(self, path: str, search: SearchPath) -> set[str]:
        """The run's files `path` includes directly (`#include "kernel.cu"` makes kernel.cu no TU)."""
        found = set()
        for include in self._includes(os.path.normpath(path)):
            if include is not None:
                target = self._resolve(path, *include, search)
                if target is not None and target in self.run and target != path:
                    found.add(target)
        return found
