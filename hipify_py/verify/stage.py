"""Compile every translated translation unit (the verify stage of a run).

Which files are translation units: with a compile database, the converted sources it has an entry
for; without, every converted source (.cu/.cpp/.c/... and .hip, never headers) that no other file of
the run includes (`#include "kernel.cu"` makes kernel.cu part of its includer, not a TU of its own).

Where they are compiled: `--in-place`: the written files; `-o DIR`: the output tree; `--diff`/`--check`:
a temporary mirror of the tree (translated files written there, everything else a symlink to the
original), removed at the end or on Ctrl-C. Each compile is a child process that starts as soon as
every file of the run its TU can include is written (closure.py), on the run's -j workers beside the
translation of the other files (hipify_py/workers/pool.py); results are cached (compile_cache.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hipify_py.verify.clang_output import CompilerError, Location, parse
from hipify_py.verify.closure import Closures, SearchPath, search_path
from hipify_py.verify.compile_cache import CompileCache, FileHashes
from hipify_py.verify.compiler import (
    DEFAULT_ARCH,
    TIMEOUT_SECONDS,
    CompileJob,
    CompileOutput,
    Compiler,
    Processes,
    compile_tu,
    display_command,
)
from hipify_py.verify.flags import Entry, database_args

if TYPE_CHECKING:
    from hipify_py.run.outcome import FileOutcome

TU_EXTENSIONS = (".cu", ".cpp", ".cc", ".cxx", ".c++", ".C", ".c", ".hip")


@dataclass(frozen=True)
class Relocation:
    """Where files of the input tree are compiled: (input root, compiled root) pairs, first match wins."""

    pairs: tuple[tuple[str, str], ...] = ()

    def forward(self, path: str) -> str:
        for src, dst in self.pairs:
            if path == src or path.startswith(src.rstrip(os.sep) + os.sep):
                return dst + path[len(src) :]
        return path

    def back(self, path: str) -> str:
        for src, dst in self.pairs:
            if path == dst or path.startswith(dst.rstrip(os.sep) + os.sep):
                return src + path[len(dst) :]
        return path


@dataclass(frozen=True)
class Source:
    """One converted file as verify sees it."""

    original: str  # absolute path of the input file
    compiled: str  # absolute path of the translated text being compiled
    root: str  # absolute tree root it was found under
    kind: str = "source"


@dataclass(frozen=True)
class VerifySettings:
    compiler: Compiler
    offload_arch: tuple[str, ...] = DEFAULT_ARCH
    include_dirs: tuple[str, ...] = ()  # absolute input paths (-I)
    defines: tuple[str, ...] = ()  # -D values
    std: str | None = None  # --std
    database: dict[str, Entry] | None = None  # -p: absolute input path -> entry
    jobs: int = 0
    cache_dir: Path | None = None
    timeout: float = TIMEOUT_SECONDS
    fallback_to_input: bool = False  # -o: files that were not converted are found in the input tree


@dataclass
class Unit:
    source: Source
    job: CompileJob
    command: str = ""
    returncode: int = 0
    errors: list[CompilerError] = field(default_factory=list)
    cached: bool = False
    key: str | None = None  # in the compile cache

    @property
    def ok(self) -> bool:
        return self.returncode == 0


@dataclass
class VerifyResult:
    compiler: Compiler
    units: list[Unit]
    tree: str  # compiled root (for display)
    cache_hits: int = 0
    interrupted: bool = False

    @property
    def compiled(self) -> int:
        return sum(u.ok for u in self.units)

    @property
    def failed(self) -> list[Unit]:
        return [u for u in self.units if not u.ok]


@dataclass(frozen=True)
class Planned:
    """A translation unit to compile, and the run's files it can include (closure.py)."""

    original: str  # absolute input path
    root: str
    kind: str
    waits_for: frozenset[str] | None  # input paths, itself too; None: wait for the whole translation


def plan_units(files: Sequence[tuple[str, str, str]], settings: VerifySettings) -> list[Planned]:
    """The TUs among the run's files ((absolute input path, root, kind), in run order), read before the
    run: with a compile database, the sources it has an entry for; without, every source with a TU
    extension that no file of the run includes."""
    closures = Closures(path for path, _, _ in files)
    sources = [f for f in files if f[2] == "source"]
    searches = {path: search_of(path, root, settings) for path, root, _ in sources}
    if settings.database is not None:
        tus = [f for f in sources if f[0] in settings.database]
    else:
        included: set[str] = set()
        for path, _, _ in sources:
            included |= closures.included_by(path, searches[path])
        tus = [f for f in sources if f[0].endswith(TU_EXTENSIONS) and f[0] not in included]
    return [Planned(p, root, kind, closures.run_files_of(p, searches[p])) for p, root, kind in tus]


def _default_dirs(original: str, root: str, settings: VerifySettings) -> tuple[str, ...]:
    """Include folders without a compile database: -I, else the file's folder and the tree root."""
    return settings.include_dirs or tuple(dict.fromkeys((os.path.dirname(original), root)))


def search_of(original: str, root: str, settings: VerifySettings) -> SearchPath:
    """The include search of a TU's compile in input paths (make_job gives the same, relocated)."""
    entry = settings.database.get(original) if settings.database else None
    if entry is not None:
        return search_path(database_args(entry), entry.directory)
    return SearchPath(angled=_default_dirs(original, root, settings))


def make_job(source: Source, settings: VerifySettings, relocation: Relocation) -> CompileJob:
    entry = settings.database.get(source.original) if settings.database else None
    if entry is not None:
        cwd = relocation.forward(entry.directory)
        args = list(database_args(entry, relocation.forward))
    else:
        cwd = os.path.dirname(source.compiled)
        args = [f"-I{relocation.forward(d)}" for d in _default_dirs(source.original, source.root, settings)]
        args += [f"-D{d}" for d in settings.defines]
        if settings.std:
            args.append(f"-std={settings.std}")
    if settings.fallback_to_input:  # -o: headers that are not sources (.inc, .def) stay in the input tree
        originals = [os.path.dirname(source.original)]
        originals += [relocation.back(a[2:]) for a in args if a.startswith("-I")]
        args += [f"-idirafter{d}" for d in dict.fromkeys(originals)]
    return CompileJob(source.compiled, cwd, tuple(args), settings.offload_arch)


def _absolute(where: Location | None, cwd: str) -> Location | None:
    if where is None:
        return None
    return Location(os.path.normpath(os.path.join(cwd, where.file)), where.line, where.col)


def _absolute_errors(errors: Iterable[CompilerError], cwd: str) -> list[CompilerError]:
    out = []
    for e in errors:
        e.where = _absolute(e.where, cwd)
        e.notes = [type(n)(_absolute(n.where, cwd), n.text) for n in e.notes]  # type: ignore[arg-type]
        e.included_from = tuple(_absolute(w, cwd) for w in e.included_from)  # type: ignore[misc]
        out.append(e)
    return out


class Compiles:
    """The compiles of a run: each TU is compiled as soon as every file of the run it can include is
    written, on the run's workers (the side work of hipify_py/workers/pool.py); the cache is asked first."""

    def __init__(
        self,
        plans: Sequence[Planned],
        settings: VerifySettings,
        relocation: Relocation,
        tree: str,
        compiled_of: Callable[[FileOutcome], str],
        on_unit: Callable[[Unit | None], None] | None = None,
    ) -> None:
        self.plans, self.settings, self.relocation, self.tree = plans, settings, relocation, tree
        self.compiled_of, self.on_unit = compiled_of, on_unit
        self.hashes = FileHashes()
        self.cache = CompileCache(settings.cache_dir, tree, self.hashes) if settings.cache_dir else None
        self.processes = Processes()
        self.outcomes: dict[str, FileOutcome] = {}
        self.missing: dict[str, int] = {}  # TU -> files it waits for that are not written yet
        self.waiters: dict[str, list[Planned]] = {}  # file -> TUs waiting for it
        for plan in plans:
            if plan.waits_for is not None:
                self.missing[plan.original] = len(plan.waits_for)
                for path in plan.waits_for:
                    self.waiters.setdefault(path, []).append(plan)
        self.released: set[str] = set()
        self.queue: deque[Unit] = deque()
        self.units: dict[str, Unit] = {}

    def file_done(self, outcome: FileOutcome) -> None:
        path = os.path.abspath(outcome.path)
        self.outcomes[path] = outcome
        if outcome.output is not None:
            self.hashes.forget(self.compiled_of(outcome))  # why: --in-place read it before it was written
        for plan in self.waiters.pop(path, ()):
            self.missing[plan.original] -= 1
            if not self.missing[plan.original]:
                self._release(plan)

    def translation_done(self) -> None:
        for plan in self.plans:
            if plan.original not in self.released:
                self._release(plan)

    def _release(self, plan: Planned) -> None:
        from hipify_py.run.outcome import Status

        self.released.add(plan.original)
        outcome = self.outcomes.get(plan.original)
        if outcome is None or outcome.status in (Status.ERROR, Status.SKIPPED) or outcome.output is None:
            if self.on_unit is not None:
                self.on_unit(None)  # not converted: nothing to compile
            return
        source = Source(plan.original, self.compiled_of(outcome), plan.root, plan.kind)
        unit = Unit(source, make_job(source, self.settings, self.relocation))
        unit.command = display_command(self.settings.compiler, unit.job)
        self.units[plan.original] = unit
        if self.cache is not None:
            job = unit.job
            unit.key = self.cache.key(
                self.settings.compiler.version, job.source, job.cwd, _key_args(job), job.offload_arch
            )
            hit = self.cache.get(unit.key) if unit.key is not None else None
            if hit is not None:
                unit.returncode, stderr = hit
                unit.errors = _absolute_errors(parse(stderr), job.cwd)
                unit.cached = True
                if self.on_unit is not None:
                    self.on_unit(unit)
                return
        self.queue.append(unit)

    def next_task(self) -> Callable[[], object] | None:
        return _CompileTask(self.queue.popleft(), self.settings, self.processes) if self.queue else None

    def task_done(self, task: Callable[[], object], result: object) -> None:
        assert isinstance(task, _CompileTask) and isinstance(result, CompileOutput)
        unit = task.unit
        unit.returncode = result.returncode
        unit.errors = _absolute_errors(parse(result.stderr), unit.job.cwd)
        if unit.returncode != 0 and not unit.errors:
            unit.errors = [
                CompilerError(None, _last_line(result.stderr) or f"hipcc exited with {unit.returncode}")
            ]
        if self.cache is not None and unit.key is not None:
            self.cache.put(unit.key, result.returncode, result.stderr, result.deps)
        if self.on_unit is not None:
            self.on_unit(unit)

    def stop(self) -> None:
        self.processes.stop()

    def result(self) -> VerifyResult:
        """The units compiled (or taken from the cache), in run order; once the run is over."""
        units = [self.units[p.original] for p in self.plans if p.original in self.units]
        hits = self.cache.hits if self.cache is not None else 0
        return VerifyResult(self.settings.compiler, units, self.tree, hits)


@dataclass
class _CompileTask:
    unit: Unit
    settings: VerifySettings
    processes: Processes

    def __call__(self) -> CompileOutput:
        return compile_tu(self.settings.compiler, self.unit.job, self.settings.timeout, self.processes)


def compile_now(compiles: Compiles, outcomes: Iterable[FileOutcome], jobs: int) -> VerifyResult:
    """Every compile of a run without translation (`hipify-py verify`), on `jobs` workers."""
    from hipify_py.workers.pool import shared

    for outcome in outcomes:
        compiles.file_done(outcome)
    for _ in shared((), None, jobs, compiles):  # type: ignore[arg-type]
        pass
    return compiles.result()


def _key_args(job: CompileJob) -> tuple[str, ...]:
    return (*job.args, "\0codegen") if job.codegen else job.args


def _last_line(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


class Mirror:
    """A temporary copy of the tree for --diff/--check: real directories down to every converted file,
    symlinks for everything else; translated files are written into it by the run. Removed by close()."""

    def __init__(self, root: str, files: Iterable[str]) -> None:
        self.root = root
        self.dir = tempfile.mkdtemp(prefix="hipify-py-verify-")
        self.tree = os.path.join(self.dir, "tree")
        real_dirs = {self.root}
        converted = set()
        for path in files:
            converted.add(path)
            parent = os.path.dirname(path)
            while parent not in real_dirs and parent.startswith(self.root):
                real_dirs.add(parent)
                parent = os.path.dirname(parent)
        for directory in sorted(real_dirs):
            target = self.forward(directory)
            os.makedirs(target, exist_ok=True)
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                path = os.path.join(directory, name)
                if path in real_dirs or path in converted:
                    continue
                with contextlib.suppress(OSError):
                    os.symlink(path, os.path.join(target, name))

    def forward(self, path: str) -> str:
        return self.tree + path[len(self.root) :]

    def relocation(self) -> Relocation:
        return Relocation(((self.root, self.tree),))

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
