"""The CUDA names of a file that HIP merges into one (cudaError_t and CUresult -> hipError_t): what
rules/collisions.py checks. Its own module so collisions.py stays under the size limit.

Names also merge by type: cuSPARSE's descriptors, cuBLAS's and cuSOLVER's handles... are distinct CUDA
types, but many of their HIP names are `void*` itself (mappings/probed/void-handles-<HIP>.yaml, probed
per release by scripts/probe_void_handles.py): two of them in a file are a merge too, which
rules/collisions.py compares with each such name read as VOID."""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path

from hipify_py.analysis.context import Context
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.renames import renames_for
from hipify_py.data.versions import read_versioned
from hipify_py.rules.identifiers import replacement

VOID = b"void*"  # the type of every name in void_handles(), as collisions.py spells it
PREFIX = "void-handles-"


@functools.lru_cache(maxsize=8)
def void_handles(hip_version: str | None = None, directory: Path | None = None) -> frozenset[str]:
    """HIP type names that are `void*` in the target (or the nearest older probed release)."""
    if directory is None:
        return derived.load("void-handles", _build_handles, hip_version)
    return _build_handles(hip_version, directory)


def _build_handles(hip_version: str | None, directory: Path | None = None) -> frozenset[str]:
    _, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return frozenset(str(n) for n in data.get("void_handles") or ())


def merge_candidates(ctx: Context) -> tuple[dict[bytes, bytes], set[bytes]]:
    """(CUDA name -> HIP name it becomes, HIP names that two different spellings of the file become).

    Only names present in the file count, so a file without two members of one merge set costs one
    identifier scan and a set intersection.
    """
    present = ctx.identifiers
    targets: dict[bytes, bytes] = {}
    spellings: dict[bytes, set[bytes]] = defaultdict(set)
    for_target = renames_for(ctx.target).names if ctx.target else {}
    handles = void_handles(ctx.options.hip_version)
    for name in ctx.tables.candidates.keys & present:
        if name not in ctx.tables.names:
            continue  # a renamed namespace (cub)
        rename = for_target.get(name)  # what the target spells it (rules/identifiers.py writes that)
        if rename is not None and rename.hip == rename.cuda:
            continue  # kept as written
        new = rename.hip if rename is not None else replacement(ctx.tables.names[name], ctx.options)[0]
        if not new:
            continue
        target = new.encode()
        targets[name] = target
        spellings[target].add(name)
    merged = {t for t, names in spellings.items() if len(names) > 1 or t in present}
    void = {t for t in spellings if t.decode() in handles}
    if len(void) > 1:  # two HIP names that are one type
        merged |= void
    return targets, merged
