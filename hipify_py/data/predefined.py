"""Reserved macro names the target hipcc can define (mappings/hip-predefined-macros-<version>.yaml,
written by scripts/probe_predefined_macros.py): any other `__X__` is undefined under hipcc unless the
project defines it, so code under `#ifdef __PTX__` is compiled only when a build option says so."""

from __future__ import annotations

import functools
from pathlib import Path

from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned

PREFIX = "hip-predefined-macros-"


@functools.lru_cache(maxsize=8)
def hip_predefined_macros(hip_version: str | None = None, directory: Path | None = None) -> frozenset[bytes]:
    """The probed names for the target or the nearest probed version (empty: no probe)."""
    if directory is None:
        return derived.load("hip-predefined-macros", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> frozenset[bytes]:
    _, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return frozenset(name.encode() for name in str(data.get("macros") or "").split())
