"""The project-wide settle step: findings that wait for the whole run (project/option_macros.py).

After every file is done, error findings under an option macro nothing defines, or a colliding
operator nothing uses (project/operator_uses.py), become warnings. Only severities and messages
change, never an output.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from hipify_py.analysis.defines import USE
from hipify_py.data import derived
from hipify_py.project.option_macros import pending
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings, Status
from hipify_py.run.result_cache import content_hash
from hipify_py.util.fileio import (
    atomic_write,
)


def settle_options(files: Sequence[Found], outcomes: Sequence[FileOutcome], settings: RunSettings) -> None:
    """Error findings under an option macro (`#ifdef PTX`) that nothing in the project defines - no file
    of the run, no header they include, no build file, no -D of the user's - become warnings.

    Runs only when some finding waits for it: the build files are read here, the sources' #defines
    came with their results (a worker's or the cache's)."""
    from hipify_py.project.option_macros import build_defines, build_files, settle

    converted = {os.path.abspath(f.path) for f in files}
    by_folder: dict[str, dict[str, str]] = {}  # build file's folder -> macro -> "" or the option
    for path in build_files(sorted({f.root for f in files})):
        try:
            found = build_defines(path.read_text(errors="replace"), path.name)
        except OSError:
            continue
        _merge_defines(by_folder.setdefault(os.path.abspath(path.parent), {}), found)
    always = {d.split("=", 1)[0].strip() for d in settings.defines}
    for outcome in outcomes:
        always.update(outcome.defines)
    for outcome in outcomes:
        if pending(outcome.diagnostics):
            always |= _included_defines(outcome.path, converted)
    uses: dict[str, set[str]] = {}  # file with a colliding operator -> uses in the files that see it
    for outcome in outcomes:
        if pending(outcome.diagnostics):
            path = os.path.abspath(outcome.path)
            defined = _build_defines_for(path, by_folder)
            defined.update(dict.fromkeys(always, ""))
            if any(n.startswith(USE) for d in outcome.diagnostics for n in d.requires):
                if path not in uses:
                    seeing = _includers(path, outcomes, settings.mode, settings.cache_dir)
                    uses[path] = operator_uses_of(seeing, settings.cache_dir, settings.mode)
                defined.update(dict.fromkeys(uses[path], ""))
            outcome.diagnostics = settle(outcome.diagnostics, defined)


def _on_disk(outcome: FileOutcome, mode: Mode) -> Path:
    """Where the file's current text is: what --in-place wrote, else the file as read."""
    if mode is Mode.IN_PLACE and outcome.status is Status.CHANGED and outcome.output is not None:
        return outcome.output
    return outcome.path


def _includers(
    path: str, outcomes: Sequence[FileOutcome], mode: Mode, cache_dir: Path | None = None
) -> list[FileOutcome]:
    """The file and the files of the run that include it, directly or through other headers: only
    they see an operator it defines (a HeCBench program's operator is none of the 260 others'
    business; scanning all 1,153 files for uses took 0.9 s of a cold run). `#include "x.h"` names the
    file beside the includer when there is one; otherwise (found through a -I directory) any x.h of
    the run may be it, so it counts (more uses: the finding stays an error)."""
    from hipify_py.analysis.defines import quoted_includes

    def includes(data: bytes) -> list[str]:
        return sorted(set(quoted_includes(data))) if b"include" in data else []

    by_name: dict[str, list[tuple[FileOutcome, str]]] = {}  # file name -> (includer, as written)
    for outcome, included in _scanned(outcomes, mode, cache_dir, "quoted-includes", includes):
        if included is None:
            return list(outcomes)  # unknown includes: any file may see it
        for inc in included:
            by_name.setdefault(os.path.basename(inc), []).append((outcome, inc))
    seen = {o.path: o for o in outcomes if os.path.abspath(o.path) == path}
    todo = [path]
    while todo:
        target = todo.pop()
        for outcome, inc in by_name.get(os.path.basename(target), ()):
            beside = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(outcome.path)), inc))
            if outcome.path in seen or (beside != target and os.path.isfile(beside)):
                continue  # seen, or it includes another file of that name
            seen[outcome.path] = outcome
            todo.append(os.path.abspath(outcome.path))
    return list(seen.values())


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


def operator_uses_of(
    outcomes: Sequence[FileOutcome], cache_dir: Path | None = None, mode: Mode = Mode.CHECK
) -> set[str]:
    """The vector operator uses of these sources (vector_ops.operator_uses), for a colliding operator
    (HIP127) that is an error only where something uses it. Read again here, only when such a finding
    waits: a per-file scan in every worker would tax every run for a rare finding."""
    from hipify_py.project.operator_uses import operator_uses

    uses: set[str] = set()
    for _, found in _scanned(outcomes, mode, cache_dir, "operator-uses", operator_uses):
        uses.update(found if found is not None else (f"{USE}? ?",))  # unreadable: it may use anything
    return uses


def _scanned(
    outcomes: Sequence[FileOutcome],
    mode: Mode,
    cache_dir: Path | None,
    name: str,
    scan: Callable[[bytes], Iterable[str]],
) -> list[tuple[FileOutcome, tuple[str, ...] | None]]:
    """`scan` of each source's text as it is on disk (None: unreadable). Results are kept in the cache
    directory by content hash (and code stamp); the run already knows the hash of what is on disk (the
    cache's stat index, or what --in-place wrote), so a warm run reads no file again (1,153 files:
    0.65 s of scanning operator uses otherwise, ~0.05 s of reading and hashing)."""
    store = derived.path_for(name, (), cache_dir) if cache_dir is not None else None
    known = _read_scans(store)
    new: dict[str, tuple[str, ...]] = {}
    out: list[tuple[FileOutcome, tuple[str, ...] | None]] = []
    for outcome in outcomes:
        if outcome.kind != "source":
            continue
        path = _on_disk(outcome, mode)
        digest = outcome.out_hash if path is not outcome.path else outcome.in_hash
        found = known.get(digest) if digest else None
        if found is None:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                out.append((outcome, None))
                continue
            digest = content_hash(data)
            found = known.get(digest)
            if found is None:
                found = new[digest] = tuple(scan(data))
        out.append((outcome, found))
    if store is not None and new:
        _write_scans(store, {**known, **new})
    return out


def _read_scans(path: Path | None) -> dict[str, tuple[str, ...]]:
    import marshal

    try:
        with open(path, "rb") as handle:  # type: ignore[arg-type]
            data = marshal.loads(handle.read())
    except Exception:  # why so broad: no cache, missing, damaged: scan again
        return {}
    return data if isinstance(data, dict) else {}


def _write_scans(path: Path, uses: dict[str, tuple[str, ...]]) -> None:
    import contextlib
    import marshal

    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, marshal.dumps(dict(list(uses.items())[-20000:])), durable=False)


def _included_defines(path: Path, converted: set[str], depth: int = 8) -> set[str]:
    """#defines of the quoted headers `path` includes (from its folder) that the run does not convert:
    a pre-commit run names a few files, the header that switches the option on may not be one."""
    from hipify_py.analysis.defines import file_defines, quoted_includes

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
            folder = os.path.dirname(name)
            todo += [os.path.normpath(os.path.join(folder, inc)) for inc in quoted_includes(data)]
    return found
