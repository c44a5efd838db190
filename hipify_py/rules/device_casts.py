"""Casts for device-function calls CUDA converts implicitly and HIP's extra overloads make ambiguous.

CUDA declares `int __ffsll(long long)` once; HIP 5.2 declares `__ffsll(long long)` and
`__ffsll(unsigned long long)`, so `__ffsll(x)` with a `uint64_t` (unsigned long) or an `int` is
ambiguous on ROCm. mappings/device-call-casts-<HIP version>.yaml (scripts/probe_device_calls.py
compiles every such call against both headers) says which argument types fail and the CUDA parameter
type that fixes them; the argument is wrapped in `static_cast<T>(...)`, CUDA's own conversion.

Where the file states the argument's type (literal, cast, declared variable: hipify_py/analysis/declared.py)
the cast is added only for a type that fails; where it does not, only if every CUDA overload with
that many arguments has that parameter type (`uniform`), so the cast cannot change which one is
meant. Calls inside macro bodies are found too (hipify_py/analysis/callargs.py); there the type is unknown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis import callargs
from hipify_py.analysis.callargs import Call, CallFinder
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.declared import expression_type, normal
from hipify_py.data import derived
from hipify_py.data.adaptations import load_table as load_adaptations
from hipify_py.data.mappings import probed_dir
from hipify_py.data.tables import CandidateFinder
from hipify_py.data.versions import read_versioned
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

PREFIX = "device-call-casts-"
WARP_MASK = b"<warp mask>"  # the type of a lane-mask call the warp-sync rule adapts


class Cast(NamedTuple):
    arguments: int
    arg: int
    cast: bytes
    uniform: bool
    types: frozenset[bytes]


class CastTable(NamedTuple):
    casts: Mapping[bytes, tuple[Cast, ...]]  # CUDA name -> its casts
    returns: Mapping[bytes, bytes]  # CUDA device function -> the one type it returns
    finder: CandidateFinder


@functools.lru_cache(maxsize=8)
def load_casts(hip_version: str | None = None, directory: Path | None = None) -> CastTable:
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("device-call-casts", _build_casts, hip_version)
    return _build_casts(hip_version, directory)


def _build_casts(hip_version: str | None, directory: Path | None = None) -> CastTable:
    _, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    casts: dict[bytes, list[Cast]] = {}
    returns: dict[bytes, bytes] = {}
    # 64-bit lane masks on AMD (`__ballot_sync` -> `__ballot`): the warp-sync rule picks the count
    # function for them (__ffs -> __ffsll) and HIP's __ffsll takes them exactly: their type is HIP's
    wide = {name.encode() for row in load_adaptations() if row.widen for name in (row.cuda, row.hip) if name}
    if data:
        for row in data.get("casts") or ():
            casts.setdefault(row["cuda"].encode(), []).append(
                Cast(
                    int(row["arguments"]),
                    int(row["arg"]),
                    row["cast"].encode(),
                    bool(row.get("uniform")),
                    frozenset(t.encode() for t in row["types"]),
                )
            )
        returns = {k.encode(): v.encode() for k, v in (data.get("returns") or {}).items()}
    for name in wide:
        returns[name] = WARP_MASK
    return CastTable({k: tuple(v) for k, v in casts.items()}, returns, CandidateFinder(frozenset(casts)))


def cast_device_arguments(ctx: Context) -> RuleResult:
    result = RuleResult()
    table = load_casts(ctx.options.hip_version)
    finder: CallFinder | None = None
    for m in table.finder.finditer(ctx.source, ctx.identifiers):
        start, end = m.span()
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        finder = finder or CallFinder(ctx.source, ctx.root)
        call = finder.at((start, end))
        if call is None:
            continue
        for cast in table.casts[m.group()]:
            if cast.arguments == len(call.args) and _needs_cast(ctx, call, cast, table.returns):
                result.edits.extend(callargs.wrap(call, cast.arg, b"static_cast<" + cast.cast + b">("))
                result.counts["device_casts"] += 1
    return result


_STATIC_CAST = lazy(rb"static_cast\s*<(?P<type>[^<>]+)>\s*\((?P<rest>.*)\)", re.S)
_C_CAST = lazy(rb"\(\s*(?P<type>[\w\s]+?)\s*\)\s*[\w.]+")


def cast_type(text: bytes) -> bytes | None:
    """The type an argument is cast to as a whole (`static_cast<T>(x)`, `(T)x`), read lexically."""
    m = _STATIC_CAST.fullmatch(text)
    if m is not None and callargs.balanced_parens(m.group("rest")):
        return normal(m.group("type"))
    m = _C_CAST.fullmatch(text)
    return normal(m.group("type")) if m is not None else None


def _needs_cast(ctx: Context, call: Call, cast: Cast, returns: Mapping[bytes, bytes]) -> bool:
    a, b = call.args[cast.arg]
    if cast_type(ctx.source[a:b]) == cast.cast:
        return False  # already cast (a second run, or the user's own cast): also in macro bodies
    node = ctx.root.descendant_for_byte_range(a, b)
    while (
        node is not None
        and node.parent is not None
        and (node.start_byte, node.end_byte)
        == (
            node.parent.start_byte,
            node.parent.end_byte,
        )
    ):
        node = node.parent  # the outermost node of exactly this span (the expression, not a token)
    known = None
    if node is not None and (node.start_byte, node.end_byte) == (a, b) and node.type != "preproc_arg":
        known = expression_type(ctx.source, node, returns)
    if known == WARP_MASK:
        return False  # `__ffs(__ballot_sync(...))`: the warp-sync rule writes the count (__ffsll) for it
    if known is None:
        return cast.uniform
    return normal(known) in cast.types


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={80: cast_device_arguments},
    loads=(load_casts,),
    fixtures=("cxx/device_casts*",),
)
