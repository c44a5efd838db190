"""Equivalents written after the include of a CUDA header whose API HIP lacks (mappings/header-shims.yaml).

`#include <cooperative_groups/reduce.h>` becomes HIP's cooperative-groups header (headers.yaml), and
`cg::reduce` with the cg::plus/less/greater/bit_* functors is defined right after it for
thread_block_tile, once per file (HIP134, info); the HIP113 findings of those names are settled. On
HIP's NVIDIA platform the block includes CUDA's own header instead.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data import derived
from hipify_py.data.mappings import mappings_dir
from hipify_py.data.shim_table import NVIDIA
from hipify_py.data.version_ranges import read_table
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.util.lazyre import compiled, lazy

TABLE_NAME = "header-shims.yaml"
GUARD_PREFIX = "HIPIFY_PY_SHIM_"
_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"][^\n]*\n?', re.MULTILINE)
SETTLED_RULES = frozenset({"HIP113"})


class TableError(ValueError):
    """A malformed row in the table (a bug in the shipped data: tests load it)."""


class HeaderShim(NamedTuple):
    header: str
    guard: str
    names: frozenset[str]
    code: str
    source: str


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[HeaderShim, ...]:
    if path is None:  # the shipped table: built once per code stamp, no YAML import on later runs
        return derived.load("header-shims", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[HeaderShim, ...]:
    doc, sources = read_table(path or mappings_dir() / TABLE_NAME)
    rows = []
    for i, raw in enumerate(doc.get("shims") or ()):
        fields = {k: raw.get(k) for k in ("header", "guard", "code", "source")}
        if not all(fields.values()) or fields["source"] not in sources:
            raise TableError(f"{TABLE_NAME}: row {i + 1} needs header, guard, code and a known source")
        names = frozenset(str(n) for n in raw.get("names") or ())
        source = sources[str(raw["source"])]
        rows.append(HeaderShim(str(raw["header"]), str(raw["guard"]), names, str(raw["code"]), source))
    return tuple(rows)


def _definition(shim: HeaderShim, newline: bytes) -> bytes:
    macro = (GUARD_PREFIX + shim.guard).encode()
    lines = [
        f"// hipify-py: HIP has no {shim.header}; an equivalent:".encode(),
        # HIP's NVIDIA platform compiles with CUDA's headers: CUDA's own header is there, and ours would
        # redefine its names; the off/on comments keep a later run from translating that include
        b"#if defined(" + NVIDIA.encode() + b")",
        b"// hipify-py: off",
        f"#include <{shim.header}>".encode(),
        b"// hipify-py: on",
        b"#elif !defined(" + macro + b")",
        b"#define " + macro,
        *shim.code.rstrip("\n").encode().split(b"\n"),
        b"#endif",
    ]
    return newline.join(lines) + newline


def insert_header_shims(ctx: Context) -> RuleResult:
    result = RuleResult()
    rows = load_table()
    for shim in rows:  # written by an earlier run: the names it defines are no longer missing
        if (GUARD_PREFIX + shim.guard).encode() in ctx.source:
            _settle(ctx, shim, result)
    shims = {s.header.encode(): s for s in rows}
    if not any(header in ctx.source for header in shims):
        return result
    done: set[str] = set()
    for m in _INCLUDE.finditer(ctx.source):
        shim = shims.get(m.group(1).strip())
        # the line's `#` is code (the path itself reads as a string)
        if shim is None or shim.guard in done or ctx.classify(m.start(), m.start() + 1) not in REWRITABLE:
            continue
        if ctx.is_protected(m.start()) or (GUARD_PREFIX + shim.guard).encode() in ctx.source:
            continue
        done.add(shim.guard)
        nl = newline_of(ctx.source)
        text = _definition(shim, nl) if m.group().endswith(b"\n") else nl + _definition(shim, nl)
        result.edits.append(Edit(m.end(), m.end(), text))
        message = f"{shim.header}: HIP has no such header; an equivalent of its API follows the include"
        result.diagnostics.append(ctx.diag("HIP134", m.start(1), m.end(1), message))
        result.counts["shims"] += 1
        _settle(ctx, shim, result)
    return result


def _settle(ctx: Context, shim: HeaderShim, result: RuleResult) -> None:
    """The HIP113 findings of the names the shim defines, everywhere in the file."""
    alternatives = b"|".join(n.encode() for n in sorted(shim.names))
    names = compiled(rb"(?<![\w$])(?:" + alternatives + rb")(?![\w$])")
    result.settled.extend((u.start(), u.end(), SETTLED_RULES) for u, _ in ctx.code_matches(names))
