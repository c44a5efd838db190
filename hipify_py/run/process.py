"""One file's work: read, convert (translate() or a build-file rule), then write / diff / check.

All I/O of a file lives here; translate() stays pure. Runs in a pool worker or inline (workers/pool.py).
"""

from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hipify_py.analysis.member_macros import may_use as may_use_member_macros
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.options import with_filename
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings, Status, diagnostic_tuples
from hipify_py.run.output_names import RenamePlan, include_edits
from hipify_py.run.result_cache import Result, content_hash, put_blob, stat_entry
from hipify_py.util.fileio import (
    InputError,
    atomic_write,
    backup_copy,
    is_valid_utf8,
    read_source_stat,
    writable,
    write_replacing,
)

if TYPE_CHECKING:
    from hipify_py.data.tables import Tables


def output_path(found: Found, settings: RunSettings) -> Path:
    renamed = settings.rename(found.path) if settings.rename and found.kind == "source" else found.path
    if settings.mode is Mode.OUTPUT_TREE and settings.output_dir is not None:
        return settings.output_dir / _relative(renamed, found.root)
    return renamed


def _relative(path: Path, root: Path) -> str | Path:
    """`path.relative_to(root)`, as a string when `root`'s text and a separator start `path`'s (the
    parts then match one for one): relative_to compares the parts lists and builds a path (~2 us a file)."""
    text, prefix = str(path), str(root)
    if not prefix.endswith(os.sep) and text.startswith(prefix + os.sep):
        return text[len(prefix) + 1 :]
    return path.relative_to(root)


def output_dirs(files: Iterable[Found], settings: RunSettings) -> set[Path]:
    """The directories `output_path` puts `files` in, one computation per source directory (a rename
    changes a file's name, never its directory)."""
    # why the parent as text: a Path's .parent makes (and then hashes) a new Path for every file
    sample = {(found.root, os.path.dirname(found.path)): found for found in files}
    return {output_path(found, settings).parent for found in sample.values()}


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
) -> tuple[bytes, list[Diagnostic], Counter[str], tuple, tuple[str, ...], tuple]:
    """Converted text, findings, counts, (with keep_moves) the linemap layers of the edits, #defines,
    and what the result took from the include closure (run/helper_defs.py; () when nothing): the written
    helpers, those the closure defines, for a mixed CUDA/HIP file the project's own aliases, for a
    driver-API user the names its headers declare as CUdeviceptr."""
    if found.kind == "build":
        from dataclasses import replace  # why here: buildfiles' options are a dataclass (imported with them)

        from hipify_py import buildfiles

        opts = settings.build_options or buildfiles.BuildOptions()
        if isinstance(settings.rename, RenamePlan) and settings.rename.table:
            opts = replace(opts, rename_sources=settings.rename.relative_to(found.path.parent))
        kind = buildfiles.build_file_kind(found.path.name)
        fn = buildfiles.translate_cmake if kind == "cmake" else buildfiles.translate_makefile
        text, diagnostics = fn(source, opts)
        return text, diagnostics, Counter({"build_files": 1} if text != source else {}), (), (), ()
    from hipify_py.pipeline.translate import default_tables, translate

    options = settings.options
    if options.filename != str(found.path):
        options = with_filename(options, str(found.path))
    tables = default_tables(settings.extra_mappings)
    # quoted includes of renamed files: applied by translate with its own edits (one pass, one line map)
    renamed = (
        include_edits(source, found.path, settings.rename) if isinstance(settings.rename, RenamePlan) else ()
    )
    result = translate(source, options, tables, renamed)
    helpers: tuple = ()
    again: dict = {}
    if result.counts.get("shims"):  # the project may define a written helper in a header the file includes
        roots = header_roots(found, settings)
        helpers, elsewhere = _helpers_elsewhere(found, source, result.text, tables, roots)
        if elsewhere:
            again["defined_elsewhere"] = elsewhere
    aliases: tuple = ()
    if result.mixed:  # a mixed CUDA/HIP file: its headers may map CUDA names to HIP ones themselves
        from hipify_py.run.helper_defs import project_aliases

        aliases = (project_aliases(str(found.path), source, header_roots(found, settings), tables),)
        if aliases[0]:
            again["project_aliases"] = aliases[0]
    pointers: tuple = ()
    if result.counts.get("identifiers.driver"):  # its headers may declare CUdeviceptr members it adds to
        from hipify_py.run.helper_defs import deviceptr_names

        pointers = (deviceptr_names(str(found.path), source, header_roots(found, settings)),)
        if pointers[0]:
            again["deviceptr_names"] = pointers[0]
    members: tuple = ()
    if may_use_member_macros(source):  # a header may define the macro as a member access (IREE's calls)
        from hipify_py.run.helper_defs import member_macros

        members = (member_macros(str(found.path), source, header_roots(found, settings)),)
        if members[0]:
            again["member_macros"] = members[0]
    if aliases or pointers or members:
        helpers = (*(helpers or ((), ())), aliases, pointers, members)
    if again:
        result = translate(source, options._replace(**again), tables, renamed)
    text = result.text
    layers: tuple = ()
    if settings.keep_moves and text != source:
        from hipify_py.engine.linemap import moves_of

        layers = (moves_of(source, result.edits),)
    return text, result.diagnostics, result.counts, layers, result.defines, helpers


def header_roots(found: Found, settings: RunSettings) -> tuple[str, ...]:
    """Where the file's project headers are looked for: its own root first, then the run's others."""
    root = str(found.root)
    return (root, *(r for r in settings.roots if r != root))


def _helpers_elsewhere(
    found: Found, source: bytes, text: bytes, tables: Tables, roots: tuple[str, ...]
) -> tuple[tuple, frozenset[str]]:
    """((the helpers written, those the closure defines), the latter): what the cache keeps to re-check."""
    from hipify_py.run.helper_defs import defined_elsewhere, written_helpers

    written = written_helpers(source, text)
    if not written:
        return (), frozenset()
    elsewhere = defined_elsewhere(str(found.path), source, roots, written, tables)
    return (written, tuple(sorted(elsewhere))), elsewhere


def process(found: Found, settings: RunSettings) -> FileOutcome:
    """Convert one file according to the run mode. Never raises for a bad file."""
    path = found.path
    try:
        source, before = read_source_stat(path)
    except InputError as err:
        status = Status.SKIPPED if err.skip else Status.ERROR
        return FileOutcome(path, status, message=str(err), kind=found.kind)
    # why now: racy is judged at the read
    in_stat = stat_entry(before) if settings.cache_dir is not None else None
    try:
        text, diagnostics, counts, moves, defines, helpers = _convert(found, source, settings)
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
        helpers=helpers,
    )
    if not is_valid_utf8(source):
        outcome.message = _NOT_UTF8
    target = output_path(found, settings)
    outcome.output = target
    if settings.cache_dir is not None:
        outcome.in_hash, outcome.out_hash = content_hash(source), content_hash(text)
        outcome.in_stat = in_stat
        # why not -o: the written output is the copy (ResultCache.written_copy); a blob per file
        # would double the file creations of a cold run, the dominant cost after translation
        if text != source and (settings.mode in (Mode.DIFF, Mode.STDOUT) or settings.mirror):
            put_blob(settings.cache_dir, outcome.out_hash, text)
    try:
        deliver(found, source, text, target, settings, outcome, before)
        if settings.mirror is not None:
            to_mirror(target, text, settings.mirror)
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


def _result_of_written(
    found: Found, text: bytes, settings: RunSettings, outcome: FileOutcome
) -> Result | None:
    """What converting the file as just written yields (translated now, while its text is at hand).

    why: the next run (pre-commit after the hook rewrote a file, a re-run over a converted tree) sees
    new content; with this result cached it is a hit, and the same result a fresh translation gives."""
    if outcome.status is not Status.CHANGED or outcome.output != found.path:
        return None  # not written, or renamed (the new name is a different file to the next run)
    try:
        again, diagnostics, counts, moves, defines, helpers = _convert(found, text, settings)
    except Exception:  # a rule bug: the next run translates and reports it
        return None
    return Result(
        again != text,
        content_hash(again),
        diagnostic_tuples(diagnostics),
        tuple(sorted(counts.items())),
        _line_count(text),
        "" if is_valid_utf8(text) else _NOT_UTF8,
        moves,
        defines,
        helpers,
    )


_NOT_UTF8 = "not valid UTF-8: converted byte-for-byte, undecodable bytes kept as they were"


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def deliver(
    found: Found,
    source: bytes,
    text: bytes,
    target: Path,
    settings: RunSettings,
    outcome: FileOutcome,
    source_stat: os.stat_result | None = None,
) -> None:
    """`source_stat`: the source's stat as read (its permissions go to a new output file)."""
    mode = settings.mode
    renamed = mode is Mode.IN_PLACE and target != found.path  # the mode first: comparing Paths costs
    if mode is Mode.DIFF and (text != source or target != found.path):
        outcome.diff = unified_diff(found.path, source, text, target)
        if target != found.path:  # git's rename header, so a pure rename shows too (and `git apply` works)
            a, b = found.path.as_posix(), target.as_posix()
            outcome.diff = f"diff --git a/{a} b/{b}\nrename from {a}\nrename to {b}\n" + outcome.diff
    elif mode is Mode.STDOUT:
        outcome.text = text
    elif mode is Mode.OUTPUT_TREE:
        present = _lstat(target)
        if present is None and source_stat is not None:  # the common case: a new file, one lstat
            outcome.out_stat = stat_entry(write_replacing(target, text, source_stat, durable=False))
        elif (
            present is None  # without the source's stat
            or (stat.S_ISLNK(present.st_mode) and not target.exists())  # a dangling link: its target is made
            or target.read_bytes() != text
        ):
            atomic_write(target, text, mode_from=found.path, durable=False)
        elif stat.S_ISREG(present.st_mode):  # it holds the text already: its stat from before the read
            outcome.out_stat = stat_entry(present)
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


def _lstat(path: Path) -> os.stat_result | None:
    """The stat of `path` itself, None when it is not there (the errors Path.exists() takes for it)."""
    try:
        return os.lstat(path)
    except OSError as err:
        if err.errno in _ABSENT:
            return None
        raise


_ABSENT = frozenset((errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP))


def to_mirror(target: Path, text: bytes, mirror: tuple[str, str]) -> None:
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
