"""Result-cache glue: the run's settings digest, outcomes from and into the cache (run/result_cache.py).

A hit rebuilds the FileOutcome without translating (and, for --in-place/--output, writes the cached
blob); a miss is remembered after the file's work.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from hipify_py.engine.options import with_filename
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings, Status, diagnostic_of, diagnostic_tuples
from hipify_py.run.output_names import RenamePlan
from hipify_py.run.process import deliver, header_roots, output_path, to_mirror
from hipify_py.run.result_cache import Result, ResultCache, get_blob, settings_digest
from hipify_py.util.fileio import (
    InputError,
    read_source,
)


def _stable(value: object) -> str:
    """repr() that does not depend on set iteration order (hash randomisation), for cache keys."""
    names = _field_names(value)
    if names is not None:
        fields = ((name, _stable(getattr(value, name))) for name in names)
        return f"{type(value).__name__}({', '.join(f'{k}={v}' for k, v in fields)})"
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(map(_stable, value))) + "}"
    if hasattr(value, "items"):
        return "{" + ", ".join(sorted(f"{_stable(k)}: {_stable(v)}" for k, v in value.items())) + "}"
    return repr(value)


def _field_names(value: object) -> tuple[str, ...] | None:
    """The fields of a record (a NamedTuple such as Options, a dataclass such as BuildOptions), else None."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return value._fields  # type: ignore[no-any-return]
    if hasattr(type(value), "__dataclass_fields__"):  # why not is_dataclass: no import of dataclasses
        import dataclasses

        return tuple(f.name for f in dataclasses.fields(value))  # type: ignore[arg-type]
    return None


def open_cache(files: Sequence[Found], settings: RunSettings) -> ResultCache | None:
    if settings.cache_dir is None or not files:
        return None
    import hipify_py

    plan = settings.rename.digest_text() if isinstance(settings.rename, RenamePlan) else ""
    parts = (_stable(with_filename(settings.options, "")), _stable(settings.build_options), plan)
    if settings.keep_moves:  # why: an entry stored without moves cannot map compiler lines back
        parts += ("moves",)
    digest = settings_digest(hipify_py.__version__, parts, settings.extra_mappings)
    roots = {found.root for found in files}  # why a set first: the files of one root share its Path
    project = Path(os.path.commonpath([os.path.abspath(root) for root in roots]))
    return ResultCache(settings.cache_dir, project, digest)


def remember(cache: ResultCache, found: Found, outcome: FileOutcome, settings: RunSettings) -> None:
    if outcome.status in (Status.ERROR, Status.SKIPPED) or not outcome.in_hash:
        return
    changed = outcome.out_hash != outcome.in_hash
    result = Result(
        changed,
        outcome.out_hash,
        diagnostic_tuples(outcome.diagnostics),
        tuple(sorted(outcome.counts.items())),
        outcome.lines,
        outcome.message,
        outcome.moves,
        outcome.defines,
        outcome.helpers,
    )
    cache.put(found.path, outcome.in_hash, result)
    if outcome.in_stat is not None:  # the worker's stat from before its read (from_cache may not have run)
        cache.note_read(found.path, outcome.in_stat, outcome.in_hash)
    if outcome.output is None:
        return
    if settings.mode is Mode.OUTPUT_TREE:
        cache.note_written(outcome.output, outcome.out_hash, outcome.out_stat)
    elif settings.mode is Mode.IN_PLACE and (changed or outcome.output != found.path):
        cache.note_file(outcome.output, outcome.out_hash)
        if outcome.rewritten is not None:
            cache.put(outcome.output, outcome.out_hash, outcome.rewritten)


def from_cache(found: Found, settings: RunSettings, cache: ResultCache) -> FileOutcome | None:
    """The outcome of a cache hit, delivered (written/diffed) if that needs no translation; else None."""
    name = os.path.abspath(found.path)  # why: once, not in every cache call (getcwd per call adds up)
    digest = cache.file_hash(name)
    result = cache.get(name, digest) if digest is not None else None
    if result is None or (result.helpers and _helpers_changed(found, result.helpers, settings)):
        return None
    target = output_path(found, settings)
    outcome = FileOutcome(
        found.path,
        Status.CHANGED if result.changed else Status.UNCHANGED,
        output=target,
        message=result.message,
        diagnostics=[diagnostic_of(fields) for fields in result.diagnostics],
        counts=Counter(dict(result.counts)),
        lines=result.lines,
        kind=found.kind,
        cached=True,
        out_hash=result.out_hash,
        in_hash=digest or "",
        moves=result.moves,
        defines=result.defines,
        helpers=result.helpers,
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
    texts = _cached_texts(found, result, cache)
    if texts is None:
        return None
    source, text = texts
    try:
        deliver(found, source, text, target, settings, outcome)
    except OSError:
        return None  # let the normal path report it
    if mode is Mode.OUTPUT_TREE:
        cache.note_written(target, result.out_hash)
    return outcome


def _helpers_changed(found: Found, helpers: tuple, settings: RunSettings) -> bool:
    """The result depended on the headers the file includes (it wrote helpers, or it is a mixed CUDA/HIP
    file): do they still define what they did? (The key is the file's own content; a header that changed
    makes this a miss.)"""
    from hipify_py.pipeline.translate import default_tables
    from hipify_py.run.helper_defs import defined_elsewhere, deviceptr_names, member_macros, project_aliases

    written, elsewhere, aliases, pointers, members = (*helpers, (), (), ())[:5]
    try:
        source = read_source(found.path)
    except InputError:
        return True
    path, root = str(found.path), header_roots(found, settings)
    tables = default_tables(settings.extra_mappings)
    if written and defined_elsewhere(path, source, root, written, tables) != frozenset(elsewhere):
        return True
    if aliases and project_aliases(path, source, root, tables) != aliases[0]:
        return True
    if pointers and deviceptr_names(path, source, root) != pointers[0]:
        return True
    return bool(members) and member_macros(path, source, root) != members[0]


def _cached_texts(found: Found, result: Result, cache: ResultCache) -> tuple[bytes, bytes] | None:
    """(the file as on disk, its translation from the cache); None when either cannot be had."""
    try:
        source = read_source(found.path)
    except InputError:
        return None
    text = (
        get_blob(cache.root, result.out_hash) or cache.written_copy(result.out_hash)
        if result.changed
        else source
    )
    return None if text is None else (source, text)


def _mirror_from_cache(
    found: Found,
    target: Path,
    result: Result,
    cache: ResultCache,
    settings: RunSettings,
    outcome: FileOutcome,
) -> FileOutcome | None:
    """A cache hit in a --diff/--check --verify run: the text goes to the mirror (and the diff is rebuilt)."""
    texts = _cached_texts(found, result, cache)
    if texts is None:
        return None
    source, text = texts
    try:
        deliver(found, source, text, target, settings, outcome)  # the diff, in --diff mode
        to_mirror(target, text, settings.mirror)  # type: ignore[arg-type]
    except OSError:
        return None
    return outcome
