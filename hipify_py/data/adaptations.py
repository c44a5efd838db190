"""Version-gated adaptations: mappings/version-adaptations.yaml, loaded once, queried by target version.

The table says what to write for a CUDA construct that a range of HIP versions lacks (see the file's
header for the operations). Rules ask `rows_for(target)`; the target comes from Options.hip_version.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir
from hipify_py.data.version_ranges import holds_for, one_per_name, range_text, read_table
from hipify_py.data.versions import compare_versions

TABLE_NAME = "version-adaptations.yaml"
OPERATIONS = frozenset({"drop-mask", "widen-mask", "replace-call", "missing"})


class Partial(NamedTuple):
    """What a drop-mask row writes for a mask that is not full: before + hip(args) + after."""

    hip: str
    before: str
    after: str  # may hold {mask}: a copy of the mask argument (with the other rules' edits in it)


class Adaptation(NamedTuple):
    cuda: str
    op: str
    source: str  # where the fact comes from (the table's `sources` text)
    since: str | None = None  # first HIP version the row holds for (None: all before `until`)
    until: str | None = None  # first HIP version it no longer holds for (None: all from `since`)
    hip: str | None = None  # new name (drop-mask) or call text (replace-call)
    mask: bool = True  # argument 0 is a lane mask
    partial: Partial | None = None
    widen: bool = False  # 64-bit result: a __popc/__ffs of exactly this call becomes __popcll/__ffsll
    enable: str | None = None  # macro to #define first (opt-in builtins) ...
    enable_until: str | None = None  # ... when the target is below this version

    def holds_for(self, target: str) -> bool:
        return holds_for(self.since, self.until, target)

    def needs_enable(self, target: str) -> bool:
        return self.enable is not None and (
            self.enable_until is None or compare_versions(target, self.enable_until) < 0
        )

    @property
    def range_text(self) -> str:
        return range_text(self.since, self.until)


class TableError(ValueError):
    """A malformed row in the adaptation table (a bug in the shipped data: tests load it)."""


def _row(raw: Mapping[str, object], sources: Mapping[str, str], index: int) -> Adaptation:
    def text(key: str) -> str | None:
        value = raw.get(key)
        return None if value is None else str(value)

    cuda, op = text("cuda"), text("op")
    if not cuda or op not in OPERATIONS:
        raise TableError(f"{TABLE_NAME}: row {index + 1}: needs `cuda` and an `op` in {sorted(OPERATIONS)}")
    if op in ("drop-mask", "replace-call") and not text("hip"):
        raise TableError(f"{TABLE_NAME}: row {index + 1} ({cuda}): {op} needs `hip`")
    source_key = text("source") or ""
    if source_key not in sources:
        raise TableError(f"{TABLE_NAME}: row {index + 1} ({cuda}): unknown source {source_key!r}")
    partial = None
    if isinstance(raw.get("partial"), Mapping):
        p = raw["partial"]
        assert isinstance(p, Mapping)
        partial = Partial(str(p["hip"]), str(p.get("before", "")), str(p.get("after", "")))
    return Adaptation(
        cuda=cuda,
        op=op,
        source=sources[source_key],
        since=text("since"),
        until=text("until"),
        hip=text("hip"),
        mask=bool(raw.get("mask", True)),
        partial=partial,
        widen=bool(raw.get("widen", False)),
        enable=text("enable"),
        enable_until=text("enable_until"),
    )


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[Adaptation, ...]:
    if path is None:  # the shipped table: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("version-adaptations", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[Adaptation, ...]:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    return tuple(_row(raw, sources, i) for i, raw in enumerate(doc.get("adaptations") or ()))


@functools.lru_cache(maxsize=16)
def adapted_words(target: str) -> frozenset[bytes]:
    """The CUDA names the target gets an equivalent for, though the tables give them no HIP counterpart:
    this table's rows but `missing` ones, and the cache-hint loads and stores (rules/cache_hints.py
    writes a helper for any type the target lacks)."""
    rows = frozenset(name.encode() for name, row in rows_for(target).items() if row.op != "missing")
    return rows | cache_hint_names()


@functools.lru_cache(maxsize=1)
def cache_hint_names() -> frozenset[bytes]:
    return derived.load("cache-hint-names", _cache_hint_names)


def _cache_hint_names() -> frozenset[bytes]:
    doc, _ = read_table(hand_kept_dir() / "cache-hints.yaml")
    return frozenset(str(name).encode() for name in doc.get("intrinsics") or ())


@functools.lru_cache(maxsize=16)
def row_words(target: str) -> frozenset[bytes]:
    """The CUDA names of rows_for(target), encoded: a file naming none of them (its identifiers
    disjoint) needs no adaptation, found by one set operation."""
    return frozenset(name.encode() for name in rows_for(target))


@functools.lru_cache(maxsize=16)
def rows_for(target: str) -> Mapping[str, Adaptation]:
    """CUDA name -> the row that holds for `target` (the table has at most one per name and version)."""
    return one_per_name(
        load_table(),
        target,
        lambda r: r.cuda,
        Adaptation.holds_for,
        lambda m: TableError(f"{TABLE_NAME}: {m}"),
    )
