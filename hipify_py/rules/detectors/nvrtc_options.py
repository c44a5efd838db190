"""NVRTC options naming an NVIDIA architecture, which hipRTC cannot compile for (HIP226).

nvrtcCompileProgram becomes hiprtcCompileProgram, and the option strings stay as written (nothing inside a
string is touched). hipRTC takes `--gpu-architecture=` too, but for AMD targets (`gfx90a`; with no such
option, the current device's): `--gpu-architecture=sm_90`, `-arch=compute_80` make the compile fail at run
time. Reported at the string, in files that call nvrtcCompileProgram.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context, Where
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# `--gpu-architecture=sm_90`, `-arch=compute_80`, `-arch sm_%d%d` (a format the program fills in)
_ARCH = lazy(rb"(?:--gpu-architecture|-arch)(?:=|\s+)(?:sm|compute|lto)_(?:\d|%)")


def nvrtc_architecture_options(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    if b"nvrtcCompileProgram" not in ctx.source:
        return result
    for m in _ARCH.finditer(ctx.source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(), m.end()) != Where.STRING:
            continue
        message = (
            f"NVRTC option `{m.group().decode(errors='replace')}...` names an NVIDIA architecture: hipRTC "
            "compiles for AMD GPUs and fails at run time on it"
        )
        result.diagnostics.append(ctx.diag("HIP226", m.start(), m.end(), message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((235, nvrtc_architecture_options, (b"nvrtc",)),),
    texts=(
        Rule(
            "HIP226",
            "nvrtc-arch-option",
            Severity.WARNING,
            "An NVRTC option names an NVIDIA architecture (sm_XY, compute_XY)",
            "Pass `--gpu-architecture=` with the AMD target (hipDeviceProp_t::gcnArchName, e.g. gfx90a) "
            "or no architecture option (hipRTC then compiles for the current device).",
            "The call becomes hiprtcCompileProgram and its option strings stay as written. hipRTC takes "
            "`--gpu-architecture=` for AMD targets only, so an sm_/compute_ value makes the run-time compile "
            "fail (HIPRTC_ERROR_INVALID_OPTION or a compile error) where the CUDA program compiled.",
        ),
    ),
    fixtures=("detectors/nvrtc_arch_option*",),
)
