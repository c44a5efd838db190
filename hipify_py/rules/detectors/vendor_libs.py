"""NCCL, NVTX and NVML names the target's RCCL, roctx or ROCm SMI lacks or spells otherwise (HIP141-142).

RCCL keeps the nccl* names, so NCCL code is left as is (its header becomes <rccl/rccl.h>); a name NCCL
added after the NCCL release the target's RCCL follows is reported (HIP141), from the probed table of the
target (mappings/vendor-libs-<version>.yaml) and the NCCL API table (nccl-api.yaml). roctx has ranges and
marks only: an NVTX name with no row in the mapping tables is reported (HIP141). An NVML name that is not
renamed (only exact counterparts are: extras.yaml) is reported with its ROCm SMI counterpart and the
conversion (nvml-rsmi.yaml, HIP142). Each name once per file, at its first use in compiled code.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.vendor_libs import Library, NvmlRow, load_facts
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, declared_here
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# The three APIs' identifiers: NCCL's functions/types/enumerators and NCCL_* macros; NVTX's C API
# families (ranges, marks, naming, domains, payloads, ... as in nvToolsExt*.h); NVML's functions and types.
_NAME = lazy(
    rb"\b(?:nccl[A-Z]\w*|NCCL_[A-Z0-9_]+"
    rb"|nvtx(?:Range|Mark|Name|Domain|Initialize|Event|Payload|Mem|Counter|Sync|Resource)\w*"
    rb"|nvml[A-Z]\w*)\b"
)


def vendor_library_names(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    facts = load_facts(ctx.options.hip_version)
    names = ctx.tables.names
    seen: set[bytes] = set()  # reported or declared by the file itself (a shim above its uses)

    def keep(m: re.Match[bytes]) -> bool:
        if m.group() in seen:
            return False
        if declared_here(ctx, m):
            seen.add(m.group())
            return False
        return True

    for m in scan.code(_NAME, keep=keep):
        name = m.group()
        seen.add(name)
        if names.get(name) is not None or _defined_as_macro(ctx.source, name):
            continue  # renamed, or reported from its own row (HIP101); or the file's own macro
        text = name.decode()
        if text.startswith(("nccl", "NCCL_")):
            message = _nccl(text, facts.nccl_added.get(text), facts.libraries.get("nccl"))
            rule = "HIP141"
        elif text.startswith("nvtx"):
            message = (
                f"`{text}`: roctx (roctracer/roctx.h) has ranges and marks only, no counterpart of this "
                "NVTX name: drop the call or keep it out of the AMD build (`#ifndef __HIP_PLATFORM_AMD__`)"
            )
            rule = "HIP141"
        else:
            message = _nvml(text, facts.nvml.get(text), facts.libraries.get("nvml"))
            rule = "HIP142"
        if message:
            result.diagnostics.append(ctx.diag(rule, m.start(), m.end(), message))
    return result


def _nccl(name: str, added: str | None, rccl: Library | None) -> str | None:
    """HIP141 for an NCCL name the target's probed RCCL lacks; None when it has it or was not probed."""
    if added is None or rccl is None or not rccl.installed or name not in rccl.lacks:
        return None
    major, _, minor = added.partition(".")
    follows = f" (it follows NCCL {rccl.version})" if rccl.version else ""
    return (
        f"`{name}` (NCCL >= {added}) is not in ROCm {rccl.release}'s RCCL{follows}, {rccl.package}: "
        f"guard it with `#if NCCL_VERSION_CODE >= NCCL_VERSION({major}, {minor}, 0)` and give the AMD build "
        "another way"
    )


def _nvml(name: str, row: NvmlRow | None, smi: Library | None) -> str:
    """HIP142: the ROCm SMI counterpart the target declares (the first of the row's) and what differs."""
    if row is None:
        return (
            f"`{name}` has no ROCm SMI counterpart in mappings/nvml-rsmi.yaml: port it by hand to "
            "rocm_smi/rocm_smi.h (rsmi_*, device index instead of handle) or amd_smi"
        )
    lacks = smi.lacks if smi is not None and smi.installed else frozenset()
    present = [n for n in row.rsmi if n not in lacks]
    if not present:
        return f"`{name}` (no ROCm SMI counterpart): {row.differs}"
    return f"`{name}` -> {present[0]}: {row.differs}"


def _defined_as_macro(source: bytes, name: bytes) -> bool:
    """The file defines the name itself (`#define nvtxRangePushA(x)` in a no-NVTX build branch)."""
    return re.search(rb"#[ \t]*define[ \t]+" + re.escape(name) + rb"\b", source) is not None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((220, vendor_library_names, (b"nccl", b"NCCL_", b"nvtx", b"nvml")),),
    texts=(
        Rule(
            "HIP141",
            "library-name-missing",
            Severity.ERROR,
            "The target's RCCL or roctx lacks this NCCL/NVTX name",
            "RCCL: guard the use with `#if NCCL_VERSION_CODE >= NCCL_VERSION(x, y, 0)` (RCCL defines the "
            "NCCL version it follows) and give the AMD build another way; roctx: use the ranges and marks "
            "roctx has (roctxRangePushA/roctxRangePop/roctxMarkA), or drop the call.",
            "RCCL implements the NCCL API of some NCCL release under the same names; a name NCCL added "
            "later (mappings/nccl-api.yaml says when) is undeclared there, and the build fails. Which names "
            "each release's RCCL declares is probed from its header (scripts/probe_vendor_libs.py). roctx "
            "has ranges and marks only: NVTX names beyond those (domains, resource naming, payloads, NVTX_* "
            "macros, nvtxNameCuda*) have no counterpart. Names with their own row in the mapping tables are "
            "reported there (HIP101) instead.",
        ),
        Rule(
            "HIP142",
            "nvml-port",
            Severity.ERROR,
            "NVML call whose ROCm SMI counterpart differs in arguments, units or meaning",
            "Port the call to the ROCm SMI function the message names, converting as it says (microwatts, "
            "millidegrees, Hz, the device index instead of a handle).",
            "nvml.h becomes <rocm_smi/rocm_smi.h> (link -lrocm_smi64). Where a ROCm SMI function is the "
            "exact counterpart (nvmlShutdown -> rsmi_shut_down, nvmlDeviceGetCount -> "
            "rsmi_num_monitor_devices) the name is renamed; every other NVML name is reported here with its "
            "counterpart and the conversion (mappings/nvml-rsmi.yaml): ROCm SMI takes a device index, not "
            "an nvmlDevice_t, and reports power in microwatts, temperatures in millidegrees, clocks in Hz. "
            "NVML names without a row are reported too, without a counterpart.",
        ),
    ),
    fixtures=("vendor_libs",),
)
