"""Version-dependent renames: mappings/version-renames.yaml, loaded once, queried by target version.

Where the HIP counterpart of a CUDA name or header depends on the target (cuda_bf16.h is
hip/hip_bfloat16.h before HIP 5.7 and hip/hip_bf16.h from 5.7), a row overrides the reference
tables for the targets in its range. identifiers.py and includes.py ask `renames_for(target)`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.data.mappings import generated_dir, hand_kept_dir
from hipify_py.data.version_ranges import holds_for, one_per_name, range_text, read_table

TABLE_NAME = "version-renames.yaml"
# Generated tables of the same schema beside it (version-renames-hipblas3.yaml: hipBLAS 3's names).
GENERATED_GLOB = "version-renames-*.yaml"


class TableError(ValueError):
    """A malformed row in the rename table (a bug in the shipped data: tests load it)."""


class Rename(NamedTuple):
    cuda: str
    hip: str
    source: str
    since: str | None = None
    until: str | None = None

    def holds_for(self, target: str) -> bool:
        return holds_for(self.since, self.until, target)

    @property
    def range_text(self) -> str:
        return range_text(self.since, self.until)


class Renames(NamedTuple):
    names: Mapping[bytes, Rename]
    headers: Mapping[bytes, Rename]


def _rows(doc: Mapping[str, object], key: str, sources: Mapping[str, str]) -> tuple[Rename, ...]:
    rows = []
    for i, raw in enumerate(doc.get(key) or ()):  # type: ignore[attr-defined]
        cuda, hip, source = raw.get("cuda"), raw.get("hip"), str(raw.get("source", ""))
        if not cuda or not hip or source not in sources:
            raise TableError(f"{TABLE_NAME}: {key} row {i + 1} needs cuda, hip and a known source")
        since, until = raw.get("since"), raw.get("until")
        rows.append(Rename(str(cuda), str(hip), sources[source], since and str(since), until and str(until)))
    return tuple(rows)


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[tuple[Rename, ...], tuple[Rename, ...]]:
    """(name rows, header rows)."""
    if (
        path is None
    ):  # the shipped table: built once per code stamp (hipify_py/data/derived.py), no YAML import
        from hipify_py.data import derived

        return derived.load("version-renames", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[tuple[Rename, ...], tuple[Rename, ...]]:
    """The rows of `path`, or of the shipped table and the generated ones beside it."""
    paths = (
        [path]
        if path is not None
        else [hand_kept_dir() / TABLE_NAME, *sorted(generated_dir().glob(GENERATED_GLOB))]
    )
    names: list[Rename] = []
    headers: list[Rename] = []
    for one in paths:
        doc, sources = read_table(one)
        names += _rows(doc, "names", sources)
        headers += _rows(doc, "headers", sources)
    return tuple(names), tuple(headers)


@functools.lru_cache(maxsize=16)
def renames_for(target: str) -> Renames:
    names, headers = load_table()

    def pick(rows: tuple[Rename, ...]) -> dict[bytes, Rename]:
        found = one_per_name(
            rows, target, lambda r: r.cuda, Rename.holds_for, lambda m: TableError(f"{TABLE_NAME}: {m}")
        )
        return {k.encode(): v for k, v in found.items()}

    return Renames(pick(names), pick(headers))
