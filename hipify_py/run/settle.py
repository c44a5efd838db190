"""The project-wide settle step: findings that wait for the whole run (project/option_macros.py).

After every file is done, error findings under an option macro nothing defines become warnings. Only
severities and messages change, never an output.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hipify_py.project.option_macros import pending
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, RunSettings


def settle_options(files: Sequence[Found], outcomes: Sequence[FileOutcome], settings: RunSettings) -> None:
    """Error findings under an option macro (`#ifdef PTX`) that nothing in the project defines - no file
    of the run, no header they include, no build file, no -D of the user's - become warnings.

    Runs only when some finding waits for it: the build files are read here, the sources' #defines
    came with their results (a worker's or the cache's)."""
    from hipify_py.project.option_macros import build_defines, build_files, built_from, settle

    converted = {os.path.abspath(f.path) for f in files}
    by_folder: dict[str, dict[str, str]] = {}  # build file's folder -> macro -> "" or the option
    for path in build_files(sorted({f.root for f in files})):
        try:
            found = build_defines(path.read_text(errors="replace"), path.name, _meson_options(path))
        except OSError:
            continue
        _merge_defines(by_folder.setdefault(os.path.abspath(built_from(path)), {}), found)
    always = {d.split("=", 1)[0].strip() for d in settings.defines}
    for outcome in outcomes:
        always.update(outcome.defines)
    for outcome in outcomes:
        if pending(outcome.diagnostics):
            always |= _included_defines(outcome.path, converted)
    for outcome in outcomes:
        if pending(outcome.diagnostics):
            defined = _build_defines_for(os.path.abspath(outcome.path), by_folder)
            defined.update(dict.fromkeys(always, ""))
            outcome.diagnostics = settle(outcome.diagnostics, defined)


def _meson_options(path: Path) -> str:
    """A meson.build's option defaults: meson_options.txt (meson.options since Meson 1.1) beside it or in
    the folders above it, where the project's top meson.build is."""
    if path.name != "meson.build":
        return ""
    for folder in (path.parent, *path.parent.parents):
        for name in ("meson.options", "meson_options.txt"):
            try:
                return (folder / name).read_text(errors="replace")
            except OSError:
                continue
    return ""


def _under(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def _merge_defines(into: dict[str, str], found: dict[str, str]) -> None:
    """ "" (the default build defines it) wins over a build option that does."""
    for name, why in found.items():
        if into.get(name) != "":
            into[name] = why if name not in into or not why else into[name]


def _build_defines_for(path: str, by_folder: dict[str, dict[str, str]]) -> dict[str, str]:
    """What the build files that build `path` define: those in its folder or above it. A file under
    no build file of the run (a shared `include/` beside several projects) may be built by any of
    them, so it gets them all: a sibling project's `-DVERIFY` says nothing of this one's build."""
    folder = os.path.dirname(path)
    mine = [f for f in by_folder if folder == f or _under(folder, f)]
    defined: dict[str, str] = {}
    for f in mine or list(by_folder):
        _merge_defines(defined, by_folder[f])
    return defined


def _included_defines(path: Path, converted: set[str], depth: int = 8) -> set[str]:
    """#defines of the headers `path` includes that the run does not convert: a pre-commit run names a
    few files, the header that switches the option on may not be one. A quoted include is looked for
    beside its includer, then (as an angled one is) in the folders of the run's files, the -I folders a
    project's build gives (OPS: `#include <ops_lib_core.h>` from ops/c/include, where the run converts
    ops/c/include/ops_cuda_rt_support.h); system headers are in none of them."""
    from hipify_py.analysis.defines import angled_includes, file_defines, quoted_includes

    folders = sorted({os.path.dirname(name) for name in converted})
    found: set[str] = set()
    todo, seen = [os.path.abspath(path)], set()
    while todo and len(seen) < 64:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            with open(name, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if name not in converted:
            found.update(file_defines(data))
        if len(seen) <= depth * 8:
            here = os.path.dirname(name)
            for include, quoted in [(i, True) for i in quoted_includes(data)] + [
                (i, False) for i in angled_includes(data)
            ]:
                header = _find(include, ([here] if quoted else []) + folders)
                if header is not None:
                    todo.append(header)
    return found


def _find(include: str, folders: list[str]) -> str | None:
    for folder in folders:
        candidate = os.path.normpath(os.path.join(folder, include))
        if os.path.isfile(candidate):
            return candidate
    return None
