"""The HIP runtime header before a user macro that would rewrite HIP's own code.

nvcc includes cuda_runtime.h before the first line of every .cu file, so CUDA code may
`#define T int` or `#define min(a, b) ...` anywhere. hipcc includes no runtime header by itself: when
hip/hip_runtime.h comes later in the translation unit (through a header this tool gave it, or a
renamed include), HIP's `template <typename T>` or `min(...)` is macro-expanded and the build fails
inside HIP's headers. mappings/hip-identifiers-<HIP version>.yaml (scripts/probe_hip_identifiers.py:
the identifiers of the preprocessed runtime header) says which names do that.

A file that defines such a macro before any runtime include gets
`#include <hip/hip_runtime.h>` above the first such #define (at the top of its include block when
that is earlier), under `#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)` so a host-only
compile (g++ on a shared header) is unchanged; reported as HIP131 (info). The header's include guard
makes later includes of it no-ops, which restores CUDA's order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.includes import guards_define, include_position
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import GUARDED, Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

PREFIX = "hip-identifiers-"
RUNTIME = b"hip/hip_runtime.h"
GUARD = b"#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)"
_DIGITS = frozenset(b"0123456789")
_RUNTIME_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime\.h[>"]', re.MULTILINE)
_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)


@functools.lru_cache(maxsize=8)
def hip_identifiers(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[frozenset[bytes], frozenset[bytes]]:
    """(identifiers HIP's runtime header uses, those it calls) for the target or nearest version."""
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("hip-identifiers", _build_identifiers, hip_version)
    return _build_identifiers(hip_version, directory)


def _build_identifiers(
    hip_version: str | None, directory: Path | None = None
) -> tuple[frozenset[bytes], frozenset[bytes]]:
    _, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return (
        frozenset(w.encode() for w in str(data.get("identifiers") or "").split()),
        frozenset(w.encode() for w in str(data.get("called") or "").split()),
    )


def runtime_before_macros(ctx: Context, edits: Iterable[Edit]) -> RuleResult:
    """`edits`: every other edit of the file (renamed and inserted includes count)."""
    result = RuleResult()
    if not ctx.define_lines:
        return result
    names, called = hip_identifiers(ctx.options.hip_version)
    clobbering = [m for m in ctx.define_lines if _clobbers(ctx, m, names, called)]
    if not clobbering:
        return result
    first = clobbering[0]
    line = ctx.lines.line_start(first.start(1))
    if _runtime_before(ctx, list(edits), line):
        return result
    result.requests.append(Insertion(GUARDED, min(include_position(ctx), line), RUNTIME, GUARD))
    shown = ", ".join(f"`{m.group(1).decode()}`" for m in clobbering[:3])
    more = f" (and {len(clobbering) - 3} more)" if len(clobbering) > 3 else ""
    result.diagnostics.append(
        ctx.diag(
            "HIP131",
            first.start(1),
            first.end(1),
            f"#define {shown}{more} would rewrite HIP's own headers if {RUNTIME.decode()} came later in "
            "the translation unit: it is included first here, as nvcc does with cuda_runtime.h",
        )
    )
    result.counts["runtime_before_macros"] += 1
    return result


_C_LINKAGE = lazy(rb'^[ \t]*extern[ \t]+"C"[ \t]*(?:\n[ \t]*)?\{', re.MULTILINE)
_QUOTED_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*"[^"\n]+"', re.MULTILINE)
_BLOCK_END = lazy(rb"^\}", re.MULTILINE)
_CPLUSPLUS_TEST = lazy(
    rb"[ \t]*#[ \t]*(?:ifdef[ \t]+__cplusplus|if[ \t]+defined[ \t]*\(?[ \t]*__cplusplus\b).*\n?"
)


def runtime_before_c_linkage(ctx: Context, edits: Iterable[Edit]) -> RuleResult:
    """`extern "C" {` around the file's own `#include "x.h"`: if x.h is a converted CUDA header it now
    includes hip/hip_runtime.h, whose C++ templates cannot have C linkage ("templates must have C++
    linkage"). nvcc's implicit cuda_runtime.h came before every line; including the runtime header
    above the block restores that order (its include guard makes the nested include a no-op)."""
    result = RuleResult()
    if b'extern "C"' not in ctx.source:
        return result
    for block in _C_LINKAGE.finditer(ctx.source):
        if ctx.is_protected(block.start()) or any(a <= block.start() < b for a, b in ctx.branches.dead):
            continue
        end = _BLOCK_END.search(ctx.source, block.end())
        inner = _QUOTED_INCLUDE.search(ctx.source, block.end(), end.start() if end else len(ctx.source))
        if inner is None or ctx.is_protected(inner.start()):
            continue
        at = _opening_line(ctx, ctx.lines.line_start(block.start()))
        if _runtime_before(ctx, list(edits), at):
            return result
        result.requests.append(Insertion(GUARDED, at, RUNTIME, GUARD))
        result.diagnostics.append(
            ctx.diag(
                "HIP132",
                inner.start(),
                inner.end(),
                'a header included inside `extern "C"` gets C linkage: if it includes HIP\'s runtime '
                f"header (a converted CUDA header does), its templates fail to compile; {RUNTIME.decode()} "
                "is included above the block, as nvcc included cuda_runtime.h before every line",
            )
        )
        result.counts["runtime_before_c_linkage"] += 1
        return result
    return result


def _opening_line(ctx: Context, line: int) -> int:
    """The `#ifdef __cplusplus` right above an `extern "C" {` line opens the block with it."""
    before = ctx.source[:line].rstrip(b"\r\n")
    previous = before.rfind(b"\n") + 1
    if line and _CPLUSPLUS_TEST.fullmatch(ctx.source, previous, line):
        return previous
    return line


def _clobbers(ctx: Context, m: re.Match[bytes], names: frozenset[bytes], called: frozenset[bytes]) -> bool:
    name = m.group(1)
    if name[0] in _DIGITS or name not in (called if m.group(2) else names):
        return False  # (`#define 1x` is no macro: define_lines takes any word)
    if ctx.is_protected(m.start(1)) or ctx.classify(m.start(1), m.end(1)) not in REWRITABLE:
        return False
    if any(a <= m.start() < b for a, b in ctx.branches.dead):
        return False  # a branch hipcc never compiles (`#if 0`, `#ifndef __HIPCC__`)
    return not guards_define(ctx.source, m.start(), name)


def _runtime_before(ctx: Context, edits: list[Edit], line: int) -> bool:
    """The file includes hip/hip_runtime.h before `line` (as written, renamed, or inserted)."""
    m = _RUNTIME_INCLUDE.search(ctx.source, 0, line)
    if m is not None:
        return True
    renamed = {e.start for e in edits if e.start != e.end and e.text == RUNTIME}
    if any(m.start(1) in renamed for m in _INCLUDE_PATH.finditer(ctx.source, 0, line)):
        return True
    return any(e.start == e.end and e.start <= line and b"<" + RUNTIME + b">" in e.text for e in edits)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    texts=(
        Rule(
            "HIP131",
            "runtime-header-before-macro",
            Severity.INFO,
            "HIP runtime header included before a macro that would rewrite it",
            "Nothing to do; to keep the file as it was, include hip/hip_runtime.h before the #define "
            "yourself or rename the macro.",
            "nvcc includes cuda_runtime.h before the first line of every .cu file, so a user's `#define T "
            "int` or `#define min(a, b) ...` never reaches CUDA's headers. hipcc includes no runtime header "
            "by itself: if hip/hip_runtime.h comes later in the translation unit, HIP's `template <typename "
            "T>` or `min(...)` is rewritten by the macro and the build fails inside HIP's headers. The "
            "names come from the preprocessed runtime header (scripts/probe_hip_identifiers.py); the "
            "include is guarded by __HIPCC__/__HIP_PLATFORM_AMD__ so host-only compiles of the file are "
            "unchanged.",
        ),
        Rule(
            "HIP132",
            "runtime-header-before-c-linkage",
            Severity.INFO,
            'HIP runtime header included before an extern "C" block that includes the project\'s headers',
            'Nothing to do; to keep the file as it was, move the #include out of the extern "C" block.',
            'C code shares headers with CUDA code by wrapping them in `extern "C" { #include "x.h" }`. nvcc '
            "includes cuda_runtime.h before the first line, so a CUDA header x.h never opens it inside the "
            "block. Converted, x.h includes hip/hip_runtime.h itself; inside the block its C++ templates "
            'get C linkage and hipcc fails ("templates must have C++ linkage"). The runtime header is '
            "included above the block (guarded by __HIPCC__/__HIP_PLATFORM_AMD__, so host-only compiles are "
            "unchanged); its include guard makes the nested include a no-op.",
        ),
    ),
    loads=(hip_identifiers,),
    fixtures=(
        "include_order/macro_*",
        "include_order/c_linkage_*",
        "include_order/runtime_already_first",
        "include_order/device_helpers",
    ),
)
