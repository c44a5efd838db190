"""C headers nvcc includes implicitly and the target's hip_runtime.h no longer does (ROCm 7: <string.h>).

nvcc includes cuda_runtime.h in every .cu, which brings <string.h>, <stdlib.h>, <time.h>... along, so
CUDA code calls `strlen` or `memcpy` with no include. HIP 5.2 and 6.x headers brought the same headers;
ROCm 7.2's do not declare string.h's functions for host code (only HIP's __device__ memcpy/memset), so
the translated call fails. mappings/implicit-includes-<version>.yaml (scripts/probe_implicit_includes.py)
lists, per probed HIP, the functions concerned and their header; a converted file that calls one and
does not include the header gets it at the top of its include block (HIP135, info).

A post-pass like the runtime include: it runs on files the translation changes (CUDA code), never on a
file that stays byte-identical.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data import derived
from hipify_py.data.mappings import mappings_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.util.lazyre import compiled, lazy

PREFIX = "implicit-includes-"
_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)


@functools.lru_cache(maxsize=8)
def implicit_headers(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, Mapping[bytes, bytes]]:
    """(probed HIP version, function -> header) for the target or the nearest older probed version."""
    if directory is None:
        return derived.load("implicit-includes", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> tuple[str, dict[bytes, bytes]]:
    version, data = read_versioned(directory or mappings_dir(), PREFIX, hip_version)
    table = {}
    for header, names in (data.get("headers") or {}).items():
        for name in names:
            table[str(name).encode()] = str(header).encode()
    return version, table


def _spellings(header: bytes) -> tuple[bytes, bytes]:
    """The C and C++ names of one C header: string.h and cstring."""
    return header, b"c" + header.removesuffix(b".h")


def add_implicit_includes(ctx: Context, edits: Sequence[Edit], at: int) -> RuleResult:
    """`#include <string.h>` (and the like) at `at` (the top of the include block) where the converted
    file calls what nvcc declared for it."""
    result = RuleResult()
    if not edits or ctx.options.hip_version is None:
        return result
    version, table = implicit_headers(ctx.options.hip_version)
    used = sorted(ctx.identifiers & table.keys())
    if not used:
        return result
    included = {m.group(1).strip() for m in _INCLUDE_PATH.finditer(ctx.source)}
    included |= {e.text for e in edits}  # an include another rule writes
    wanted: dict[bytes, re.Match[bytes]] = {}
    pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(used) + rb")\s*\(")
    for m, where in ctx.code_matches(pattern):
        header = table[m.group(1)]
        if where in REWRITABLE and header not in wanted and included.isdisjoint(_spellings(header)):
            wanted[header] = m
    if not wanted:
        return result
    for header, m in sorted(wanted.items()):
        result.edits.append(Edit(at, at, b"#include <" + header + b">" + newline_of(ctx.source)))
        message = (
            f"`{m.group(1).decode()}` is declared by <{header.decode()}>, which nvcc includes in every .cu "
            f"and HIP {version}'s hip_runtime.h does not: included"
        )
        result.diagnostics.append(ctx.diag("HIP135", m.start(1), m.end(1), message))
        result.counts["includes"] += 1
    return result
