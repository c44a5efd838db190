"""Equivalents written after the include of a CUDA header whose API HIP lacks (mappings/header-shims.yaml).

`#include <cooperative_groups/reduce.h>` becomes HIP's cooperative-groups header (headers.yaml), and
`cg::reduce` with the cg::plus/less/greater/bit_* functors is defined right after it for
thread_block_tile, once per file (HIP134, info); the HIP113 findings of those names are settled. On
HIP's NVIDIA platform the block includes CUDA's own header instead. Two APIs are written where they are
used even without their header (another header of the translation unit brings it): libcu++'s atomics
and NVTX's event attributes.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.includes import after_last_include
from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir
from hipify_py.data.shim_table import NVIDIA
from hipify_py.data.version_ranges import read_table
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
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
    # the finding at the include: HIP134 (info: an exact equivalent) unless the row names another,
    # with `note` as its message (NVTX: roctx keeps the message of an event, not its colour)
    rule: str = "HIP134"
    note: str | None = None
    settles: frozenset[str] = SETTLED_RULES
    # written only where the file uses one of `names` (the header has an API HIP keeps as well: roctx)
    when_used: bool = False


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[HeaderShim, ...]:
    if path is None:  # the shipped table: built once per code stamp, no YAML import on later runs
        return derived.load("header-shims", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[HeaderShim, ...]:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    rows = []
    for i, raw in enumerate(doc.get("shims") or ()):
        fields = {k: raw.get(k) for k in ("header", "guard", "code", "source")}
        if not all(fields.values()) or fields["source"] not in sources:
            raise TableError(f"{TABLE_NAME}: row {i + 1} needs header, guard, code and a known source")
        names = frozenset(str(n) for n in raw.get("names") or ())
        source = sources[str(raw["source"])]
        note = raw.get("note")
        settles = frozenset(str(r) for r in raw.get("settles") or ()) or SETTLED_RULES
        rows.append(
            HeaderShim(
                str(raw["header"]),
                str(raw["guard"]),
                names,
                str(raw["code"]),
                source,
                str(raw.get("rule") or "HIP134"),
                None if note is None else str(note),
                settles,
                bool(raw.get("when_used")),
            )
        )
    return tuple(rows)


def _definition(shim: HeaderShim, newline: bytes, needs: bytes = b"") -> bytes:
    """The block; `needs`: lines the AMD branch includes first (the HIP header the code calls into)."""
    macro = (GUARD_PREFIX + shim.guard).encode()
    lines = [
        (
            f"// hipify-py: HIP has no {shim.header}; an equivalent:"
            if shim.note is None
            else f"// hipify-py: {shim.header}: {shim.note}"
        ).encode(),
        # HIP's NVIDIA platform compiles with CUDA's headers: CUDA's own header is there, and ours would
        # redefine its names; the off/on comments keep a later run from translating that include
        b"#if defined(" + NVIDIA.encode() + b")",
        b"// hipify-py: off",
        f"#include <{shim.header}>".encode(),
        b"// hipify-py: on",
        b"#elif !defined(" + macro + b")",
        b"#define " + macro,
        *([needs] if needs else []),
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
    done: set[str] = set()
    _implied_atomics(ctx, shims, result, done)
    _implied_nvtx(ctx, shims, result, done)
    if not any(header in ctx.source for header in shims):
        return result
    branches: dict[str, set[int | None]] = {}
    for m in _INCLUDE.finditer(ctx.source):
        shim = shims.get(m.group(1).strip())
        # the line's `#` is code (the path itself reads as a string)
        if shim is None or shim.guard in done or ctx.classify(m.start(), m.start() + 1) not in REWRITABLE:
            continue
        if ctx.is_protected(m.start()) or (GUARD_PREFIX + shim.guard).encode() in ctx.source:
            continue
        if shim.when_used and not _uses(ctx, shim):
            continue
        # an include in one branch of `#ifdef LEGACY ... #else ... #endif` (Ginkgo's nvToolsExt.h and
        # nvtx3/nvToolsExt.h) gets the equivalent in that branch: each branch that includes the header
        # gets its own copy (the guard macro keeps one), once one outside every branch has none
        branch = _branch(ctx, m.start())
        seen = branches.setdefault(shim.guard, set())
        if branch in seen:
            continue
        seen.add(branch)
        if branch is None:
            done.add(shim.guard)
        nl = newline_of(ctx.source)
        text = _definition(shim, nl) if m.group().endswith(b"\n") else nl + _definition(shim, nl)
        result.requests.append(Insertion.helper(m.end(), text))  # after the include line
        message = shim.note or "HIP has no such header; an equivalent of its API follows the include"
        result.diagnostics.append(ctx.diag(shim.rule, m.start(1), m.end(1), f"{shim.header}: {message}"))
        result.counts["shims"] += 1
        _settle(ctx, shim, result)
    return result


_BRANCHES = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})


def _branch(ctx: Context, at: int) -> int | None:
    """The start of the innermost preprocessor branch holding offset `at` (None: in none)."""
    node = ctx.root.descendant_for_byte_range(at, at + 1)
    while node is not None and node.type not in _BRANCHES:
        node = node.parent
    return None if node is None else node.start_byte


# libcu++'s atomics named in code: `cuda::memory_order_relaxed`, `cuda::atomic<T, cuda::thread_scope_device>`
_CUDA_ATOMIC_USE = lazy(
    rb"(?<![\w$:])(?:::)?cuda[ \t]*::[ \t]*(?:std[ \t]*::[ \t]*)?"
    rb"(?:memory_order\w*|atomic(?:_ref|_thread_fence|_signal_fence)?|thread_scope\w*)(?![\w$])"
)
_LIBCUDACXX_INCLUDE = lazy(rb"^[ \t]*#[ \t]*include[ \t]*[<\"]cuda/", re.MULTILINE)


def _implied_atomics(
    ctx: Context, shims: dict[bytes, HeaderShim], result: RuleResult, done: set[str]
) -> None:
    """libcu++'s atomics used in a file that includes no libcu++ header (`cuda::memory_order_relaxed` in
    a template of a header that CUDA compiles after <cub/cub.cuh>, which brings libcu++ along: BGHT):
    the <cuda/atomic> equivalent, with <atomic> for it, after the last include before the first use (one
    whose preprocessor branch holds the use too)."""
    shim = shims.get(b"cuda/atomic")
    if shim is None or b"cuda" not in ctx.source or _LIBCUDACXX_INCLUDE.search(ctx.source) is not None:
        return
    first = next((m for m, _ in ctx.code_matches(_CUDA_ATOMIC_USE)), None)
    if first is None or (GUARD_PREFIX + shim.guard).encode() in ctx.source:
        return
    position, lead = _after_include_around(ctx, first.start())
    nl = newline_of(ctx.source)
    done.add(shim.guard)
    text = lead + b"#include <atomic>" + nl + _definition(shim, nl)
    result.requests.append(Insertion.helper(position, text))
    message = "libcu++'s atomics are used, which CUDA's headers bring along; an equivalent follows"
    result.diagnostics.append(ctx.diag(shim.rule, first.start(), first.end(), f"{shim.header}: {message}"))
    result.counts["shims"] += 1
    _settle(ctx, shim, result)


_NVTX_INCLUDE = lazy(rb"^[ \t]*#[ \t]*include[ \t]*[<\"](?:nvtx3/)?nvToolsExt", re.MULTILINE)


def _implied_nvtx(ctx: Context, shims: dict[bytes, HeaderShim], result: RuleResult, done: set[str]) -> None:
    """NVTX's event attributes used in a file that includes no NVTX header (Comb's profiling.hpp, which
    gets nvToolsExt.h through exec_utils_cuda.hpp, a header that uses none of them and so gets no
    equivalent): the equivalent, with the roctx header it calls into, after the last include before the
    first use. Not where the file defines one of the names itself (its own stubs for an NVTX-less build)."""
    shim = shims.get(b"nvToolsExt.h")
    if shim is None or (b"nvtx" not in ctx.source and b"NVTX" not in ctx.source):
        return
    if _NVTX_INCLUDE.search(ctx.source) is not None:
        return
    if shim.guard in done or (GUARD_PREFIX + shim.guard).encode() in ctx.source:
        return
    names = _names(shim)
    dead = ctx.branches.dead
    first = next(
        (
            m
            for m, where in ctx.code_matches(names)
            if where in REWRITABLE
            and not ctx.is_protected(m.start())
            and not any(a <= m.start() < b for a, b in dead)
            and not _in_directive(ctx.source, m.start())
        ),
        None,
    )
    if first is None or _defines_any(ctx.source, shim):
        return
    header = ctx.tables.headers.get(b"nvToolsExt.h")
    if header is None or not header.hip:
        return
    position, lead = _after_include_around(ctx, first.start())
    nl = newline_of(ctx.source)
    done.add(shim.guard)
    needs = b"#include <" + header.hip.encode() + b">"
    result.requests.append(Insertion.helper(position, lead + _definition(shim, nl, needs)))
    message = "NVTX's event attributes are used, which a header included before brings; an equivalent follows"
    result.diagnostics.append(ctx.diag(shim.rule, first.start(), first.end(), f"{shim.header}: {message}"))
    result.counts["shims"] += 1
    _settle(ctx, shim, result)


def _after_include_around(ctx: Context, use: int) -> tuple[int, bytes]:
    """after_last_include, among the includes whose preprocessor branch holds the use too: not after an
    include in `#ifdef COMB_ENABLE_CALIPER ... #endif` that the use is outside of (Comb)."""
    nl = newline_of(ctx.source)
    for m in reversed(list(_INCLUDE.finditer(ctx.source, 0, use))):
        if ctx.classify(m.start(), m.start() + 1) not in REWRITABLE or ctx.is_protected(m.start()):
            continue
        node = ctx.root.descendant_for_byte_range(m.start(), m.start() + 1)
        while node is not None and node.type not in _BRANCHES:
            node = node.parent
        if node is None or node.start_byte <= use < node.end_byte:
            return m.end(), (b"" if m.group().endswith(b"\n") else nl)
    return after_last_include(ctx, 0)


def _in_directive(source: bytes, at: int) -> bool:
    """Whether offset `at` is on a preprocessor line (`#if NVTX_VERSION >= 3`): not a use."""
    start = source.rfind(b"\n", 0, at) + 1
    return source[start:at].lstrip().startswith(b"#")


def _defines_any(source: bytes, shim: HeaderShim) -> bool:
    """The file defines one of the shim's names itself (`#define nvtxRangePushEx(a)`, a typedef of
    nvtxEventAttributes_t, a function of the name)."""
    alternatives = b"|".join(n.encode() for n in sorted(shim.names))
    pattern = compiled(
        rb"#[ \t]*define[ \t]+(?:" + alternatives + rb")\b"
        rb"|\b(?:typedef|struct|union|enum)\b[^;{]*?\b(?:" + alternatives + rb")\b[ \t]*[;{]"
        rb"|\b(?:void|int|inline)[ \t*]+(?:" + alternatives + rb")[ \t]*\([^;]*\)[ \t\n]*\{"
    )
    return pattern.search(source) is not None


def _names(shim: HeaderShim) -> re.Pattern[bytes]:
    alternatives = b"|".join(n.encode() for n in sorted(shim.names))
    return compiled(rb"(?<![\w$])(?:" + alternatives + rb")(?![\w$])")


def _uses(ctx: Context, shim: HeaderShim) -> bool:
    return any(True for _ in ctx.code_matches(_names(shim)))


def _settle(ctx: Context, shim: HeaderShim, result: RuleResult) -> None:
    """The findings (HIP113, or the row's `settles`) of the names the shim defines, everywhere in the file."""
    result.settled.extend((u.start(), u.end(), shim.settles) for u, _ in ctx.code_matches(_names(shim)))


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={150: insert_header_shims},
    texts=(
        Rule(
            "HIP146",
            "nvtx-event-attributes",
            Severity.WARNING,
            "NVTX event attributes and domains on roctx: the message is kept, colour and payload dropped",
            "Nothing to do for the build; a range's colour, category or payload, and the domain it belongs "
            "to, do not show in a ROCm trace (rocprofiler-sdk's roctx has the same API).",
            "roctx (roctracer/roctx.h) has ranges and marks on ASCII messages only. After the include "
            "of nvToolsExt.h (v2 or nvtx3/) the translation writes NVTX's event-attribute types and "
            "constants (nvtxEventAttributes_t, NVTX_VERSION, NVTX_COLOR_ARGB, ...) and nvtxRangePushEx, "
            "nvtxMarkEx, nvtxRangeStartEx and the nvtxDomain* calls, which pass the event's ASCII message "
            "to roctxRangePushA/roctxMarkA/roctxRangeStartA (an empty one for a wide or registered "
            "message); naming calls (nvtxNameOsThreadA, nvtxNameCategoryA) do nothing, as NVTX does with "
            "no tool attached (mappings/header-shims.yaml). On HIP's NVIDIA platform NVTX's own header is "
            "included instead. Wide-character (W) calls and resources are still reported (HIP101/HIP141).",
        ),
    ),
    tables=(load_table,),
    fixtures=("shims/*/cg_*", "shims/*/libcudacxx_*", "shims/*/nv_target*", "vendor_libs/*/nvtx*"),
)
