"""Many files: convert in a process pool, write atomically / diff / check, collect outcomes.

All I/O lives here; translate() stays pure. Each worker returns a small FileOutcome; the parent
aggregates them into the report.
"""

from __future__ import annotations

import difflib
import multiprocessing
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from hipify_py.diagnostics import Diagnostic, Severity
from hipify_py.discover import Found
from hipify_py.fileio import InputError, atomic_write, backup_copy, is_valid_utf8, read_source, writable
from hipify_py.options import Options
from hipify_py.translate import default_tables, translate


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

    @property
    def worst(self) -> Severity | None:
        return max((d.severity for d in self.diagnostics), default=None)


def output_path(found: Found, settings: RunSettings) -> Path:
    renamed = settings.rename(found.path) if settings.rename and found.kind == "source" else found.path
    if settings.mode is Mode.OUTPUT_TREE and settings.output_dir is not None:
        return settings.output_dir / renamed.relative_to(found.root)
    return renamed


def unified_diff(path: Path, old: bytes, new: bytes) -> str:
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, f"a/{path.as_posix()}", f"b/{path.as_posix()}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _convert(
    found: Found, source: bytes, settings: RunSettings
) -> tuple[bytes, list[Diagnostic], Counter[str]]:
    if found.kind == "build":
        from hipify_py import buildfiles

        opts = settings.build_options or buildfiles.BuildOptions()
        kind = buildfiles.build_file_kind(found.path.name)
        fn = buildfiles.translate_cmake if kind == "cmake" else buildfiles.translate_makefile
        text, diagnostics = fn(source, opts)
        return text, diagnostics, Counter({"build_files": 1} if text != source else {})
    options = settings.options
    if options.filename != str(found.path):
        options = _with_filename(options, str(found.path))
    result = translate(source, options, default_tables(settings.extra_mappings))
    return result.text, result.diagnostics, result.counts


def _with_filename(options: Options, name: str) -> Options:
    from dataclasses import replace

    return replace(options, filename=name)


def process(found: Found, settings: RunSettings) -> FileOutcome:
    """Convert one file according to the run mode. Never raises for a bad file."""
    path = found.path
    try:
        source = read_source(path)
    except InputError as err:
        status = Status.SKIPPED if "binary" in str(err) else Status.ERROR
        return FileOutcome(path, status, message=str(err), kind=found.kind)
    try:
        text, diagnostics, counts = _convert(found, source, settings)
    except Exception as err:  # a rule bug must not stop the run; report it with the file
        return FileOutcome(path, Status.ERROR, message=f"internal error: {type(err).__name__}: {err}")
    outcome = FileOutcome(
        path,
        Status.CHANGED if text != source else Status.UNCHANGED,
        diagnostics=diagnostics,
        counts=counts,
        lines=source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0),
        kind=found.kind,
    )
    if not is_valid_utf8(source):
        outcome.message = "not valid UTF-8: converted byte-for-byte, undecodable bytes kept as they were"
    target = output_path(found, settings)
    outcome.output = target
    try:
        _deliver(found, source, text, target, settings, outcome)
    except OSError as err:
        outcome.status = Status.ERROR
        outcome.message = f"cannot write {target}: {err.strerror or err}"
    return outcome


def _deliver(
    found: Found, source: bytes, text: bytes, target: Path, settings: RunSettings, outcome: FileOutcome
) -> None:
    mode = settings.mode
    renamed = target != found.path and mode is Mode.IN_PLACE
    if mode is Mode.DIFF and (text != source or target != found.path):
        outcome.diff = unified_diff(found.path, source, text)
    elif mode is Mode.STDOUT:
        outcome.text = text
    elif mode is Mode.OUTPUT_TREE:
        if not target.exists() or target.read_bytes() != text:
            atomic_write(target, text, mode_from=found.path)
    elif mode is Mode.IN_PLACE and (text != source or renamed):
        if not writable(found.path):
            outcome.status = Status.ERROR
            outcome.message = "read-only file: not modified"
            return
        if settings.backup_suffix:
            backup_copy(found.path, settings.backup_suffix)
        atomic_write(target, text, mode_from=found.path)
        if renamed:
            os.unlink(found.path)
            outcome.status = Status.CHANGED


def _init_worker() -> None:
    # Ctrl-C is handled by the parent, which stops the pool; workers must not print tracebacks.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(
    files: Sequence[Found], settings: RunSettings, on_done: Callable[[FileOutcome], None] | None = None
) -> list[FileOutcome]:
    """Process all files, in parallel when it pays off; outcomes in input order."""
    jobs = settings.jobs or os.cpu_count() or 1
    default_tables(settings.extra_mappings)  # load once before forking: workers inherit it
    outcomes: list[FileOutcome] = []
    for outcome in _iterate(files, settings, jobs):
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)
    return outcomes


def _iterate(files: Sequence[Found], settings: RunSettings, jobs: int) -> Iterator[FileOutcome]:
    # A pool costs ~50 ms to start; below a handful of files serial is faster.
    if jobs <= 1 or len(files) < 8:
        for found in files:
            yield process(found, settings)
        return
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    chunk = max(1, min(64, len(files) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker) as pool:
        try:
            yield from pool.map(process, files, _repeat(settings, len(files)), chunksize=chunk)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _repeat(value: RunSettings, n: int) -> Iterable[RunSettings]:
    return (value for _ in range(n))
