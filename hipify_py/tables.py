"""Lookup tables compiled from the mapping data for fast per-token use.

Mappings is the faithful data; Tables is what the rules consult: byte-keyed dictionaries and one
compiled pattern that finds every candidate token in a file in a single C-level scan.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from hipify_py.mappings import Entry, Header, Mappings


@dataclass(frozen=True)
class Tables:
    mappings: Mappings
    names: Mapping[bytes, Entry]  # CUDA names that need attention (renamed or unsupported)
    headers: Mapping[bytes, Header]
    cuda_namespaces: Mapping[bytes, bytes]  # b"cub" -> b"hipcub", b"thrust" -> b"thrust" (kept)
    candidates: re.Pattern[bytes]  # finds every token that may be in `names` or a namespace


def _needs_attention(entry: Entry) -> bool:
    return entry.hip is None or entry.hip != entry.cuda or (entry.roc is not None and entry.roc != entry.cuda)


def _prefix_pattern(names: list[str]) -> re.Pattern[bytes]:
    """One pattern matching whole identifiers that start with any CUDA-name prefix.

    Python's regex engine does not build a trie from a large alternation, so instead of 10k literal
    alternatives we use a few hundred short prefixes and confirm each hit with a dict lookup.
    """
    prefixes = sorted({n[:4] if n.startswith("__") else n[:3] for n in names}, key=lambda p: (-len(p), p))
    alternation = "|".join(re.escape(p) for p in prefixes)
    return re.compile(rf"(?<![\w$])(?:{alternation})\w*".encode())


def compile_tables(mappings: Mappings) -> Tables:
    names = {e.cuda.encode(): e for e in mappings.by_cuda.values() if _needs_attention(e)}
    # why: identity entries (thrust, cooperative_groups) are kept so `thrust::x` is known library code
    namespaces = {ns.cuda.encode(): ns.hip.encode() for ns in mappings.namespaces if ns.hip}
    renamed = [n.decode() for n, hip in namespaces.items() if hip != n]
    pattern = _prefix_pattern([n.decode() for n in names] + renamed)
    headers = {h.cuda.encode(): h for h in mappings.headers.values()}
    return Tables(mappings, names, headers, namespaces, pattern)
