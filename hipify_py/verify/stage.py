"""Compile every translated translation unit (the verify stage of a run).

Which files are translation units: with a compile database, the converted sources it has an entry
for; without, every converted source (.cu/.cpp/.c/... and .hip, never headers) that no other file of
the run includes (`#include "kernel.cu"` makes kernel.cu part of its includer, not a TU of its own).

Where they are compiled: `--in-place`: the written files; `-o DIR`: the output tree; `--diff`/`--check`:
a temporary mirror of the tree (translated files written there, everything else a symlink to the
original), removed at the end or on Ctrl-C. The compiler runs in parallel (-j), each compile being a
child process; results are cached (compile_cache.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hipify_py.verify.clang_output import CompilerError, Location, parse
from hipify_py.verify.compile_cache import CompileCache, FileHashes
from hipify_py.verify.compiler import (
    DEFAULT_ARCH,
    TIMEOUT_SECONDS,
    CompileJob,
    CompileOutput,
    Compiler,
    compile_tu,
    display_command,
    kill_all,
)
from hipify_py.verify.flags import Entry, database_args

TU_EXTENSIONS = (".cu", ".cpp", ".cc", ".cxx", ".c++", ".c", ".hip")
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)


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


def select_units(sources: Sequence[Source], settings: VerifySettings) -> list[Source]:
    if settings.database is not None:
        return [s for s in sources if s.kind == "source" and s.original in settings.database]
    candidates = [s for s in sources if s.kind == "source" and s.original.endswith(TU_EXTENSIONS)]
    included = _included_sources(sources, settings)
    return [s for s in candidates if s.compiled not in included]


def _included_sources(sources: Sequence[Source], settings: VerifySettings) -> set[str]:
    """Compiled paths of run files that some file of the run includes with a quoted include."""
    known = {s.compiled for s in sources}
    found: set[str] = set()
    for s in sources:
        try:
            with open(s.compiled, "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        if b"include" not in text:
            continue
        here = os.path.dirname(s.compiled)
        for m in _QUOTED_INCLUDE.finditer(text):
            name = os.fsdecode(m.group(1))
            if not name.endswith(TU_EXTENSIONS):
                continue
            for base in (here, *settings.include_dirs):
                candidate = os.path.normpath(os.path.join(base, name))
                if candidate in known and candidate != s.compiled:
                    found.add(candidate)
                    break
    return found


def make_job(source: Source, settings: VerifySettings, relocation: Relocation) -> CompileJob:
    entry = settings.database.get(source.original) if settings.database else None
    if entry is not None:
        cwd = relocation.forward(entry.directory)
        args = list(database_args(entry, relocation.forward))
    else:
        cwd = os.path.dirname(source.compiled)
        dirs = settings.include_dirs or tuple(dict.fromkeys((os.path.dirname(source.original), source.root)))
        args = [f"-I{relocation.forward(d)}" for d in dirs]
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


def run_units(
    sources: Sequence[Source],
    settings: VerifySettings,
    relocation: Relocation,
    tree: str,
    on_done: Callable[[Unit], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> VerifyResult:
    """Compile the translation units among `sources` (cache first, then in parallel)."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    compiler = settings.compiler
    units = [Unit(s, make_job(s, settings, relocation)) for s in select_units(sources, settings)]
    for unit in units:
        unit.command = display_command(compiler, unit.job)
    if on_start is not None:
        on_start(len(units))
    hashes = FileHashes()
    cache = CompileCache(settings.cache_dir, tree, hashes) if settings.cache_dir is not None else None
    keys: dict[int, str | None] = {}
    todo: list[Unit] = []
    for i, unit in enumerate(units):
        key = (
            cache.key(
                compiler.version, unit.job.source, unit.job.cwd, _key_args(unit.job), unit.job.offload_arch
            )
            if cache
            else None
        )
        keys[i] = key
        hit = cache.get(key) if cache is not None and key is not None else None
        if hit is not None:
            unit.returncode, stderr = hit
            unit.errors = _absolute_errors(parse(stderr), unit.job.cwd)
            unit.cached = True
            if on_done is not None:
                on_done(unit)
        else:
            todo.append(unit)
    index = {id(u): i for i, u in enumerate(units)}

    def finish(unit: Unit, output: CompileOutput) -> None:
        unit.returncode = output.returncode
        unit.errors = _absolute_errors(parse(output.stderr), unit.job.cwd)
        if unit.returncode != 0 and not unit.errors:
            unit.errors = [
                CompilerError(None, _last_line(output.stderr) or f"hipcc exited with {unit.returncode}")
            ]
        key = keys[index[id(unit)]]
        if cache is not None and key is not None:
            cache.put(key, output.returncode, output.stderr, output.deps)
        if on_done is not None:
            on_done(unit)

    jobs = max(1, settings.jobs or os.cpu_count() or 1)
    result = VerifyResult(compiler, units, tree)
    if todo:
        with ThreadPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            running: set = set()
            pending = {pool.submit(compile_tu, compiler, u.job, settings.timeout, running): u for u in todo}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        finish(pending.pop(future), future.result())
            except BaseException:  # Ctrl-C: nothing new starts, every running compiler is killed
                for future in pending:
                    future.cancel()
                kill_all(running)
                raise
    result.cache_hits = cache.hits if cache is not None else 0
    return result


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
