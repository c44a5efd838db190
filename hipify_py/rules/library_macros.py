"""Macros a ROCm library header reads to declare its API on the types CUDA code passes (HIP136).

hipBLAS declares its half-precision functions on `hipblasHalf`, a uint16_t unless HIPBLAS_USE_HIP_HALF
is defined before hipblas.h (then __half). cuBLAS's `cublasHgemm` takes __half, which the translation
keeps, so the translated call fails unless the macro is defined. mappings/library-macros.yaml lists,
per macro, the functions that need it and the HIP releases whose headers were read; a file that calls
one (by its CUDA or HIP name) gets `#define MACRO` before its first include, like the warp-sync
opt-in macro (rules/warp_sync.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir
from hipify_py.data.version_ranges import holds_for, range_text, read_table
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled

TABLE_NAME = "library-macros.yaml"


class TableError(ValueError):
    """A malformed row in the table (a bug in the shipped data: tests load it)."""


class LibraryMacro(NamedTuple):
    macro: str
    header: str  # the library header that reads it
    names: frozenset[str]  # HIP functions whose declarations need it
    source: str
    since: str | None = None
    until: str | None = None

    def holds_for(self, target: str) -> bool:
        return holds_for(self.since, self.until, target)


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[LibraryMacro, ...]:
    if path is None:  # the shipped table: built once per code stamp, no YAML import on later runs
        return derived.load("library-macros", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[LibraryMacro, ...]:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    rows = []
    for i, raw in enumerate(doc.get("macros") or ()):
        macro, header, source = raw.get("macro"), raw.get("header"), str(raw.get("source", ""))
        if not macro or not header or source not in sources or not raw.get("names"):
            raise TableError(f"{TABLE_NAME}: row {i + 1} needs macro, header, names and a known source")
        since, until = raw.get("since"), raw.get("until")
        names = frozenset(str(n) for n in raw["names"])
        rows.append(
            LibraryMacro(
                str(macro), str(header), names, sources[source], since and str(since), until and str(until)
            )
        )
    return tuple(rows)


def _triggers(ctx: Context, row: LibraryMacro) -> Mapping[bytes, str]:
    """Identifiers that call for the macro: the HIP names and the CUDA names the tables map to them."""
    found = {name.encode(): name for name in row.names}
    for name in row.names:
        for entry in ctx.tables.mappings.by_hip.get(name, ()):
            found[entry.cuda.encode()] = name
    return found


def _defines(source: bytes, macro: bytes) -> bool:
    """The file #defines the macro itself (a mention in a comment does not count)."""
    return (
        macro in source
        and compiled(rb"^[ \t]*#[ \t]*define[ \t]+" + macro + rb"\b", re.M).search(source) is not None
    )


def define_library_macros(ctx: Context) -> RuleResult:
    result = RuleResult()
    target = ctx.target
    if not target:
        return result
    for row in load_table():
        if not row.holds_for(target) or _defines(ctx.source, row.macro.encode()):
            continue
        triggers = _triggers(ctx, row)
        present = sorted(ctx.identifiers & triggers.keys())
        if not present:
            continue
        pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(present) + rb")\s*\(")
        first = next((m for m, where in ctx.code_matches(pattern) if where in REWRITABLE), None)
        if first is None:
            continue
        result.requests.append(Insertion.macro(row.macro.encode()))  # HIP's headers read it
        message = (
            f"`{triggers[first.group(1)]}` is declared on {row.macro}'s types by <{row.header}> "
            f"({range_text(row.since, row.until)}): #define {row.macro} added before the first include"
        )
        result.diagnostics.append(ctx.diag("HIP136", first.start(1), first.end(1), message))
        result.counts["library_macros"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={120: define_library_macros},
    texts=(
        Rule(
            "HIP136",
            "library-type-macro",
            Severity.INFO,
            "Macro a ROCm library header needs for CUDA's types, defined",
            "Nothing to do; if the library header comes into this translation unit earlier through another "
            "header, pass the macro on the command line (-DHIPBLAS_USE_HIP_HALF) instead.",
            "Some ROCm library headers declare their API on their own types unless a macro asks for the HIP "
            "ones: hipBLAS takes `hipblasHalf` (uint16_t) unless HIPBLAS_USE_HIP_HALF is defined, while "
            "cuBLAS's H functions take __half, which the translation keeps. A file that calls such a "
            "function gets the macro before its first include (mappings/library-macros.yaml: macro, the "
            "functions that need it, the releases whose headers were read).",
        ),
    ),
    tables=(load_table,),
    fixtures=("hipblas/*/half_gemm",),
)
