"""Calls that take a memory location where older CUDA took a device (mappings/location-calls.yaml).

CUDA 13's `cudaMemPrefetchAsync(p, n, location, flags, stream)` and `cudaMemAdvise(p, n, advice,
location)` (CUDA 12.2's `*_v2`) take a `cudaMemLocation`. ROCm 7.2 has the same forms as
`hipMemPrefetchAsync_v2`/`hipMemAdvise_v2`: renamed. Older HIP has only the device-ordinal forms: the
location becomes the device it names (`id` of a device location, `hipCpuDeviceId` otherwise) and the
flags (which CUDA requires to be 0) are dropped. A call of the old CUDA form is left to the tables.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis import callargs
from hipify_py.analysis.callargs import Call
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.declared import declared_type
from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir
from hipify_py.data.version_ranges import holds_for, one_per_name, read_table
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

TABLE_NAME = "location-calls.yaml"
OPERATIONS = frozenset({"rename", "to-device"})
_LOCATION_TYPES = frozenset({b"cudaMemLocation", b"hipMemLocation", b"struct cudaMemLocation"})
_LITERAL = lazy(rb"(?:\{|(?:struct\s+)?(?:cuda|hip)MemLocation\s*[{(])")
# The device a location names, as an expression that also takes a braced list: HIP before 7.2 has no
# location forms of these calls, only the device-ordinal ones.
_DEVICE_OF = (
    b"[](hipMemLocation location) { return location.type == hipMemLocationTypeDevice ? location.id "
    b": hipCpuDeviceId; }("
)
# Findings the adaptation settles: the _v2 names are unsupported in the reference tables.
SETTLED_RULES = frozenset({"HIP101"})


class TableError(ValueError):
    """A malformed row in the table (a bug in the shipped data: tests load it)."""


class LocationCall(NamedTuple):
    cuda: str
    hip: str
    op: str
    location: int  # index of the cudaMemLocation argument
    source: str
    location_counts: frozenset[int] = frozenset()  # argument counts only the location form has
    drop: tuple[int, ...] = ()  # arguments to-device removes
    since: str | None = None
    until: str | None = None

    def holds_for(self, target: str) -> bool:
        return holds_for(self.since, self.until, target)


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[LocationCall, ...]:
    if path is None:  # the shipped table: built once per code stamp, no YAML import on later runs
        return derived.load("location-calls", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[LocationCall, ...]:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    rows = []
    for i, raw in enumerate(doc.get("calls") or ()):
        cuda, hip, op, source = raw.get("cuda"), raw.get("hip"), raw.get("op"), str(raw.get("source", ""))
        if not cuda or not hip or op not in OPERATIONS or source not in sources or "location" not in raw:
            raise TableError(f"{TABLE_NAME}: row {i + 1} needs cuda, hip, location, a known op and source")
        rows.append(
            LocationCall(
                str(cuda),
                str(hip),
                str(op),
                int(raw["location"]),
                sources[source],
                frozenset(int(n) for n in raw.get("location_counts") or ()),
                tuple(int(n) for n in raw.get("drop") or ()),
                raw.get("since") and str(raw["since"]),
                raw.get("until") and str(raw["until"]),
            )
        )
    return tuple(rows)


@functools.lru_cache(maxsize=16)
def rows_for(target: str) -> Mapping[bytes, LocationCall]:
    found = one_per_name(
        load_table(),
        target,
        lambda r: r.cuda,
        LocationCall.holds_for,
        lambda m: TableError(f"{TABLE_NAME}: {m}"),
    )
    return {k.encode(): v for k, v in found.items()}


def _takes_location(ctx: Context, row: LocationCall, call: Call) -> bool:
    """The CUDA 13 / *_v2 form: by name, by argument count, or by what the location argument is."""
    if row.cuda.endswith("_v2") or len(call.args) in row.location_counts:
        return True
    if len(call.args) <= row.location:
        return False
    text = call.text(ctx.source, row.location)
    if _LITERAL.match(text):
        return True
    if IDENTIFIER.fullmatch(text) is None:
        return False
    node = ctx.root.descendant_for_byte_range(*call.args[row.location])
    return (
        node is not None and node.type == "identifier" and declared_type(ctx.source, node) in _LOCATION_TYPES
    )


def adapt_location_calls(ctx: Context) -> RuleResult:
    result = RuleResult()
    target = ctx.target
    if not target:
        return result
    rows = rows_for(target)
    present = sorted(ctx.identifiers & rows.keys())
    if not present:
        return result
    finder = callargs.CallFinder(ctx.source, ctx.root)
    pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(present) + rb")(?=\s*\()")
    for m, where in ctx.code_matches(pattern):
        call = finder.at((m.start(1), m.end(1)))
        if where not in REWRITABLE or call is None:
            continue
        row = rows[m.group(1)]
        if not _takes_location(ctx, row, call) or len(call.args) <= row.location:
            continue
        result.edits.extend(callargs.rename(call, row.hip.encode()))
        if row.op == "to-device":
            result.edits.extend(callargs.wrap(call, row.location, _DEVICE_OF, b")"))
            for index in sorted(row.drop, reverse=True):
                if index < len(call.args):
                    result.edits.extend(callargs.delete(call, index))
        result.settled.append((call.name[0], call.close + 1, SETTLED_RULES))
        result.counts["version_adaptations"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={110: adapt_location_calls},
    tables=(load_table,),
    views=(rows_for,),
    fixtures=("calls/*/mem_locations",),
)
