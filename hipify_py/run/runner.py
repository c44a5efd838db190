"""Many files: convert in a process pool, write atomically / diff / check, collect outcomes.

All I/O lives here; translate() stays pure. Each worker returns a small FileOutcome; the parent
aggregates them into the report.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from hipify_py.analysis.defines import USE
from hipify_py.data import derived
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import apply_edits
from hipify_py.engine.options import Options
from hipify_py.project.option_macros import pending
from hipify_py.run.cache import Result, ResultCache, content_hash, get_blob, put_blob, settings_digest
from hipify_py.run.discover import Found
from hipify_py.run.output_names import RenamePlan, include_edits
from hipify_py.util.fileio import (
    InputError,
    atomic_write,
    backup_copy,
    is_valid_utf8,
    read_source,
    remove_stale_temps,
    writable,
)

if TYPE_CHECKING:
    from hipify_py.run.pool import SideWork

# why no top-level import of translate/difflib/multiprocessing: a warm run where every file is a cache
# hit must not pay for tree-sitter, the mapping tables or a process pool (see cache.py).


class Mode(str, Enum):
    OUTPUT_TREE = "output"  # write converted files under an output directory
    IN_PLACE = "in-place"
    DIFF = "diff"  # unified diff on stdout, nothing written
    CHECK = "check"  # exit 1 if anything would change, nothing written
    STDOUT = "stdout"  # one file, converted text on stdout


class Status(str, Enum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True)
class RunSettings:
    mode: Mode
    options: Options = field(default_factory=Options)
    output_dir: Path | None = None
    backup_suffix: str | None = None
    jobs: int = 0  # 0 = CPU count
    extra_mappings: tuple[Path, ...] = ()
    rename: Callable[[Path], Path] | None = None  # new name for a converted source (None: keep)
    build_options: object | None = None  # buildfiles.BuildOptions
    cache_dir: Path | None = None  # result cache root (cache.py); None: no cache
    keep_moves: bool = False  # --verify: keep the edit moves so compiler lines map back (verify/linemap.py)
    # --verify with --diff/--check: (input root, mirror root); translated texts are also written there
    mirror: tuple[str, str] | None = None
    # --in-place: also translate each written file once more, so the next run finds it a cache hit.
    # run() turns it off for a few files (see _REMEMBER_WRITTEN_FROM).
    remember_written: bool = True
    defines: tuple[str, ...] = ()  # -D NAME[=VALUE] the user builds with (--verify's, config `defines`)


@dataclass
class FileOutcome:
    path: Path
    status: Status
    output: Path | None = None
    message: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    lines: int = 0
    diff: str = ""
    text: bytes | None = None  # STDOUT mode only
    kind: str = "source"
    cached: bool = False  # result taken from the cache, nothing translated
    out_hash: str = ""  # content hash of the converted text (when the cache is on)
    in_hash: str = ""  # content hash of the source as read (when the cache is on)
    # --in-place with the cache on: the result of converting the file as written (cache.Result), so the
    # next run knows the files this one wrote (they are hits, not new content)
    rewritten: Result | None = None
    moves: tuple = ()  # --verify: linemap.Layers from the translated text back to the source
    defines: tuple[str, ...] = ()  # macros the file #defines (option_macros)

    @property
    def worst(self) -> Severity | None:
        return max((d.severity for d in self.diagnostics), default=None)


def output_path(found: Found, settings: RunSettings) -> Path:
    renamed = settings.rename(found.path) if settings.rename and found.kind == "source" else found.path
    if settings.mode is Mode.OUTPUT_TREE and settings.output_dir is not None:
        return settings.output_dir / renamed.relative_to(found.root)
    return renamed


def unified_diff(path: Path, old: bytes, new: bytes, new_path: Path | None = None) -> str:
    import difflib

    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, f"a/{path.as_posix()}", f"b/{(new_path or path).as_posix()}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _convert(
    found: Found, source: bytes, settings: RunSettings
) -> tuple[bytes, list[Diagnostic], Counter[str], tuple, tuple[str, ...]]:
    """Converted text, findings, counts, (with keep_moves) the linemap layers of the edits, #defines."""
    if found.kind == "build":
        from hipify_py import buildfiles

        opts = settings.build_options or buildfiles.BuildOptions()
        if isinstance(settings.rename, RenamePlan) and settings.rename.table:
            opts = replace(opts, rename_sources=settings.rename.relative_to(found.path.parent))
        kind = buildfiles.build_file_kind(found.path.name)
        fn = buildfiles.translate_cmake if kind == "cmake" else buildfiles.translate_makefile
        text, diagnostics = fn(source, opts)
        return text, diagnostics, Counter({"build_files": 1} if text != source else {}), (), ()
    from hipify_py.pipeline.translate import default_tables, translate

    options = settings.options
    if options.filename != str(found.path):
        options = replace(options, filename=str(found.path))
    result = translate(source, options, default_tables(settings.extra_mappings))
    text, counts = result.text, result.counts
    layers: list[tuple] = []
    if settings.keep_moves and text != source:
        from hipify_py.engine.linemap import moves_of

        layers.append(moves_of(source, result.edits))
    if isinstance(settings.rename, RenamePlan):
        renamed = include_edits(text, found.path, settings.rename)
        if renamed:
            if settings.keep_moves:
                from hipify_py.engine.linemap import moves_of

                layers.append(moves_of(text, renamed))
            text = apply_edits(text, renamed)
            counts["renamed_includes"] += len(renamed)
    return text, result.diagnostics, counts, tuple(m for m in layers if m), result.defines


def process(found: Found, settings: RunSettings) -> FileOutcome:
    """Convert one file according to the run mode. Never raises for a bad file."""
    path = found.path
    try:
        source = read_source(path)
    except InputError as err:
        status = Status.SKIPPED if err.skip else Status.ERROR
        return FileOutcome(path, status, message=str(err), kind=found.kind)
    try:
        text, diagnostics, counts, moves, defines = _convert(found, source, settings)
    except Exception as err:  # a rule bug must not stop the run; report it with the file
        return FileOutcome(path, Status.ERROR, message=f"internal error: {type(err).__name__}: {err}")
    outcome = FileOutcome(
        path,
        Status.CHANGED if text != source else Status.UNCHANGED,
        diagnostics=diagnostics,
        counts=counts,
        lines=_line_count(source),
        kind=found.kind,
        moves=moves,
        defines=defines,
    )
    if not is_valid_utf8(source):
        outcome.message = _NOT_UTF8
    target = output_path(found, settings)
    outcome.output = target
    if settings.cache_dir is not None:
        outcome.in_hash, outcome.out_hash = content_hash(source), content_hash(text)
        # why not -o: the written output is the copy (ResultCache.written_copy); a blob per file
        # would double the file creations of a cold run, the dominant cost after translation
        if text != source and (settings.mode in (Mode.DIFF, Mode.STDOUT) or settings.mirror):
            put_blob(settings.cache_dir, outcome.out_hash, text)
    try:
        _deliver(found, source, text, target, settings, outcome)
        if settings.mirror is not None:
            _to_mirror(target, text, settings.mirror)
    except OSError as err:
        outcome.status = Status.ERROR
        outcome.message = f"cannot write {target}: {err.strerror or err}"
        return outcome
    if (
        settings.mode is Mode.IN_PLACE
        and settings.cache_dir is not None
        and text != source
        and settings.remember_written
    ):
        outcome.rewritten = _result_of_written(found, text, settings, outcome)
    return outcome


# A run that translates fewer files does not translate what it wrote once more: that is the
# pre-commit hook on a few staged files, whose latency is the user's wait, and the next run translating
# those few files costs what doing it now would. A tree converted in place is re-run fast (all hits).
_REMEMBER_WRITTEN_FROM = 16


def _result_of_written(
    found: Found, text: bytes, settings: RunSettings, outcome: FileOutcome
) -> Result | None:
    """What converting the file as just written yields (translated now, while its text is at hand).

    why: the next run (pre-commit after the hook rewrote a file, a re-run over a converted tree) sees
    new content; with this result cached it is a hit, and the same result a fresh translation gives."""
    if outcome.status is not Status.CHANGED or outcome.output != found.path:
        return None  # not written, or renamed (the new name is a different file to the next run)
    try:
        again, diagnostics, counts, moves, defines = _convert(found, text, settings)
    except Exception:  # a rule bug: the next run translates and reports it
        return None
    return Result(
        again != text,
        content_hash(again),
        _diagnostic_tuples(diagnostics),
        tuple(sorted(counts.items())),
        _line_count(text),
        "" if is_valid_utf8(text) else _NOT_UTF8,
        moves,
        defines,
    )


_NOT_UTF8 = "not valid UTF-8: converted byte-for-byte, undecodable bytes kept as they were"


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _deliver(
    found: Found, source: bytes, text: bytes, target: Path, settings: RunSettings, outcome: FileOutcome
) -> None:
    mode = settings.mode
    renamed = target != found.path and mode is Mode.IN_PLACE
    if mode is Mode.DIFF and (text != source or target != found.path):
        outcome.diff = unified_diff(found.path, source, text, target)
        if target != found.path:  # git's rename header, so a pure rename shows too (and `git apply` works)
            a, b = found.path.as_posix(), target.as_posix()
            outcome.diff = f"diff --git a/{a} b/{b}\nrename from {a}\nrename to {b}\n" + outcome.diff
    elif mode is Mode.STDOUT:
        outcome.text = text
    elif mode is Mode.OUTPUT_TREE:
        if not target.exists() or target.read_bytes() != text:
            atomic_write(target, text, mode_from=found.path, durable=False)
    elif mode is Mode.IN_PLACE and (text != source or renamed):
        if not writable(found.path):
            outcome.status = Status.ERROR
            outcome.message = "read-only file: not modified"
            return
        if renamed and _foreign(target, text):
            outcome.status = Status.ERROR
            outcome.message = f"not renamed: {target} already exists with other content"
            return
        if settings.backup_suffix:
            backup_copy(found.path, settings.backup_suffix)
        atomic_write(target, text, mode_from=found.path)
        if renamed:
            os.unlink(found.path)
            outcome.status = Status.CHANGED


def _to_mirror(target: Path, text: bytes, mirror: tuple[str, str]) -> None:
    """--verify with --diff/--check: the translated text goes into the temporary mirror only."""
    root, tree = mirror
    atomic_write(Path(tree + os.path.abspath(target)[len(root) :]), text, durable=False)


def _foreign(target: Path, text: bytes) -> bool:
    """A rename target that exists with other content is not ours (an interrupted run leaves ours)."""
    try:
        return target.read_bytes() != text
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _init_worker() -> None:
    # Ctrl-C is handled by the parent, which stops the pool; workers must not print tracebacks.
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A killed parent (SIGKILL) leaves its workers blocked forever on the task queue: stop instead.
    A file being written stays old; its temp file is removed by the next run (remove_stale_temps)."""
    import time

    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def run(
    files: Sequence[Found],
    settings: RunSettings,
    on_done: Callable[[FileOutcome], None] | None = None,
    on_progress: Callable[[FileOutcome], None] | None = None,
    side: SideWork | None = None,
) -> list[FileOutcome]:
    """Process all files, in parallel when it pays off; outcomes in input order. `side`: work that
    shares the workers and learns of each outcome (--verify's compiles, workers.py); done on return.

    `on_progress` sees each outcome as it comes; `on_done` sees it final, in input order: from the first
    file with findings that wait for the whole project (option_macros) on, once the run is complete."""
    jobs = settings.jobs or os.cpu_count() or 1
    if settings.mode in (Mode.IN_PLACE, Mode.OUTPUT_TREE):  # temp files of a run that was killed
        remove_stale_temps({output_path(found, settings).parent for found in files})
    cache = _open_cache(files, settings)
    ready: list[FileOutcome | None] = [None] * len(files)
    if cache is not None:
        ready = [_from_cache(found, settings, cache) for found in files]
    todo = [found for found, done in zip(files, ready, strict=True) if done is None]
    if len(todo) < _REMEMBER_WRITTEN_FROM:
        settings = replace(settings, remember_written=False)
    if any(found.kind == "source" for found in todo):
        from hipify_py.engine.parser import warm_up
        from hipify_py.pipeline.translate import default_tables

        default_tables(settings.extra_mappings)  # load once before forking: workers inherit it
        warm_up()  # the grammar too: a worker's start-up is a fork, nothing to load
    if side is None:
        computed = _iterate(todo, settings, jobs)
    else:
        from hipify_py.run.pool import shared

        computed = shared(todo, settings, jobs, side)
    outcomes: list[FileOutcome] = []
    held: list[FileOutcome] = []
    try:
        for found, done in zip(files, ready, strict=True):
            outcome = done or next(computed)
            if cache is not None and not outcome.cached:
                _remember(cache, found, outcome, settings)
            outcomes.append(outcome)
            if side is not None:
                side.file_done(outcome)
            if on_progress is not None:
                on_progress(outcome)
            if held or pending(outcome.diagnostics):
                held.append(outcome)
            elif on_done is not None:
                on_done(outcome)
        if side is not None:
            for _ in computed:  # the side work left when every file is done
                pass
    finally:
        if side is not None:
            computed.close()  # why: an exception above must stop the side's work now, not at exit
        if cache is not None:
            cache.save(len(files))
    if held:
        _settle_options(files, outcomes, settings)
        for outcome in held:
            if on_done is not None:
                on_done(outcome)
    return outcomes


def _settle_options(files: Sequence[Found], outcomes: Sequence[FileOutcome], settings: RunSettings) -> None:
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
                    uses[path] = _operator_uses(seeing, settings.cache_dir, settings.mode)
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


def _operator_uses(
    outcomes: Sequence[FileOutcome], cache_dir: Path | None = None, mode: Mode = Mode.CHECK
) -> set[str]:
    """The vector operator uses of these sources (vector_ops.operator_uses), for a colliding operator
    (HIP127) that is an error only where something uses it. Read again here, only when such a finding
    waits: a per-file scan in every worker would tax every run for a rare finding."""
    from hipify_py.rules.vector_ops import operator_uses

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


def _stable(value: object) -> str:
    """repr() that does not depend on set iteration order (hash randomisation), for cache keys."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ((f.name, _stable(getattr(value, f.name))) for f in dataclasses.fields(value))
        return f"{type(value).__name__}({', '.join(f'{k}={v}' for k, v in fields)})"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(map(_stable, value))) + "}"
    if hasattr(value, "items"):
        return "{" + ", ".join(sorted(f"{_stable(k)}: {_stable(v)}" for k, v in value.items())) + "}"
    return repr(value)


def _open_cache(files: Sequence[Found], settings: RunSettings) -> ResultCache | None:
    if settings.cache_dir is None or not files:
        return None
    import hipify_py

    plan = settings.rename.digest_text() if isinstance(settings.rename, RenamePlan) else ""
    parts = (_stable(replace(settings.options, filename="")), _stable(settings.build_options), plan)
    if settings.keep_moves:  # why: an entry stored without moves cannot map compiler lines back
        parts += ("moves",)
    digest = settings_digest(hipify_py.__version__, parts, settings.extra_mappings)
    project = Path(os.path.commonpath([os.path.abspath(found.root) for found in files]))
    return ResultCache(settings.cache_dir, project, digest)


_DIAGNOSTIC_FIELDS: tuple[str, ...] = Diagnostic._fields


def _remember(cache: ResultCache, found: Found, outcome: FileOutcome, settings: RunSettings) -> None:
    if outcome.status in (Status.ERROR, Status.SKIPPED) or not outcome.in_hash:
        return
    changed = outcome.out_hash != outcome.in_hash
    result = Result(
        changed,
        outcome.out_hash,
        _diagnostic_tuples(outcome.diagnostics),
        tuple(sorted(outcome.counts.items())),
        outcome.lines,
        outcome.message,
        outcome.moves,
        outcome.defines,
    )
    cache.put(found.path, outcome.in_hash, result)
    if outcome.output is None:
        return
    if settings.mode is Mode.OUTPUT_TREE:
        cache.note_written(outcome.output, outcome.out_hash)
    elif settings.mode is Mode.IN_PLACE and (changed or outcome.output != found.path):
        cache.note_file(outcome.output, outcome.out_hash)
        if outcome.rewritten is not None:
            cache.put(outcome.output, outcome.out_hash, outcome.rewritten)


def _diagnostic_tuples(diagnostics: Sequence[Diagnostic]) -> tuple[tuple, ...]:
    return tuple(
        tuple(int(v) if isinstance(v, Severity) else v for v in (getattr(d, f) for f in _DIAGNOSTIC_FIELDS))
        for d in diagnostics
    )


def _from_cache(found: Found, settings: RunSettings, cache: ResultCache) -> FileOutcome | None:
    """The outcome of a cache hit, delivered (written/diffed) if that needs no translation; else None."""
    name = os.path.abspath(found.path)  # why: once, not in every cache call (getcwd per call adds up)
    digest = cache.file_hash(name)
    result = cache.get(name, digest) if digest is not None else None
    if result is None:
        return None
    target = output_path(found, settings)
    outcome = FileOutcome(
        found.path,
        Status.CHANGED if result.changed else Status.UNCHANGED,
        output=target,
        message=result.message,
        diagnostics=[_diagnostic(fields) for fields in result.diagnostics],
        counts=Counter(dict(result.counts)),
        lines=result.lines,
        kind=found.kind,
        cached=True,
        out_hash=result.out_hash,
        in_hash=digest or "",
        moves=result.moves,
        defines=result.defines,
    )
    mode, moved = settings.mode, target != found.path
    if settings.mirror is not None:
        return _mirror_from_cache(found, target, result, cache, settings, outcome)
    if mode is Mode.CHECK:
        return outcome
    if mode is Mode.IN_PLACE:  # a file that must be rewritten is simply translated again
        return None if result.changed or moved else outcome
    if mode is Mode.DIFF and not result.changed and not moved:
        return outcome
    if mode is Mode.OUTPUT_TREE and cache.target_has(target, result.out_hash):
        return outcome
    try:
        source = read_source(found.path)
    except InputError:
        return None
    text = source
    if result.changed:
        text = get_blob(cache.root, result.out_hash) or cache.written_copy(result.out_hash)
    if text is None:
        return None
    try:
        _deliver(found, source, text, target, settings, outcome)
    except OSError:
        return None  # let the normal path report it
    if mode is Mode.OUTPUT_TREE:
        cache.note_written(target, result.out_hash)
    return outcome


def _mirror_from_cache(
    found: Found,
    target: Path,
    result: Result,
    cache: ResultCache,
    settings: RunSettings,
    outcome: FileOutcome,
) -> FileOutcome | None:
    """A cache hit in a --diff/--check --verify run: the text goes to the mirror (and the diff is rebuilt)."""
    try:
        source = read_source(found.path)
    except InputError:
        return None
    text = source
    if result.changed:
        text = get_blob(cache.root, result.out_hash) or cache.written_copy(result.out_hash)
    if text is None:
        return None
    try:
        _deliver(found, source, text, target, settings, outcome)  # the diff, in --diff mode
        _to_mirror(target, text, settings.mirror)  # type: ignore[arg-type]
    except OSError:
        return None
    return outcome


_SEVERITY_AT = _DIAGNOSTIC_FIELDS.index("severity")


def _diagnostic(fields: Sequence[object]) -> Diagnostic:
    values = list(fields)
    values[_SEVERITY_AT] = Severity(values[_SEVERITY_AT])
    return Diagnostic(*values)  # type: ignore[arg-type]


def _iterate(files: Sequence[Found], settings: RunSettings, jobs: int) -> Iterator[FileOutcome]:
    # A pool costs ~50 ms to start; below a handful of files serial is faster.
    if jobs <= 1 or len(files) < 8:
        for found in files:
            yield process(found, settings)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    if context.get_start_method() == "fork" and any(found.kind == "source" for found in files):
        from hipify_py.pipeline.translate import preload_rule_tables

        preload_rule_tables(settings.options)
    chunk = max(1, min(64, len(files) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker) as pool:
        try:
            yield from pool.map(process, files, _repeat(settings, len(files)), chunksize=chunk)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _repeat(value: RunSettings, n: int) -> Iterable[RunSettings]:
    return (value for _ in range(n))
