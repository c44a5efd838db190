"""Lookup tables compiled from the mapping data for fast per-token use.

Mappings is the faithful data; Tables is what the rules consult: byte-keyed dictionaries and one
compiled pattern that finds every candidate token in a file in a single C-level scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from itertools import repeat
from typing import NamedTuple

from hipify_py.data.mappings import CUDA_AT, FAMILY_AT, HIP_AT, ROC_AT, Built, make_entry, pack, unpack
from hipify_py.data.renames import load_table as load_renames
from hipify_py.data.schema import Entry, Header, Mappings
from hipify_py.data.versions import compare_versions
from hipify_py.util.lazyre import lazy


class Tables(NamedTuple):
    mappings: Mappings
    names: Mapping[bytes, Entry]  # CUDA names that need attention (renamed or unsupported)
    headers: Mapping[bytes, Header]
    cuda_namespaces: Mapping[bytes, bytes]  # b"cub" -> b"hipcub", b"thrust" -> b"thrust" (kept)
    candidates: CandidateFinder  # finds every token that is in `names` or a renamed namespace
    # device intrinsics (renamed or not: __popc, __shfl_xor, atomicAdd...) that hipcc declares only in
    # hip_runtime.h, while nvcc includes cuda_runtime.h implicitly
    intrinsics: CandidateFinder
    # nested namespaces: last component -> ((parent, replacement), ...): b"cuda" -> ((b"thrust", b"hip"),)
    nested_namespaces: Mapping[bytes, tuple[tuple[bytes, bytes], ...]]
    # headers.yaml rows `dir/*`: (CUDA folder prefix, Header) for every header under a folder
    header_prefixes: tuple[tuple[bytes, Header], ...] = ()
    # guard macros of CUDA headers with no HIP counterpart (mappings/guards.yaml): undefined under hipcc
    unmapped_guards: frozenset[bytes] = frozenset()
    # every CUDA macro guards.yaml maps: a file naming none of them has no guard to rewrite
    guard_names: frozenset[bytes] = frozenset()
    # each CUDA name's start up to its second `_` (CU_TENSOR_ of CU_TENSOR_MAP_...): name families
    two_word_prefixes: frozenset[str] = frozenset()
    # include-order.yaml: HIP header -> the header it needs included before it (as bytes, like the edits)
    include_needs: tuple[tuple[bytes, bytes], ...] = ()

    def headers_at(self, target: str) -> frozenset[bytes]:
        """The CUDA headers whose HIP counterpart the target has (headers.yaml's hip_added)."""
        return frozenset(
            name
            for name, h in self.headers.items()
            if h.hip and (not h.hip_added or not target or compare_versions(target, h.hip_added) >= 0)
        )


def _needs_attention(record: tuple) -> bool:
    cuda, hip, roc = record[CUDA_AT], record[HIP_AT], record[ROC_AT]
    return hip is None or hip != cuda or (roc is not None and roc != cuda)


def _records(entries: Mapping[str, Entry]) -> dict[str, tuple[str, tuple]]:
    """CUDA name -> (packed record, field tuple), without making Entry objects from a Built mapping."""
    if isinstance(entries, Built):
        return {name: (packed, unpack(packed)) for name, packed in entries.packed().items()}
    return {name: (pack(t), t) for name, entry in entries.items() for t in [tuple(entry)]}


_WORD_BYTES = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"  # bytes patterns' \w
_RUNS_APART = bytes(c if c in _WORD_BYTES else 32 for c in range(256))  # translate(): others -> a space


def identifiers_of(source: bytes) -> frozenset[bytes]:
    r"""Every distinct identifier-like token (comments and strings included), collected in C.

    A superset test for whole-name patterns: each maximal run of word characters of the source contributes
    its part from the first letter or `_` on, so a name that stands alone in the source is in the set
    (what `[A-Za-z_]\w*`'s findall finds; the runs split apart by translate() come ~25% faster)."""
    found = set(map(bytes.lstrip, source.translate(_RUNS_APART).split(), repeat(b"0123456789")))
    found.discard(b"")  # a run of digits only: a number
    return frozenset(found)


class CandidateFinder(NamedTuple):
    """Finds every whole-identifier occurrence of a known CUDA name in a file.

    Scanning with a 10k-name (or even a few-hundred-prefix) alternation is slow in Python's regex
    engine. Instead: collect the file's distinct identifiers in C (findall + set), intersect with the
    known names, and scan once more only for the few names actually present.
    """

    keys: frozenset[bytes]

    def finditer(
        self, source: bytes, identifiers: AbstractSet[bytes] | None = None
    ) -> Iterator[re.Match[bytes]]:
        """`identifiers`: the file's distinct identifiers when the caller has them (Context.identifiers)."""
        present = self.keys.intersection(identifiers if identifiers is not None else identifiers_of(source))
        if not present:
            return iter(())
        if not all(_WORD_NAME.fullmatch(n) for n in present):  # not a table's name: the general way
            alternation = b"|".join(re.escape(n) for n in sorted(present, key=lambda n: (-len(n), n)))
            return re.compile(rb"(?<![\w$])(?:" + alternation + rb")(?![\w$])").finditer(source)
        # why not one alternation pattern: compiling it (in Python, a new one for nearly every file) cost
        # 4x this. A whole-word occurrence of a word name is exactly a maximal run of [\w$] equal to it.
        found = []
        for name in present:
            size, at = len(name), source.find(name)
            while at >= 0:
                end = at + size
                if (at == 0 or source[at - 1] not in _RUN_BYTES) and (
                    end == len(source) or source[end] not in _RUN_BYTES
                ):
                    found.append(_RUN.match(source, at))
                at = source.find(name, end)
        found.sort(key=_start)
        return iter(found)


_WORD_NAME = lazy(rb"[A-Za-z_]\w*")
_RUN = lazy(rb"[\w$]+")
_RUN_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _start(match: re.Match[bytes]) -> int:
    return match.start()


def word_matches(source: bytes, names: Iterable[bytes], pattern: re.Pattern[bytes]) -> list[re.Match[bytes]]:
    r"""What a per-file alternation `(?:name1|name2|...)` of word names finds, without compiling it
    (~0.1 ms in Python, and most files bring a new set of names): the static `pattern`'s matches at the
    occurrences of the names whose group 1 (a greedy word run, e.g. `(?<![\w$])([A-Za-z_]\w*)\s*\(` for
    `(?<![\w$])(name1|name2)\s*\(`) is the name, in source order. Exactly the alternation's matches when
    every name is a word: a match then spans its name's whole run, so no two overlap and the
    alternation's order does not matter."""
    found = []
    for name in names:
        at = source.find(name)
        while at >= 0:
            m = pattern.match(source, at)
            if m is not None and m.group(1) == name:
                found.append(m)
            at = source.find(name, at + 1)
    found.sort(key=_start)
    return found


def compile_tables(mappings: Mappings) -> Tables:
    by_cuda = _records(mappings.by_cuda)
    # why: an identity entry some target renames (CUB_MAX -> HIPCUB_MAX from ROCm 6.4) must be found too
    per_target = {row.cuda for row in load_renames()[0]}
    names = Built(
        {cuda.encode(): p for cuda, (p, r) in by_cuda.items() if _needs_attention(r) or cuda in per_target},
        make_entry,
    )
    # why: identity entries (thrust, cooperative_groups) are kept so `thrust::x` is known library code
    namespaces = {
        ns.cuda.encode(): ns.hip.encode() for ns in mappings.namespaces if ns.hip and "::" not in ns.cuda
    }
    nested: dict[bytes, list[tuple[bytes, bytes]]] = {}
    for ns in mappings.namespaces:
        if ns.hip and "::" in ns.cuda:
            parent, _, child = ns.cuda.rpartition("::")
            nested.setdefault(child.encode(), []).append(
                (parent.encode(), ns.hip.rpartition("::")[2].encode())
            )
    renamed = [n for n, hip in namespaces.items() if hip != n]
    pattern = CandidateFinder(frozenset([*names, *renamed, *nested]))
    headers = {h.cuda.encode(): h for h in mappings.headers.values() if not h.cuda.endswith("/*")}
    prefixes = tuple((h.cuda[:-1].encode(), h) for h in mappings.headers.values() if h.cuda.endswith("/*"))
    intrinsics = CandidateFinder(
        frozenset(
            cuda.encode()
            for cuda, (_, r) in by_cuda.items()
            if r[FAMILY_AT] == "device" and cuda.startswith(("__", "atomic"))
        )
    )
    unmapped = frozenset(
        name.encode() for name, rows in mappings.guards.items() if all(row.hip is None for row in rows)
    )
    return Tables(
        mappings,
        names,
        headers,
        namespaces,
        pattern,
        intrinsics,
        {k: tuple(v) for k, v in nested.items()},
        prefixes,
        unmapped,
        frozenset(name.encode() for name in mappings.guards),
        frozenset(_two_word_prefix(name) for name in mappings.by_cuda if name.count("_") >= 2),
        tuple((name.encode(), need.needs.encode()) for name, need in mappings.include_needs.items()),
    )


def _two_word_prefix(name: str) -> str:
    return name[: name.index("_", name.index("_") + 1) + 1]
