"""Cooperative groups: features HIP lacks (HIP113), grid sync and cooperative launches (HIP114), tiles
of 64 threads (HIP116).
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import ABSENT_CG_FEATURES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, match_text, word_start
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

_CG_ALIAS = lazy(rb"namespace\s+(\w+)\s*=\s*(?:::)?cooperative_groups\s*;")
_THIS_GRID = lazy(rb"this_grid\s*\(\s*\)")
_GRID_VAR = lazy(rb"(\w+)\s*(?:=|\()\s*(?:\w+\s*::\s*)*\Z")  # text before this_grid()
_SYNC_CALL = lazy(rb"sync\s*\(")
_SYNC_RECEIVER = lazy(rb"(\w+|this_grid\s*\(\s*\))\s*\.\s*\Z")  # text before sync(
_SYNC_ARGUMENT = lazy(rb"\s*(\w+)\s*\)")
_TILE_SIZE = lazy(
    rb"\b(?:tiled_partition|thread_block_tile)\s*(?:<\s*(\d+)\s*[,>]|\((?:[^();]|\([^()]*\))*,\s*(\d+)[uU]?\s*\))"
)
# After `using namespace cooperative_groups;`: unqualified names only CG has, and reductions/scans whose
# operator is a CG functor (std::reduce & co. are qualified or take iterators and no cg functor).
_CG_UNQUALIFIED = lazy(
    rb"\b(?:(memcpy_async|wait_prior|labeled_partition|binary_partition|this_cluster|invoke_one_broadcast|"
    rb"invoke_one|cluster_group|block_tile_memory)\b"
    rb"|(reduce|inclusive_scan|exclusive_scan)\s*\((?=[^;]*\b(?:plus|less|greater|bit_and|bit_or|bit_xor)\s*<))"
)
_CUDA_COOP_LAUNCH = lazy(rb"cudaLaunchCooperativeKernel\b")
_COOP_LAUNCH = lazy(rb"\b(?:cuda|hip)LaunchCooperativeKernel\w*\b")


def _grid_variables(src: bytes) -> set[bytes]:
    """Names of variables holding this_grid(): `grid_group g = cg::this_grid();` / `auto g(this_grid())`."""
    names = set()
    for m in _THIS_GRID.finditer(src):
        var = _GRID_VAR.search(src, max(0, m.start() - 80), m.start())
        if var is not None:
            names.add(var.group(1))
    return names - {b"auto", b"return"}


def _grid_sync_start(src: bytes, m: re.Match[bytes], grids: set[bytes]) -> int | None:
    """Start of `g.sync(`, `this_grid().sync(` or `sync(g)` at the `sync(` match m, else None."""
    receiver = _SYNC_RECEIVER.search(src, max(0, m.start() - 60), m.start())
    if receiver is not None:
        name = receiver.group(1)
        return receiver.start() if name in grids or name.startswith(b"this_grid") else None
    argument = _SYNC_ARGUMENT.match(src, m.end())
    if word_start(src, m.start()) and argument is not None and argument.group(1) in grids:
        return m.start()
    return None


def cooperative_groups(ctx: Context, scan: Scan) -> RuleResult:
    src = ctx.source
    if b"cooperative_groups" not in src:
        return RuleResult()
    result = RuleResult()
    spaces = {b"cooperative_groups"} | {m.group(1) for m in _CG_ALIAS.finditer(src)}
    cg_use = compiled(rb"(?:" + b"|".join(sorted(spaces)) + rb")\s*::\s*(\w+)")
    for m in scan.code(
        cg_use, keep=lambda m: m.group(1) in ABSENT_CG_FEATURES and word_start(src, m.start())
    ):
        msg = f"cooperative_groups::{match_text(m, 1)} does not exist in HIP's cooperative groups (HIP 5.2)"
        result.diagnostics.append(ctx.diag("HIP113", m.start(1), m.end(1), msg))
    using = compiled(rb"using\s+namespace\s+(?:::)?(?:" + b"|".join(sorted(spaces)) + rb")\s*;")
    for m in scan.code(_CG_UNQUALIFIED) if using.search(src) else ():
        group = 1 if m.group(1) else 2
        if src[max(0, m.start() - 2) : m.start()] == b"::":
            continue  # qualified: reported above (cg::) or another namespace's (std::reduce)
        name = match_text(m, group)
        msg = f"cooperative_groups::{name} does not exist in HIP's cooperative groups (HIP 5.2)"
        result.diagnostics.append(ctx.diag("HIP113", m.start(group), m.end(group), msg))
    tile_lines: set[int] = set()
    tiles = b"tiled_partition" in src or b"thread_block_tile" in src
    # cg::tiled_partition is a scoped name: keep those matches (any_code)
    for m in scan.code(_TILE_SIZE, any_code=True) if tiles else ():
        group = 1 if m.group(1) else 2
        line = ctx.lines.line_col(m.start())[0]
        if line in tile_lines:
            continue  # `thread_block_tile<128> t = tiled_partition<128>(b)`: one finding
        tile_lines.add(line)
        size = int(m.group(group))
        if size > 64:
            msg = f"tile of {size} threads: HIP tiles may not exceed the wavefront (64 on CDNA, 32 on RDNA)"
            result.diagnostics.append(ctx.diag("HIP113", m.start(group), m.end(group), msg))
        elif size == 64:
            msg = "tile of 64 threads: valid only on wave64 GPUs (CDNA); RDNA GPUs have 32-lane wavefronts"
            result.diagnostics.append(ctx.diag("HIP116", m.start(group), m.end(group), msg))
    if not _COOP_LAUNCH.search(src):
        grids = _grid_variables(src)
        is_grid_sync = (lambda m: _grid_sync_start(src, m, grids) is not None) if grids else None
        for m in scan.code(_SYNC_CALL, keep=is_grid_sync, any_code=True) if b"this_grid" in src else ():
            start = _grid_sync_start(src, m, grids)
            msg = "grid-wide sync needs a cooperative launch (hipLaunchCooperativeKernel), not <<<>>>"
            result.diagnostics.append(ctx.diag("HIP114", start or m.start(), m.end(), msg))
    for m in scan.code(_CUDA_COOP_LAUNCH):
        msg = "cooperative launch: all blocks must be co-resident; check hipDeviceAttributeCooperativeLaunch"
        result.diagnostics.append(ctx.diag("HIP114", m.start(), m.end(), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((150, cooperative_groups, (b"cooperative_groups",)),),
    texts=(
        Rule(
            "HIP113",
            "cooperative-groups-missing",
            Severity.ERROR,
            "Cooperative-groups feature absent in HIP",
            "Implement it with shuffles/shared memory (e.g. a tile reduction with __shfl_down) or "
            "rocPRIM/hipCUB block primitives.",
            "HIP's cooperative groups (HIP 5.2) provide thread_block, grid_group, multi_grid_group, "
            "thread_block_tile, coalesced_group and tiled_partition, but not cg::reduce/scan, "
            "memcpy_async/wait, labeled/binary partitions or clusters.",
        ),
        Rule(
            "HIP114",
            "cooperative-launch",
            Severity.WARNING,
            "Grid-wide synchronisation needs a cooperative launch",
            "Launch with hipLaunchCooperativeKernel, size the grid with "
            "hipOccupancyMaxActiveBlocksPerMultiprocessor, and check hipDeviceAttributeCooperativeLaunch.",
            "grid_group::sync() only works when every block of the grid is resident at once, which requires "
            "hipLaunchCooperativeKernel (not hipLaunchKernelGGL) and a grid that fits the device.",
        ),
        Rule(
            "HIP116",
            "cg-tile-wavefront",
            Severity.WARNING,
            "Cooperative-groups tile of 64 threads depends on the wavefront size",
            "Use tiles of at most 32 threads for code that must also run on RDNA GPUs, or check warpSize at "
            "run time.",
            "HIP tiles (tiled_partition, thread_block_tile) may not be larger than the wavefront: 64 "
            "threads on CDNA (MI100-MI300) but 32 on RDNA (Radeon) GPUs, where a 64-thread tile fails to "
            "compile (static tiles) or misbehaves (dynamic tiles). Tiles above 64 fail everywhere (reported "
            "as HIP113).",
        ),
    ),
    fixtures=("detectors/cooperative_*",),
)
