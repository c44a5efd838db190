"""__launch_bounds__ with a minimum-blocks argument (HIP206): HIP reads it as warps per execution unit."""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, split_args
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_LAUNCH_BOUNDS = lazy(rb"__launch_bounds__\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


# Code written for AMD GPUs by hand (composable_kernel, ROCm-only kernels): its __launch_bounds__ already
# have HIP's meaning. (`#include <hip/...>` alone is no sign: translated files have it too.)
_AMD_NATIVE = lazy(rb'__builtin_amdgcn_|__AMDGCN_|__gfx\d|#[ \t]*include[ \t]*[<"]ck(?:_tile)?/')


def launch_bounds(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    if _AMD_NATIVE.search(ctx.source):
        return result
    for m in scan.code(_LAUNCH_BOUNDS):
        args = split_args(m.group(1))
        if len(args) >= 2 and args[1] not in (b"1", b"1u", b"1U"):  # 1 block / 1 wave: no change
            msg = (
                f"__launch_bounds__ second argument `{args[1].decode()}`: CUDA min blocks per SM; "
                "HIP reads it as min warps per execution unit"
            )
            result.diagnostics.append(ctx.diag("HIP206", m.start(), m.end(), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((170, launch_bounds, (b"__launch_bounds__",)),),
    texts=(
        Rule(
            "HIP206",
            "launch-bounds-min-blocks",
            Severity.WARNING,
            "__launch_bounds__ second argument has another meaning in HIP",
            "Drop the second argument or convert it: HIP expects min waves per EU (roughly minBlocks * "
            "blockSize / (warpSize * 4)).",
            "In CUDA the optional second argument is the minimum number of resident blocks per SM; HIP "
            "interprets it as MIN_WARPS_PER_EXECUTION_UNIT, so occupancy tuning changes. Files written for "
            "AMD by hand (amdgcn builtins, __gfx* guards, composable_kernel) are not reported.",
        ),
    ),
    fixtures=("detectors/launch_bounds*",),
)
