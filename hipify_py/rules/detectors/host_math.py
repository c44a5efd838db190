"""CUDA math functions called from host code that HIP defines for the device only (HIP217).

CUDA declares `rsqrtf`, `sinpi`, `normcdf`, `erfcinv`, `rcbrt`... `__host__ __device__` (its
math_functions.hpp has host versions), so `float scale = rsqrtf(n);` in `main` compiles with nvcc;
HIP defines them for the device only and hipcc fails with `no matching function for call to 'rsqrtf'`.
The names come from scripts/probe_host_math.py (the same host calls compiled with nvcc and with hipcc),
mappings/hip-device-only-math-<version>.yaml. A call is reported only where it is surely host code: in
the body of a function with no `__device__`/`__global__`, no qualifier macro that could hide one, not in
a device lambda, and not a function of the file's own with that name.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from hipify_py.analysis.context import Context
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

PREFIX = "hip-device-only-math-"
# an ALL-CAPS word in a function's head may be a macro for __device__ (`#define DEV __device__`)
_MACRO_WORD = lazy(rb"\b[A-Z_][A-Z0-9_]{2,}\b")


@functools.lru_cache(maxsize=8)
def device_only_math(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, frozenset[bytes]]:
    """(probed HIP version, names) for the target or the nearest probed version."""
    if directory is None:
        return derived.load("hip-device-only-math", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> tuple[str, frozenset[bytes]]:
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return version, frozenset(str(n).encode() for n in data.get("device_only") or ())


def host_math_calls(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    version, names = device_only_math(ctx.options.hip_version)
    present = sorted(names & ctx.identifiers)
    if not present:
        return result
    src = ctx.source
    pattern = compiled(rb"(?<![\w$.>:])(" + b"|".join(present) + rb")(?=\s*\()")
    for m in scan.code(pattern):
        name = m.group(1)
        if scan.device.contains(m.start()) or not surely_host(ctx, m.start()) or _defined_here(src, name):
            continue
        msg = (
            f"`{name.decode()}` is a device function in HIP {version}: host code cannot call it (CUDA "
            "defines it for the host too)"
        )
        result.diagnostics.append(ctx.diag("HIP217", m.start(), m.end(), msg))
    return result


def surely_host(ctx: Context, offset: int) -> bool:
    node: Node | None = ctx.root.descendant_for_byte_range(offset, offset + 1)
    while node is not None and node.type != "function_definition":
        if node.type == "compound_statement" and _device_lambda_body(ctx.source, node.start_byte):
            return False
        node = node.parent
    if node is None:
        return False  # file scope or a macro body: where it runs is not known here
    body = node.child_by_field_name("body")
    head = ctx.source[node.start_byte : body.start_byte if body is not None else node.end_byte]
    return b"__device__" not in head and b"__global__" not in head and not _MACRO_WORD.search(head)


def _device_lambda_body(source: bytes, brace: int) -> bool:
    """The block opening at `brace` is the body of a `[...] __device__ (...)` lambda (the grammar does
    not always parse those as lambdas: look at the text between the previous statement and the brace)."""
    before = source[max(0, brace - 300) : brace]
    cut = max(before.rfind(b";"), before.rfind(b"{"), before.rfind(b"}"))
    return b"__device__" in before[cut + 1 :]


def _defined_here(source: bytes, name: bytes) -> bool:
    """The file defines a function of that name itself (a host helper of its own)."""
    return re.search(rb"\b" + re.escape(name) + rb"\s*\([^;{)]*\)\s*(?:const\s*)?\{", source) is not None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=(
        (120, host_math_calls, ()),  # a few set lookups: the names come from a per-version table
    ),
    texts=(
        Rule(
            "HIP217",
            "device-only-math-on-host",
            Severity.ERROR,
            "CUDA math function called from host code: HIP defines it for the device only",
            "Compute it with the C library on the host (`1.0f / sqrtf(x)` for rsqrtf(x), `sin(M_PI * x)` "
            "for sinpi(x)) or move the call into device code.",
            "CUDA declares its math API `__host__ __device__` and its math_functions.hpp has host versions "
            "of rsqrtf, sinpi, normcdf, erfcinv, rcbrt and others, so host code calls them freely. HIP "
            "defines them for the device only: `no matching function for call`. The names come from "
            "scripts/probe_host_math.py, which compiles the same host calls with nvcc and with hipcc "
            "(mappings/hip-device-only-math-<version>.yaml). Reported only in a function that surely runs "
            "on the host (no __device__, no qualifier macro, not a device lambda).",
        ),
    ),
    loads=(device_only_math,),
    fixtures=("detectors/host_math*",),
)
