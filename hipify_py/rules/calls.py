"""Call adaptations: argument edits a call needs beyond its new name, driven by data tables.

- mappings/call-adaptations.yaml (generated from AMD HIPIFY's facts): casts (`hipFuncSetCacheConfig(
  reinterpret_cast<const void*>(kernel), ...)`), HIP_SYMBOL, added/removed/moved/replaced arguments
  (also the rocSPARSE/MIOpen argument lists with --roc), argument-count overloads (`cudaEventCreate(&e,
  flags)` -> hipEventCreateWithFlags).
- mappings/call-probes-<HIP version>.yaml (made by scripts/probe_calls.py from the installed CUDA and
  HIP headers): CUDA default arguments HIP lacks (`cudaStreamWaitEvent(s, e)` -> `..., 0)`), casts for
  CUDA's C++ template overloads HIP lacks (`cudaHostAlloc(&floatPtr, ...)`), and each function's CUDA
  argument counts: a HIPIFY fact written for the C API is not applied to a call with another count
  (a user's own function of that name, or a template overload).
- mappings/hand-kept/call-adaptations.yaml: changes for targets in a version range (`since`/`until`):
  hipRTC's `const char**` option and header lists before ROCm 7.2.

Edits go through hipify_py/analysis/callargs.py, so they work in code, macro bodies and error regions and
combine with the renames inside the arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hipify_py.analysis import callargs
from hipify_py.analysis.callargs import Call, CallFinder
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.declared import declared_type, holds_an_address
from hipify_py.data import derived
from hipify_py.data.mappings import generated_dir, hand_kept_dir, probed_dir
from hipify_py.data.renames import renames_for
from hipify_py.data.schema import Entry
from hipify_py.data.tables import CandidateFinder
from hipify_py.data.version_ranges import holds_for
from hipify_py.data.versions import compare_versions, parse_version
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

TABLE_FILE = "call-adaptations.yaml"
PROBES_GLOB = "call-probes-*.yaml"


class Change(NamedTuple):
    cuda: str
    target: str  # hip | roc | miopen
    op: str  # wrap | remove | insert_const | copy_argument | move_argument | replace_with_const |
    # compute_type
    arg: int
    with_: str = ""
    value: str = ""
    value_from: str = ""
    to: int = 0
    count: int = 1
    warn: str = ""
    arguments: int | None = None  # only for calls with this many arguments (probe facts)
    source: str = "hipify"  # hipify | probe | hand

    @staticmethod
    def from_row(row: Mapping[str, Any], source: str) -> Change:
        return Change(
            cuda=row["cuda"],
            target=row.get("target", "hip"),
            op=row["op"],
            arg=int(row["arg"]),
            with_=str(row.get("with", "")),
            value=str(row.get("value", "")),
            value_from=str(row.get("value_from", "")),
            to=int(row.get("to", 0)),
            count=int(row.get("count", 1)),
            warn=str(row.get("warn", "")),
            arguments=row.get("arguments"),
            source=source,
        )


class CallTable(NamedTuple):
    changes: Mapping[bytes, tuple[Change, ...]]
    overloads: Mapping[bytes, Mapping[int, bytes]]  # cuda name -> argument count -> hip name
    # cuda name -> (fewest, most) arguments any CUDA declaration accepts, and the C declaration's count
    arity: Mapping[bytes, tuple[int, int, int | None]]
    finder: CandidateFinder
    probes_version: str  # HIP version of the probe file used ("" = none)


def _read(path: Path) -> Any:
    import yaml  # why here: runs served by the translation cache never need it

    return yaml.load(path.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def probe_files(directory: Path) -> dict[str, Path]:
    """HIP version -> call-probes file."""
    return {p.name[len("call-probes-") : -len(".yaml")]: p for p in directory.glob(PROBES_GLOB)}


def _probe_file_for(directory: Path, target: str | None) -> tuple[str, Path | None]:
    """The probe facts of the newest HIP version not newer than the target (else the oldest one)."""
    files = probe_files(directory)
    if not files:
        return "", None
    versions = sorted(files, key=parse_version)
    chosen = versions[0]
    for version in versions:
        if not target or compare_versions(version, target) <= 0:
            chosen = version
    return chosen, files[chosen]


@functools.lru_cache(maxsize=8)
def load_call_table(hip_version: str | None = None, directory: Path | None = None) -> CallTable:
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("call-table", _build_call_table, hip_version)
    return _build_call_table(hip_version, directory)


def _build_call_table(hip_version: str | None, directory: Path | None = None) -> CallTable:
    # why one folder when given: a test's tables lie side by side; the shipped ones are sorted by kind
    generated, probed = (directory, directory) if directory else (generated_dir(), probed_dir())
    changes: dict[bytes, list[Change]] = {}
    overloads: dict[bytes, dict[int, bytes]] = {}
    arity: dict[bytes, tuple[int, int, int | None]] = {}
    data = _read(generated / TABLE_FILE) if (generated / TABLE_FILE).is_file() else {}
    for row in data.get("changes") or ():
        changes.setdefault(row["cuda"].encode(), []).append(Change.from_row(row, "hipify"))
    for row in data.get("overloads") or ():
        overloads.setdefault(row["cuda"].encode(), {})[int(row["arguments"])] = row["hip"].encode()
    version, path = _probe_file_for(probed, hip_version)
    if path is not None:
        probes = _read(path)
        for row in probes.get("changes") or ():
            changes.setdefault(row["cuda"].encode(), []).append(Change.from_row(row, "probe"))
        for row in probes.get("arity") or ():
            arity[row["cuda"].encode()] = (int(row["min"]), int(row["max"]), row.get("c"))
    hand = (directory or hand_kept_dir()) / TABLE_FILE
    for row in (_read(hand).get("changes") or ()) if hand.is_file() and hand.parent != generated else ():
        if hip_version is None or holds_for(row.get("since"), row.get("until"), hip_version):
            changes.setdefault(row["cuda"].encode(), []).append(Change.from_row(row, "hand"))
    names = frozenset(changes) | frozenset(overloads)
    return CallTable(
        {k: tuple(v) for k, v in changes.items()}, overloads, arity, CandidateFinder(names), version
    )


def written_target(entry: Entry, roc: bool) -> str | None:
    """Which table's facts hold for the name the identifier rule writes (None: not rewritten)."""
    if roc and entry.roc:
        return "miopen" if entry.family == "cudnn" else "roc"
    return "hip" if entry.hip else None


def adapt_calls(ctx: Context) -> RuleResult:
    result = RuleResult()
    table = load_call_table(ctx.options.hip_version)
    finder: CallFinder | None = None
    # why: a name the target renames (version-renames.yaml: cuMemcpy -> hipMemcpy) is HIP's call too
    renamed = renames_for(ctx.target).names if ctx.target else {}
    for m in table.finder.finditer(ctx.source, ctx.identifiers):
        name = m.group()
        entry = ctx.tables.names.get(name)
        target = written_target(entry, ctx.options.roc) if entry is not None else None
        if target is None and name in renamed and not ctx.options.roc:
            target = "hip"
        start, end = m.span()
        if target is None or ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        if ctx.options.version_policy == "keep" and _kept(ctx, entry):
            continue  # the CUDA name stays (HIP counterpart newer than the target): so do its arguments
        finder = finder or CallFinder(ctx.source, ctx.root)
        call = finder.at((start, end))
        if call is None:
            continue
        _adapt(ctx, table, name, target, call, result)
    return result


def _kept(ctx: Context, entry: Entry | None) -> bool:
    """The identifier rule leaves this name as is under --version-policy keep (same test as it uses)."""
    from hipify_py.rules.identifiers import _version_findings  # why: one definition of "too new"

    if entry is None:
        return True
    mappings = ctx.tables.mappings
    findings = _version_findings(
        entry, ctx.options, mappings.absent_in, mappings.present_in, mappings.removed_in
    )
    return any(rule_id == "HIP103" for rule_id, _ in findings)


def _applies(change: Change, target: str, call: Call, arity: tuple[int, int, int | None] | None) -> bool:
    count = len(call.args)
    if change.target != target:
        return False
    if change.arguments is not None:
        return change.arguments == count
    if arity is None:
        return True
    fewest, most, c_count = arity
    if not fewest <= count <= most:
        return False  # no CUDA declaration takes this many: a user's own function of that name
    if change.op == "insert_const" and c_count is not None and change.arg >= c_count:
        # appended past the C declaration's parameters: only for calls of the C declaration
        # (`cudaMallocHost(&p, n, flags)` is the template overload and already passes the flags)
        return count == c_count
    return True


def _adapt(ctx: Context, table: CallTable, name: bytes, target: str, call: Call, result: RuleResult) -> None:
    changes = [c for c in table.changes.get(name, ()) if _applies(c, target, call, table.arity.get(name))]
    edits: list[Edit] = []
    deleted: set[int] = set()
    count = len(call.args)
    for change in changes:
        needs = (
            change.arg
            if change.op in ("wrap", "remove", "replace_with_const", "copy_argument", "compute_type")
            else -1
        )
        if change.op == "move_argument":
            needs = change.arg + change.count - 1
        if needs >= count:
            result.diagnostics.append(
                ctx.diag(
                    "HIP122",
                    call.name[0],
                    call.name[1],
                    f"{name.decode()}: {_describe(change)} needs argument {needs + 1}, the call has {count}",
                )
            )
            return
        value = _value(change, ctx)
        if value is None:
            result.diagnostics.append(
                ctx.diag(
                    "HIP122",
                    call.name[0],
                    call.name[1],
                    f"{name.decode()}: {_describe(change)}: no target HIP version to compute the value from",
                )
            )
            return
        if change.op == "wrap":
            edits.extend(_wrap(ctx, call, change))
        elif change.op == "insert_const":
            edits.extend(callargs.insert(call, change.arg, value))
        elif change.op == "replace_with_const":
            edits.extend(callargs.replace(call, change.arg, value))
        elif change.op == "compute_type":
            edits.extend(_compute_type(ctx, call, change.arg))
        elif change.op == "remove":
            deleted.add(change.arg)
        elif change.op == "copy_argument":
            edits.extend(callargs.copy(call, change.arg, change.to))
        elif change.op == "move_argument":
            edits.extend(callargs.moved_copies(call, change.arg, change.to, change.count))
            deleted.update(range(change.arg, change.arg + change.count))
        if change.warn:
            lost = ctx.source[call.args[change.arg][0] : call.args[change.arg][1]].decode("utf-8", "replace")
            result.diagnostics.append(
                ctx.diag(
                    "HIP121", call.name[0], call.name[1], f"{name.decode()}: argument `{lost}` is dropped"
                )
            )
    if deleted:
        edits.extend(callargs.delete_many(call, deleted))
    overload = table.overloads.get(name, {}).get(count)
    if overload is not None:
        entry = ctx.tables.names[name]
        if entry.hip is None or overload != entry.hip.encode():
            edits.extend(callargs.rename(call, overload))
    if edits:
        result.edits.extend(edits)
        kind = "symbols" if all(c.with_ == "HIP_SYMBOL" for c in changes) and changes else "calls.adapted"
        result.counts[kind] += 1


_SYMBOL = b"HIP_SYMBOL"


def _wrap(ctx: Context, call: Call, change: Change) -> list[Edit]:
    source = ctx.source
    a, b = call.args[change.arg]
    text = source[a:b]
    wrapper = change.with_.encode()
    if text.startswith(wrapper) and text[len(wrapper) :].lstrip().startswith(b"("):
        return []  # already adapted (a second run, or code written for HIP)
    if wrapper == _SYMBOL and _address_variable(ctx, a, b):
        # HIP_SYMBOL(x) is `&x` on HIP's NVIDIA platform and undefined in C: a pointer that holds the
        # symbol's address (`const void* symbol` of a wrapper) is passed as it is, as to CUDA
        return []
    if wrapper == _SYMBOL:
        # why: HIP_SYMBOL is a macro; `A<int, 4>::x` would be two macro arguments without parentheses
        double = b"," in text
        return callargs.wrap(
            call, change.arg, b"HIP_SYMBOL((" if double else b"HIP_SYMBOL(", b"))" if double else b")"
        )
    if text in _NULL and wrapper.endswith((b"*)", b"*>")):
        return []  # a null pointer constant converts to the pointer type as it is
    cast = _CAST.match(text)
    found = None if cast is None else cast.group("type") or cast.group("type2")
    target = _CAST_TYPE.match(wrapper)
    if cast is not None and target is not None and _same_type(found, target.group("type")):
        return []  # a cast to that type (or to its non-const version) is already there
    return callargs.wrap(call, change.arg, wrapper + b"(")


# cuBLAS's C++ overloads for a pre-11 `cudaDataType computeType` (cublasMigrateComputeType in
# cublas_api.h): the data type of the accumulation to the compute type; math mode PEDANTIC aside
_DATA_TO_COMPUTE = {
    b"CUDA_R_16F": b"HIPBLAS_COMPUTE_16F",
    b"CUDA_R_32F": b"HIPBLAS_COMPUTE_32F",
    b"CUDA_C_32F": b"HIPBLAS_COMPUTE_32F",
    b"CUDA_R_64F": b"HIPBLAS_COMPUTE_64F",
    b"CUDA_C_64F": b"HIPBLAS_COMPUTE_64F",
    b"CUDA_R_32I": b"HIPBLAS_COMPUTE_32I",
    b"CUDA_C_32I": b"HIPBLAS_COMPUTE_32I",
}
_DATA_TYPES = frozenset((b"cudaDataType", b"cudaDataType_t", b"hipDataType"))


def _compute_type(ctx: Context, call: Call, index: int) -> list[Edit]:
    """A CUDA data type passed as a GEMM's compute type (CUDA 8-10 code, which CUDA 11+ still takes
    through a C++ overload) becomes the compute type that overload picks: an enumerator directly, a
    variable the file declares as cudaDataType_t through a conditional on its value. Anything else
    (a cublasComputeType_t, an expression) is left as written."""
    a, b = call.args[index]
    text = ctx.source[a:b].strip()
    if text in _DATA_TO_COMPUTE:
        return callargs.replace(call, index, _DATA_TO_COMPUTE[text])
    node = ctx.root.descendant_for_byte_range(a, b)
    while node is not None and node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None or node.type != "identifier" or declared_type(ctx.source, node) not in _DATA_TYPES:
        return []
    n = ctx.source[node.start_byte : node.end_byte]
    expr = (
        b"(%(n)s == HIP_R_64F || %(n)s == HIP_C_64F ? HIPBLAS_COMPUTE_64F : %(n)s == HIP_R_16F ? "
        b"HIPBLAS_COMPUTE_16F : %(n)s == HIP_R_32I || %(n)s == HIP_C_32I ? HIPBLAS_COMPUTE_32I : "
        b"HIPBLAS_COMPUTE_32F)"
    ) % {b"n": n}
    return callargs.replace(call, index, expr)


def _address_variable(ctx: Context, start: int, end: int) -> bool:
    node = ctx.root.descendant_for_byte_range(start, end)
    if node is None or node.type != "identifier" or (node.start_byte, node.end_byte) != (start, end):
        return False
    return holds_an_address(ctx.source, node)


_NULL = frozenset((b"0", b"NULL", b"nullptr", b"0L"))
_CAST = lazy(rb"\(\s*(?P<type>[\w\s*:]+?)\s*\)|(?:reinterpret|static)_cast\s*<(?P<type2>[^<>]+)>")
_CAST_TYPE = lazy(rb"\w+_cast\s*<(?P<type>[^<>]+)>\Z")


_CONST_OR_SPACE = lazy(rb"\bconst\b|\s+")


def _same_type(a: bytes | None, b: bytes) -> bool:
    def norm(t: bytes) -> bytes:
        return _CONST_OR_SPACE.sub(b"", t)

    return a is not None and norm(a) == norm(b)


def _value(change: Change, ctx: Context) -> bytes | None:
    if change.value_from == "hip_version_code":
        version = ctx.options.hip_version or ctx.tables.mappings.latest_hip_version
        if not version:
            return None
        major, minor = (*parse_version(version), 0, 0)[:2]
        return str(major * 100 + minor).encode()
    return change.value.encode()


def _describe(change: Change) -> str:
    what = {
        "wrap": f"wrap argument {change.arg + 1} in {change.with_}",
        "remove": f"remove argument {change.arg + 1}",
        "compute_type": f"turn a data type passed as argument {change.arg + 1} into a compute type",
        "insert_const": f"insert `{change.value or change.value_from}` as argument {change.arg + 1}",
        "replace_with_const": f"replace argument {change.arg + 1} by `{change.value}`",
        "copy_argument": f"copy argument {change.arg + 1} to position {change.to + 1}",
        "move_argument": f"move argument {change.arg + 1} to position {change.to + 1}",
    }
    return what.get(change.op, change.op)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={60: adapt_calls},
    texts=(
        Rule(
            "HIP121",
            "call-argument-dropped",
            Severity.WARNING,
            "HIP's counterpart of this call has no parameter for one of its arguments",
            "Check that the dropped argument's value is HIP's default behaviour; otherwise port the call by "
            "hand.",
            "The call was adapted to HIP's argument list (mappings/call-adaptations.yaml, from AMD HIPIFY), "
            "which drops an argument HIP has no parameter for; AMD's hipify-clang warns of the same loss.",
        ),
        Rule(
            "HIP122",
            "call-adaptation-impossible",
            Severity.ERROR,
            "Call needs an argument change that could not be made here",
            "Adapt the arguments by hand as the message says.",
            "The HIP (or --roc library) counterpart of this call takes other arguments than CUDA's, and the "
            "change could not be made: the call has fewer arguments than the change needs, or the value "
            "depends on a target HIP version that is unknown.",
        ),
    ),
    loads=(load_call_table,),
    fixtures=(
        "calls",
        "calls_roc",
        "symbols",
    ),
)
