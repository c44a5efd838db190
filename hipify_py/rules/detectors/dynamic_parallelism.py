"""Kernel launches and cudaDeviceSynchronize from device code (HIP112): HIP has no dynamic parallelism."""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import DEFINE_LINE, Scan, logical_line
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_LAUNCH = lazy(rb"<<<")
_DEVICE_SYNC = lazy(rb"cudaDeviceSynchronize\b")


def dynamic_parallelism(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for m in scan.code(_LAUNCH, device_only=True):
        if DEFINE_LINE.match(src, logical_line(src, m.start())[0]):
            continue  # a launch in a macro body runs where the macro is expanded (host code, usually)
        if scan.device.contains(m.start()) and not scan.device.host_too(src, m.start()):
            msg = "kernel launch from device code (dynamic parallelism) is not supported by HIP"
            result.diagnostics.append(ctx.diag("HIP112", m.start(), m.end(), msg))
    for m in scan.code(_DEVICE_SYNC, device_only=True):
        # In __host__ __device__ functions the call is usually on a guarded host path: stay quiet.
        if scan.device.contains(m.start()) and not scan.device.host_too(src, m.start()):
            msg = "cudaDeviceSynchronize in device code (dynamic parallelism) is not supported by HIP"
            result.diagnostics.append(ctx.diag("HIP112", m.start(), m.end(), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((140, dynamic_parallelism, (b"__global__", b"__device__")),),
    texts=(
        Rule(
            "HIP112",
            "dynamic-parallelism",
            Severity.ERROR,
            "Kernel launch or device synchronisation from device code (dynamic parallelism)",
            "Move the child launch to the host (split the kernel) or flatten the recursion into a loop.",
            "CUDA dynamic parallelism (launching kernels from __global__/__device__ code, "
            "cudaDeviceSynchronize on the device) has no HIP counterpart on AMD GPUs.",
        ),
    ),
    fixtures=("detectors/dynamic_parallelism*",),
)
