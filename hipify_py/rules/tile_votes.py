"""A tile's votes for HIP before 7.0: `tile.ballot(p)` -> `hipify_py_tile_ballot(tile, p)` (HIP169).

CUDA's `thread_block_tile` has `ballot`, `any` and `all`. HIP 5.2 has none of them, and HIP 6.x declares
them only under HIP_ENABLE_WARP_SYNC_BUILTINS, which must come before the translation unit's first HIP
header (a project header cannot ensure that); ROCm 7.0 has them by default (probed: HIP 5.2 and ROCm 6.4
fail "no member named 'ballot'", 7.2 compiles). For a target before 7.0, those calls on a group the file
makes with `tiled_partition<N>(...)` or declares as a `thread_block_tile`, or on one whose declared type is
a template parameter and which the file uses as a group (`tile_.thread_rank()`, `.sync()`, `.shfl`), go
through helpers. For a `thread_block_tile<N>` they take the tile's bits of the mask-free `__ballot` (lane
`__lane_id()`, the tile's lanes contiguous from a multiple of N, as HIP's own tiles are laid out), bit i for
the tile's rank i, as CUDA's; `any`/`all` compare them. Any other group type (a coalesced group reaching
the same template) gets its own member, by overload: so do all groups on HIP's NVIDIA platform and from
ROCm 7.0.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.includes import helper_blocks
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

_VOTE = lazy(rb"(?<![\w$])([A-Za-z_]\w*)[ \t]*\.[ \t]*(ballot|any|all)[ \t]*\(")
GUARD = b"HIPIFY_PY_SHIM_tile_votes"
HELPERS = rb"""// hipify-py: thread_block_tile's votes, which HIP declares by default from 7.0 on:
#if !defined(HIPIFY_PY_SHIM_tile_votes)
#define HIPIFY_PY_SHIM_tile_votes
#if !defined(__HIP_PLATFORM_NVIDIA__) && (!defined(HIP_VERSION_MAJOR) || HIP_VERSION_MAJOR < 7)
namespace cooperative_groups {
template <unsigned int size, class ParentCGTy> class thread_block_tile;
}
template <unsigned int N, class P, class T>
__device__ inline unsigned long long hipify_py_tile_ballot(
    const cooperative_groups::thread_block_tile<N, P>& g, const T& pred) {
  const unsigned long long votes = __ballot(pred ? 1 : 0);
  return N >= 64 ? votes : (votes >> ((__lane_id() / N) * N)) & ((1ull << (N % 64)) - 1);
}
template <unsigned int N, class P, class T>
__device__ inline int hipify_py_tile_any(
    const cooperative_groups::thread_block_tile<N, P>& g, const T& pred) {
  return hipify_py_tile_ballot(g, pred) != 0;
}
template <unsigned int N, class P, class T>
__device__ inline int hipify_py_tile_all(
    const cooperative_groups::thread_block_tile<N, P>& g, const T& pred) {
  return hipify_py_tile_ballot(g, pred) == (N >= 64 ? ~0ull : (1ull << (N % 64)) - 1);
}
#endif
// any other group, every group where HIP declares the members: the group's own
template <class G, class T>
__host__ __device__ inline auto hipify_py_tile_ballot(const G& g, const T& pred) -> decltype(g.ballot(pred)) {
  return g.ballot(pred);
}
template <class G, class T>
__host__ __device__ inline auto hipify_py_tile_any(const G& g, const T& pred) -> decltype(g.any(pred)) {
  return g.any(pred);
}
template <class G, class T>
__host__ __device__ inline auto hipify_py_tile_all(const G& g, const T& pred) -> decltype(g.all(pred)) {
  return g.all(pred);
}
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
    ours = helper_blocks(source)
    for m in _VOTE.finditer(source):
        name = m.group(1)
        if any(a <= m.start() < b for a, b in ours):
            continue  # the helpers' own calls of a group's members
        if ctx.is_protected(m.start()) or ctx.classify(m.start(2), m.end(2)) != Where.MEMBER:
            continue
        if name not in tiles:
            tiles[name] = _is_tile(source, name) or _is_dependent_group(source, name)
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
        result.requests.append(Insertion.helper_before(ctx, first, HELPERS))
    return result


def _is_tile(source: bytes, name: bytes) -> bool:
    """The file makes `name` with tiled_partition<N>(...) or declares it as a thread_block_tile<...>."""
    word = re.escape(name)
    made = compiled(rb"(?<![\w$])" + word + rb"[ \t]*=[ \t]*(?:[\w:]+::)?tiled_partition[ \t]*<")
    declared = compiled(rb"thread_block_tile[ \t]*<[^;(){}]*>[ \t]*(?:const[ \t]*)?&?[ \t]*" + word + rb"\b")
    return made.search(source) is not None or declared.search(source) is not None


_TEMPLATE_HEAD = lazy(rb"\btemplate[ \t]*<")
_TYPE_PARAMETER = lazy(rb"\b(?:typename|class)[ \t]*(?:\.\.\.)?[ \t]*([A-Za-z_]\w*)")
# what a group does beside voting: a receiver that does one of these is used as a group
_GROUP_USE = rb"[ \t]*\.[ \t]*(?:ballot|thread_rank|meta_group_rank|shfl\w*|sync)[ \t]*\("


def _type_parameters(source: bytes) -> frozenset[bytes]:
    """The names of the type parameters of the file's templates."""
    names = set()
    for m in _TEMPLATE_HEAD.finditer(source):
        depth, at = 1, m.end()
        while depth and at < len(source):  # to the `>` closing the parameter list
            depth += {60: 1, 62: -1}.get(source[at], 0)
            at += 1
        names.update(t.group(1) for t in _TYPE_PARAMETER.finditer(source, m.end(), at))
    return frozenset(names)


def _is_dependent_group(source: bytes, name: bytes) -> bool:
    """`name` is declared with a template parameter of the file as its type (`const tile_type& tile_`)
    and used as a group: a tile that reaches a template (BGHT's buckets). The helpers' fallback calls
    the member of any other group type, so only a thread_block_tile is served differently."""
    word = re.escape(name)
    if compiled(rb"(?<![\w$.>])" + word + _GROUP_USE).search(source) is None:
        return False
    declared = compiled(
        rb"(?<![\w$:])([A-Za-z_]\w*)[ \t]*(?:const[ \t]*)?&?[ \t]*(?:const[ \t]*)?" + word + rb"[ \t]*[;,)={]"
    )
    types = {m.group(1) for m in declared.finditer(source)} - {b"return", b"const"}
    return bool(types) and bool(types & _type_parameters(source))


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
            "declares as a thread_block_tile, or on a group whose declared type is a template parameter, "
            "become hipify_py_tile_ballot(tile, p) (and _any, _all). For a thread_block_tile those take the "
            "tile's bits of the mask-free __ballot, bit i for the tile's rank i as in CUDA (HIP's tiles are "
            "contiguous lanes from a multiple of their size), and any/all over them; any other group type "
            "gets its own member.",
        ),
    ),
    fixtures=("cxx/tile_votes*",),
)
