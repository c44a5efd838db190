"""Versions: parse and compare release numbers, and pick a per-version table.

A probe table is `mappings/<prefix><version>.yaml`, one per probed ROCm release; a target reads the
newest probed release not newer than itself (else the oldest): `versioned_file` / `read_versioned`."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hipify_py.util.lazyre import lazy

_VERSION_PART = lazy(r"\d+")


# why cached: a run compares the same few version strings thousands of times (every versioned table row
# against the target: ~950 parses for one file, ~18k over HeCBench); both are pure functions of strings
@functools.lru_cache(maxsize=1024)
def parse_version(text: str) -> tuple[int, ...]:
    """Version text -> int tuple: '6.2.0' -> (6, 2, 0), '11.3' -> (11, 3), '' -> ().

    Parsing stops at the first non-numeric part, so '6.2.0-rc1' -> (6, 2, 0).
    """
    parts: list[int] = []
    for piece in text.strip().split("."):
        match = _VERSION_PART.match(piece)
        if match is None:
            break
        parts.append(int(match.group()))
    return tuple(parts)


@functools.lru_cache(maxsize=4096)
def compare_versions(a: str, b: str) -> int:
    """-1, 0 or 1; missing trailing parts count as 0 so "6.2" == "6.2.0"."""
    va, vb = parse_version(a), parse_version(b)
    width = max(len(va), len(vb))
    pa, pb = va + (0,) * (width - len(va)), vb + (0,) * (width - len(vb))
    return (pa > pb) - (pa < pb)


def versioned_file(directory: Path, prefix: str, target: str | None) -> tuple[str, Path | None]:
    """(HIP version, path) of `<prefix><version>.yaml` for the newest version not newer than the
    target (else the oldest one): probe facts of the installed HIP, one file per version."""
    files = {p.name[len(prefix) : -len(".yaml")]: p for p in directory.glob(f"{prefix}*.yaml")}
    if not files:
        return "", None
    versions = sorted(files, key=parse_version)
    chosen = versions[0]
    for version in versions:
        if not target or compare_versions(version, target) <= 0:
            chosen = version
    return chosen, files[chosen]


def read_versioned(directory: Path, prefix: str, target: str | None) -> tuple[str, Mapping[str, Any]]:
    """(HIP version, YAML document) of the probe table `versioned_file` picks; ("", {}) when there is
    none. YAML is imported here only: runs served by the translation cache never need it."""
    version, path = versioned_file(directory, prefix, target)
    if path is None:
        return "", {}
    import yaml

    return version, yaml.load(path.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
