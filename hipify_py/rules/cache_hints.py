"""CUDA's cache-hint loads and stores where the target HIP lacks the overload: a helper that every HIP
compiles.

CUDA declares `T __ldcs(const T*)` (and __ldg, __ldcg, __ldca, __ldlu, __ldcv) and `void __stcs(T*, T)`
(and __stwb, __stcg, __stwt) for 34 types; HIP declares __ldg for most and the others for __half and
__half2 at most (mappings/cache-hint-overloads-<HIP version>.yaml, scripts/probe_cache_hints.py), so
`__ldcs(float4*)` fails to compile on ROCm. The cache operator is a hint: a plain load or store of T
has the same value semantics, which is what HIP's own overloads do.

A call keeps its name where the file states the argument's pointee type (analysis/declared.py) and
the target declares the overload for it. Any other call (a type the target lacks, a template
parameter, a member of a type the file does not define, a macro body's argument) calls
`hipify_py_<name>` instead, a function template inserted once per file before the declaration that
first uses it (HIP134), guarded like the shims (`HIPIFY_PY_SHIM_<helper>`): on HIP's NVIDIA platform
it calls CUDA's intrinsic, elsewhere it loads or stores. Only the called name changes, so nested
calls and calls in macro bodies need nothing else. The name used other than in a call (its address
taken) cannot be adapted: HIP139 (error), except __ldg, which HIP declares for nearly every type.
The facts (intrinsics, CUDA's types, the helper's code) are mappings/cache-hints.yaml.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.callargs import Call, CallFinder
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.declared import normal, pointee_type
from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir, probed_dir
from hipify_py.data.shim_table import GUARD_PREFIX
from hipify_py.data.tables import CandidateFinder
from hipify_py.data.version_ranges import read_table
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.rules.shims import _below_top_comments, _declares, _position

PREFIX = "cache-hint-overloads-"
TABLE_NAME = "cache-hints.yaml"
# the uses' findings the helper settles: "no HIP counterpart" (identifiers), "PTX-only" (detectors)
SETTLED_RULES = frozenset({"HIP101", "HIP204"})
# positive __HIPCC__ test: hipify-py leaves the branch alone on a second run (HIP code), and hipcc on
# the NVIDIA platform defines both (hip_common.h)
_NVIDIA = "#if defined(__HIPCC__) && defined(__HIP_PLATFORM_NVIDIA__)"


class TableError(ValueError):
    """A malformed mappings/cache-hints.yaml (a bug in the shipped data: tests load it)."""


class CacheHintTypes(NamedTuple):
    """mappings/cache-hints.yaml: what CUDA declares and the helper's code."""

    kinds: Mapping[str, str]  # intrinsic -> "load" | "store"
    types: tuple[str, ...]  # CUDA's spelling, in the guide's order
    hip_spelling: Mapping[str, str]  # CUDA type -> HIP's spelling, where it differs
    headers: Mapping[str, str]  # CUDA type -> the HIP header that declares it
    aliases: Mapping[str, str]  # another spelling (CUDA's typedef `half`) -> the CUDA type
    helper: str  # the helper's name, ${bare}: the intrinsic without its leading underscores
    code: Mapping[str, str]  # load, store, nvidia_load, nvidia_store
    source: str


@functools.lru_cache(maxsize=1)
def hint_table(path: Path | None = None) -> CacheHintTypes:
    if path is None:  # the shipped table: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("cache-hints", _build_hint_table)
    return _build_hint_table(path)


def _build_hint_table(path: Path | None = None) -> CacheHintTypes:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    kinds = {str(k): str(v) for k, v in (doc.get("intrinsics") or {}).items()}
    if not kinds or set(kinds.values()) - {"load", "store"}:
        raise TableError(f"{TABLE_NAME}: `intrinsics` maps each name to load or store")
    types: list[str] = []
    hip: dict[str, str] = {}
    headers: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for row in doc.get("types") or ():
        if not isinstance(row, dict):
            types.append(str(row))
            continue
        cuda = str(row["cuda"])
        types.append(cuda)
        if row.get("hip"):
            hip[cuda] = str(row["hip"])
        if row.get("header"):
            headers[cuda] = str(row["header"])
        aliases.update((str(a), cuda) for a in row.get("also") or ())
    code = {key: str(doc.get(key) or "") for key in ("load", "store", "nvidia_load", "nvidia_store")}
    source = sources.get(str(doc.get("source")))
    if not all(code.values()) or not doc.get("helper") or source is None:
        raise TableError(f"{TABLE_NAME}: needs helper, load, store, nvidia_load, nvidia_store and a source")
    return CacheHintTypes(kinds, tuple(types), hip, headers, aliases, str(doc["helper"]), code, source)


class Facts(NamedTuple):
    """What one HIP release declares (the probe table the target reads)."""

    version: str  # the probed release
    declared: Mapping[bytes, frozenset[bytes]]  # intrinsic -> types HIP declares it for (both spellings)
    lacks: Mapping[bytes, tuple[str, ...]]  # intrinsic -> CUDA's types it lacks (for messages)
    finder: CandidateFinder


@functools.lru_cache(maxsize=8)
def load_facts(hip_version: str | None = None, directory: Path | None = None) -> Facts:
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("cache-hint-overloads", _build_facts, hip_version)
    return _build_facts(hip_version, directory)


def _build_facts(hip_version: str | None, directory: Path | None = None) -> Facts:
    table = hint_table()
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    probed = data.get("declared") or {} if data else {}
    declared: dict[bytes, frozenset[bytes]] = {}
    lacks: dict[bytes, tuple[str, ...]] = {}
    for name in table.kinds:
        have = set(probed.get(name) or ())
        spellings = {t for t in have} | {table.hip_spelling[t] for t in have if t in table.hip_spelling}
        spellings |= {alias for alias, t in table.aliases.items() if t in have}
        declared[name.encode()] = frozenset(normal(t.encode()) for t in spellings)
        lacks[name.encode()] = tuple(t for t in table.types if t not in have)
    return Facts(version, declared, lacks, CandidateFinder(frozenset(declared)))


def adapt_cache_hints(ctx: Context) -> RuleResult:
    result = RuleResult()
    facts = load_facts(ctx.options.hip_version)
    matches = list(facts.finder.finditer(ctx.source, ctx.identifiers))
    if not matches:
        return result
    finder = CallFinder(ctx.source, ctx.root)
    dead = ctx.branches.dead
    uses: dict[bytes, list[tuple[int, int, bytes | None]]] = {}  # name -> (start, end, known type)
    defined: set[bytes] = set()
    loose: list[tuple[int, int]] = []
    for m in matches:
        start, end = m.span()
        name = m.group()
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        if any(a <= start < b for a, b in dead):
            continue
        if _declares(ctx, start, end):
            defined.add(name)
            continue
        call = finder.at((start, end))
        if call is None or not call.args:
            loose.append((start, end))
            continue
        known = _pointee(ctx, call)
        if known is not None and known in facts.declared[name]:
            continue  # the target declares this overload: the call stays
        uses.setdefault(name, []).append((start, end, known))
    table = hint_table()
    target = ctx.target or facts.version
    nl = newline_of(ctx.source)
    blocks: dict[int, list[bytes]] = {}
    for name, spans in sorted(uses.items(), key=lambda item: item[1][0][0]):
        if name in defined:
            continue  # the file's own __ldcs: its calls compile against it
        text = name.decode()
        helper = table.helper.replace("${bare}", text.lstrip("_"))
        for start, end, _ in spans:
            result.edits.append(Edit(start, end, helper.encode()))
            result.settled.append((start, end, SETTLED_RULES))
        result.counts["cache_hints"] += len(spans)
        guard = GUARD_PREFIX + helper
        if guard.encode() not in ctx.source:  # ours from an earlier run: the helper is there
            at = _below_top_comments(ctx, _position(ctx, spans[0][0]))
            why = _lacking(facts, text, target)
            blocks.setdefault(at, []).append(_helper_text(table, text, helper, why, nl))
            line = ctx.lines.line_col(at)[0]
            start, end, known = spans[0]
            what = f"on `{known.decode()}`" if known is not None else "on a type the file does not state"
            msg = (
                f"`{text}` {what}: {why}; the call goes to {helper}, "
                f"an equivalent inserted before line {line}"
            )
            result.diagnostics.append(ctx.diag("HIP134", start, end, msg))
    result.requests.extend(Insertion.helper(at, b"".join(texts)) for at, texts in blocks.items())
    for start, end in loose:
        name = ctx.source[start:end]
        if name in defined or len(facts.lacks[name]) < len(hint_table().types) / 2:
            continue  # __ldg: HIP declares nearly every type CUDA does, the one named most likely too
        text = name.decode()
        msg = f"`{text}` is not called here, so it cannot be adapted: {_lacking(facts, text, target)}"
        result.diagnostics.append(ctx.diag("HIP139", start, end, msg))
    return result


def _pointee(ctx: Context, call: Call) -> bytes | None:
    """The pointee type of the call's first argument, where the file states it (not in macro bodies)."""
    a, b = call.args[0]
    node: Node | None = ctx.root.descendant_for_byte_range(a, b)
    while node is not None and node.parent is not None and _span(node.parent) == (a, b):
        node = node.parent  # the outermost node of exactly this span (the expression, not a token)
    if node is None or _span(node) != (a, b) or node.type in ("preproc_arg", "ERROR"):
        return None
    known = pointee_type(ctx.source, node)
    if known is None:
        return None
    table = hint_table()
    return normal(table.aliases.get(known.decode(), known.decode()).encode())


def _span(node: Node) -> tuple[int, int]:
    return node.start_byte, node.end_byte


def _lacking(facts: Facts, name: str, target: str) -> str:
    """`HIP 6.4 declares __ldcs only for __half, __half2` (the short way round)."""
    lacks = facts.lacks[name.encode()]
    have = [t for t in hint_table().types if t not in lacks]
    if not have:
        return f"HIP {target} declares no {name}"
    if len(have) <= len(lacks):
        return f"HIP {target} declares {name} only for " + ", ".join(have)
    return f"HIP {target} declares {name} for each of CUDA's types but " + ", ".join(lacks)


def _helper_text(table: CacheHintTypes, name: str, helper: str, why: str, nl: bytes) -> bytes:
    kind = table.kinds[name]

    def code(key: str) -> str:
        return table.code[key].replace("${name}", name).replace("${helper}", helper)

    guard = GUARD_PREFIX + helper
    text = (
        f"// hipify-py: {why}: {helper} is a plain {kind} on AMD, CUDA's {name} on NVIDIA\n"
        f"#if !defined({guard})\n"
        f"#define {guard}\n"
        f"{_NVIDIA}\n"
        f"{code('nvidia_' + kind)}\n"
        "#else\n"
        f"{code(kind)}\n"
        "#endif\n"
        "#endif\n"
    )
    return text.replace("\n", nl.decode()).encode()


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={140: adapt_cache_hints},
    texts=(
        Rule(
            "HIP139",
            "cache-hint-not-called",
            Severity.ERROR,
            "Cache-hint load or store named other than in a call, for a target that lacks overloads of it",
            "Call it (`__ldcs(p)`: the translation then adapts each call) or write the plain load `*p` / "
            "store `*p = v`, which is what HIP's own overloads do.",
            "CUDA declares the cache-hint loads (__ldg, __ldcg, __ldca, __ldcs, __ldlu, __ldcv) and stores "
            "(__stwb, __stcg, __stcs, __stwt) for 34 types; HIP declares __ldg for most and the others for "
            "__half/__half2 at most (scripts/probe_cache_hints.py, "
            "mappings/cache-hint-overloads-<version>.yaml). A call whose type the target lacks, or whose "
            "type the file does not state, is sent to a helper template hipify-py inserts (HIP134: on AMD a "
            "plain load or store, on HIP's NVIDIA platform CUDA's intrinsic). A name that is not called "
            "(its address taken, passed as a function) cannot be sent there: the overload it picks may not "
            "exist on ROCm.",
        ),
    ),
    loads=(load_facts,),
    tables=(hint_table,),
    fixtures=("cache_hints",),
)
