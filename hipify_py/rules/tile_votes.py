"""A tile's votes for HIP before 7.0: `tile.ballot(p)` -> `hipify_py_tile_ballot(tile, p)` (HIP169).

CUDA's `thread_block_tile` has `ballot`, `any` and `all`. HIP 5.2 has none of them, and HIP 6.x declares
them only under HIP_ENABLE_WARP_SYNC_BUILTINS, which must come before the translation unit's first HIP
header (a project header cannot ensure that); ROCm 7.0 has them by default (probed: HIP 5.2 and ROCm 6.4
fail "no member named 'ballot'", 7.2 compiles). For a target before 7.0, those calls on a group the file
makes with `tiled_partition<N>(...)` or declares as a `thread_block_tile` go through helpers: the tile's
bits of the mask-free `__ballot` (lane `__lane_id()`, the tile's lanes contiguous from a multiple of its
size, as HIP's own tiles are laid out), bit i for the tile's rank i, as CUDA's; `any`/`all` compare them.
On HIP's NVIDIA platform and from ROCm 7.0 the helpers call the tile's own members.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.includes import after_last_include
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

_VOTE = lazy(rb"(?<![\w$])([A-Za-z_]\w*)[ \t]*\.[ \t]*(ballot|any|all)[ \t]*\(")
GUARD = b"HIPIFY_PY_SHIM_tile_votes"
HELPERS = rb"""// hipify-py: thread_block_tile's votes, which HIP declares by default from 7.0 on:
#if !defined(HIPIFY_PY_SHIM_tile_votes) && !defined(__HIP_PLATFORM_NVIDIA__) && \
    (!defined(HIP_VERSION_MAJOR) || HIP_VERSION_MAJOR < 7)
#define HIPIFY_PY_SHIM_tile_votes
template <class G> __device__ inline unsigned long long hipify_py_tile_ballot(const G& g, int pred) {
  const unsigned int n = g.size();
  const unsigned long long votes = __ballot(pred);
  return n >= 64 ? votes : (votes >> ((__lane_id() / n) * n)) & ((1ull << n) - 1);
}
template <class G> __device__ inline int hipify_py_tile_any(const G& g, int pred) {
  return hipify_py_tile_ballot(g, pred) != 0;
}
template <class G> __device__ inline int hipify_py_tile_all(const G& g, int pred) {
  const unsigned int n = g.size();
  return hipify_py_tile_ballot(g, pred) == (n >= 64 ? ~0ull : (1ull << n) - 1);
}
#elif !defined(HIPIFY_PY_SHIM_tile_votes)
#define HIPIFY_PY_SHIM_tile_votes
template <class G> __device__ inline unsigned long long hipify_py_tile_ballot(const G& g, int pred) {
  return g.ballot(pred);
}
template <class G> __device__ inline int hipify_py_tile_any(const G& g, int pred) { return g.any(pred); }
template <class G> __device__ inline int hipify_py_tile_all(const G& g, int pred) { return g.all(pred); }
#endif
"""


def rewrite_tile_votes(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    target = ctx.target
    if not target or compare_versions(target, "7.0") >= 0 or b"tile" not in source:
        return result
    if b".ballot" not in source and b".any" not in source and b".all" not in source:
        return result
    first = None
    tiles: dict[bytes, bool] = {}
    for m in _VOTE.finditer(source):
        name = m.group(1)
        if ctx.is_protected(m.start()) or ctx.classify(m.start(2), m.end(2)) != Where.MEMBER:
            continue
        if name not in tiles:
            tiles[name] = _is_tile(source, name)
        if not tiles[name]:
            continue
        op = m.group(2)
        dot = source.index(b".", m.end(1))
        result.edits.append(Edit(m.start(1), m.start(1), b"hipify_py_tile_" + op + b"("))
        result.edits.append(Edit(dot, m.end(), b", "))
        message = f"`{op.decode()}` of a thread_block_tile, which HIP {target} declares only with "
        message += f"HIP_ENABLE_WARP_SYNC_BUILTINS: written as hipify_py_tile_{op.decode()}"
        result.diagnostics.append(ctx.diag("HIP169", m.start(2), m.end(2), message))
        result.counts["tile_votes"] += 1
        first = m.start() if first is None else first
    if first is not None and GUARD not in source:
        at, lead = after_last_include(ctx, first)
        nl = newline_of(source)
        result.requests.append(Insertion.helper(at, lead + HELPERS.replace(b"\n", nl)))
    return result


def _is_tile(source: bytes, name: bytes) -> bool:
    """The file makes `name` with tiled_partition<N>(...) or declares it as a thread_block_tile<...>."""
    word = re.escape(name)
    made = compiled(rb"(?<![\w$])" + word + rb"[ \t]*=[ \t]*(?:[\w:]+::)?tiled_partition[ \t]*<")
    declared = compiled(rb"thread_block_tile[ \t]*<[^;(){}]*>[ \t]*(?:const[ \t]*)?&?[ \t]*" + word + rb"\b")
    return made.search(source) is not None or declared.search(source) is not None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={153: rewrite_tile_votes},
    texts=(
        Rule(
            "HIP169",
            "tile-votes-helper",
            Severity.INFO,
            "A thread_block_tile vote HIP before 7.0 lacks by default: it goes through a helper",
            "Nothing to do; the helper calls the tile's own member on HIP's NVIDIA platform and from ROCm "
            "7.0 on.",
            "CUDA's thread_block_tile has ballot, any and all. HIP 5.2 has none, and HIP 6.x declares them "
            "only under HIP_ENABLE_WARP_SYNC_BUILTINS, which must precede the translation unit's first HIP "
            "header (probed: 5.2 and 6.4 fail with \"no member named 'ballot'\", 7.2 compiles). For a "
            "target before 7.0, those calls on a tile the file makes with tiled_partition<N>(...) or "
            "declares as a thread_block_tile become hipify_py_tile_ballot(tile, p) (and _any, _all): the "
            "tile's bits of the mask-free __ballot, bit i for the tile's rank i as in CUDA (HIP's tiles are "
            "contiguous lanes from a multiple of their size), and any/all over them.",
        ),
    ),
    fixtures=("cxx/tile_votes*",),
)
