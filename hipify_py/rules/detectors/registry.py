"""The detector registry: every pitfall detector, in the order their findings are emitted.

A detector is `fn(ctx, scan) -> RuleResult` (reports only, no edits) in the module of its theme. To add
one, list it in STEPS with its needles: byte strings of which a file must contain one for the detector to
run (`bytes in` is ~50x faster than a regex scan that starts with \\b or an alternation); () = always.
"""

from __future__ import annotations

from collections.abc import Callable

from hipify_py.analysis.context import Context
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.rules import RuleFn, RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.detectors.cooperative_groups import cooperative_groups
from hipify_py.rules.detectors.cub_blocks import cub_warp_transpose
from hipify_py.rules.detectors.device_props import device_prop_fields
from hipify_py.rules.detectors.dynamic_parallelism import dynamic_parallelism
from hipify_py.rules.detectors.half_bf16 import half_bf16_casts
from hipify_py.rules.detectors.host_math import host_math_calls
from hipify_py.rules.detectors.inline_asm import inline_ptx
from hipify_py.rules.detectors.launch_bounds import launch_bounds
from hipify_py.rules.detectors.libraries import library_usage
from hipify_py.rules.detectors.memory import ldg_non_const, lds_limit, managed_memory
from hipify_py.rules.detectors.overloads import overload_gaps
from hipify_py.rules.detectors.textures import texture_references
from hipify_py.rules.detectors.unknown_names import unknown_cuda_names
from hipify_py.rules.detectors.vendor_libs import vendor_library_names
from hipify_py.rules.detectors.versions import runtime_version_compare, version_macros
from hipify_py.rules.detectors.warp import (
    sync_intrinsics,
    warp_masks,
    warp_size_as_constant,
    warp_size_constants,
    warp_size_literals,
)
from hipify_py.util.lazyre import lazy

Detector = Callable[[Context, Scan], RuleResult]


STEPS: tuple[tuple[Detector, tuple[bytes, ...]], ...] = (
    (managed_memory, (b"anaged", b"cudaMemAdvise", b"cudaMemPrefetch", b"AttachMem")),
    (version_macros, (b"_VERSION", b"__CUDA", b"__NVCC__")),
    (runtime_version_compare, (b"GetVersion",)),
    (warp_size_literals, (b"__global__", b"__device__")),
    (warp_size_constants, (b"ARP", b"arp")),
    (warp_size_as_constant, (b"warpSize",)),
    (warp_masks, (b"__shfl", b"__ballot", b"__activemask", b"_sync", b"__any", b"__all", b"__match")),
    (sync_intrinsics, (b"_sync", b"__activemask", b"__syncwarp")),
    (
        inline_ptx,
        (b"asm", b"__nanosleep", b"__prof_trigger", b"__pm", b"luster", b"__stwb", b"__stc", b"__stwt"),
    ),
    (overload_gaps, (b"__shfl", b"atomicAdd")),
    (half_bf16_casts, (b"bfloat16",)),
    (host_math_calls, ()),  # a few set lookups: the names come from a per-version table
    (texture_references, (b"texture", b"surface")),
    (dynamic_parallelism, (b"__global__", b"__device__")),
    (cooperative_groups, (b"cooperative_groups",)),
    (cub_warp_transpose, (b"WARP_TRANSPOSE",)),
    (launch_bounds, (b"__launch_bounds__",)),
    (ldg_non_const, (b"__ldg",)),
    (lds_limit, (b"__shared__", b"FuncSetAttribute")),
    (device_prop_fields, (b"cudaDeviceProp",)),
    (library_usage, (b"nvtx", b"npp", b"nvjpeg", b"cuFile", b"cutensor", b"cudnn")),
    (vendor_library_names, (b"nccl", b"NCCL_", b"nvtx", b"nvml")),
    (unknown_cuda_names, ()),
)


def pitfall_detectors(ctx: Context) -> RuleResult:
    """Every detector over one file, sharing one Scan (device spans, dead branches computed once)."""
    scan = Scan(ctx)
    result = RuleResult()
    words = ctx.identifier_text
    present = _present_words(words)
    present.update(n for n in _OTHER_NEEDLES if n in ctx.source)
    for step, needles in STEPS:
        if not needles or not present.isdisjoint(needles):
            result.diagnostics.extend(step(ctx, scan).diagnostics)
    return result


_ALL_NEEDLES = frozenset(n for _, needles in STEPS for n in needles)
# A needle of word characters starting with a letter or `_` is in the source iff it is in one of its
# identifiers (ctx.identifier_text: far fewer bytes to search); any other needle is searched in the source.
_WORD_NEEDLES = frozenset(n for n in _ALL_NEEDLES if IDENTIFIER.fullmatch(n))
_OTHER_NEEDLES = _ALL_NEEDLES - _WORD_NEEDLES


def _trie(needles: list[bytes]) -> bytes:
    """An alternation matching exactly `needles` (word characters: nothing to escape), factored by common
    prefixes (`__(?:all|any|...)`), longer needles first where one extends another (greedy `?`)."""
    rests: dict[bytes, list[bytes]] = {}
    for needle in needles:
        rests.setdefault(needle[:1], []).append(needle[1:])
    branches = []
    for first, tails in sorted(rests.items()):
        longer = [t for t in tails if t]
        sub = _trie(longer) if longer else b""
        sub = b"(?:" + sub + b")" if b"|" in sub else sub
        if sub and b"" in tails:
            sub = (sub if sub.startswith(b"(?:") else b"(?:" + sub + b")") + b"?"
        branches.append(first + sub)
    return b"|".join(branches)


_NEEDLE = lazy(_trie(sorted(_WORD_NEEDLES)))
# a needle and the needles it starts with: where the search reports it, those match at the same position
_STARTS = {n: frozenset(n[:k] for k in range(1, len(n) + 1) if n[:k] in _WORD_NEEDLES) for n in _WORD_NEEDLES}


def _present_words(words: bytes) -> set[bytes]:
    """`{n for n in _WORD_NEEDLES if n in words}` in one pass (7 against 16 us a 50-line file). Searching
    again one byte after each needle found visits every position where a needle starts, and at each the
    search reports the longest needle there: the others there are its prefixes."""
    present: set[bytes] = set()
    found = _NEEDLE.search(words)
    while found is not None:
        present |= _STARTS[found.group()]
        found = _NEEDLE.search(words, found.start() + 1)
    return present


DETECTORS: tuple[RuleFn, ...] = (pitfall_detectors,)
