"""cudaDeviceProp fields hipDeviceProp_t lacks (HIP115)."""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import HIP_DEVICE_PROP_FIELDS, PROP_RENAMES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_PROP_VAR = lazy(rb"cudaDeviceProp\s*[&*]?\s*(\w+)\s*[;,)=\[{]")


def device_prop_fields(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    variables = {m.group(1) for m in scan.code(_PROP_VAR)}
    if not variables:
        return result
    access = re.compile(rb"\b(" + b"|".join(re.escape(v) for v in variables) + rb")\s*(?:\.|->)\s*(\w+)")
    for m in scan.code(access):
        field_name = m.group(2)
        if field_name in HIP_DEVICE_PROP_FIELDS:
            continue
        renamed = PROP_RENAMES.get(field_name)
        hint = f"use `{renamed.decode()}`" if renamed else "query it with hipDeviceGetAttribute or drop it"
        msg = f"cudaDeviceProp::{field_name.decode()} does not exist in hipDeviceProp_t (HIP 5.2)"
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
            "hipDeviceProp_t (HIP 5.2) lacks several cudaDeviceProp fields (uuid, luid, asyncEngineCount, "
            "deviceOverlap, sharedMemPerBlockOptin, ...); some exist under another name.",
        ),
    ),
    fixtures=("detectors/device_prop*",),
)
