"""cudaDeviceProp fields the target's hipDeviceProp_t lacks (HIP115).

Which fields each release's struct has is probed (scripts/probe_device_props.py ->
mappings/hip-device-props-<HIP version>.yaml): HIP 5.2 lacks `sharedMemPerBlockOptin`, ROCm 6 has it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from hipify_py.analysis.context import Context
from hipify_py.data import derived
from hipify_py.data.detector_data import PROP_RENAMES
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

PREFIX = "hip-device-props-"
_PROP_VAR = lazy(rb"cudaDeviceProp\s*[&*]?\s*(\w+)\s*[;,)=\[{]")


@functools.lru_cache(maxsize=8)
def hip_device_prop_fields(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, frozenset[bytes]]:
    """(probed HIP version, field names of its hipDeviceProp_t) for the target or the nearest probed one."""
    if directory is None:
        return derived.load("hip-device-props", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> tuple[str, frozenset[bytes]]:
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return version, frozenset(f.encode() for f in str(data.get("fields") or "").split())


def device_prop_fields(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    variables = {m.group(1) for m in scan.code(_PROP_VAR)}
    if not variables:
        return result
    version, fields = hip_device_prop_fields(ctx.options.hip_version)
    if not fields:
        return result
    access = re.compile(rb"\b(" + b"|".join(re.escape(v) for v in variables) + rb")\s*(?:\.|->)\s*(\w+)")
    for m in scan.code(access):
        field_name = m.group(2)
        if field_name in fields:
            continue
        renamed = PROP_RENAMES.get(field_name)
        hint = f"use `{renamed.decode()}`" if renamed and renamed in fields else None
        hint = hint or "query it with hipDeviceGetAttribute or drop it"
        msg = f"cudaDeviceProp::{field_name.decode()} does not exist in hipDeviceProp_t (HIP {version})"
        result.diagnostics.append(ctx.diag("HIP115", m.start(2), m.end(2), msg, f"{hint.capitalize()}."))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((200, device_prop_fields, (b"cudaDeviceProp",)),),
    texts=(
        Rule(
            "HIP115",
            "device-prop-field",
            Severity.ERROR,
            "cudaDeviceProp field absent in hipDeviceProp_t",
            "Use the HIP field named in the message, or hipDeviceGetAttribute.",
            "hipDeviceProp_t of HIP 5.2 lacks several cudaDeviceProp fields (uuid, luid, asyncEngineCount, "
            "deviceOverlap, sharedMemPerBlockOptin, ...); some exist under another name. ROCm 6's struct "
            "has CUDA 12's fields. Which fields the target has is probed per release "
            "(scripts/probe_device_props.py, mappings/probed/hip-device-props-<version>.yaml).",
        ),
    ),
    loads=(hip_device_prop_fields,),
    fixtures=("detectors/device_prop*", "detectors/*/device_prop*"),
)
