"""NVIDIA libraries without a HIP package (HIP110): nvtx, npp, nvjpeg, cuFile, cutensor, cudnn..."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import LIBRARIES_WITHOUT_HIP, LIBRARY_HEADERS
from hipify_py.data.schema import Entry
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, declared_here, match_text
from hipify_py.rules.identifiers import NOT_A_RENAME
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

LIBRARY_USE = lazy(rb"\b(?:" + b"|".join(p for p, _, _ in LIBRARIES_WITHOUT_HIP) + rb")\w*")
_LIBRARY_HEADER = lazy(rb"#\s*include\s*[<\"]([^>\"]+)[>\"]")


def _renamed(names: Mapping[bytes, Entry], token: bytes) -> bool:
    """A name the tables rename (nvtxRangePushA -> roctxRangePushA, mappings/extras.yaml) is ported."""
    entry = names.get(token)
    return entry is not None and bool(entry.hip) and entry.family not in NOT_A_RENAME


def library_usage(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    headers = b" ".join(m.group(1).lower() for m in _LIBRARY_HEADER.finditer(ctx.source))
    reported: set[str] = set()
    names = ctx.tables.names
    for m in scan.code(
        LIBRARY_USE, keep=lambda m: not declared_here(ctx, m) and not _renamed(names, m.group())
    ):
        for prefix, library, advice in LIBRARIES_WITHOUT_HIP:
            if re.match(prefix, m.group()) and library not in reported:
                reported.add(library)
                if any(needle in headers for needle in LIBRARY_HEADERS[library]):
                    break  # the include rule already reported this library at its header
                msg = f"`{match_text(m)}`: {library} has no drop-in HIP counterpart ({advice})"
                result.diagnostics.append(ctx.diag("HIP110", m.start(), m.end(), msg))
                break
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((210, library_usage, (b"nvtx", b"npp", b"nvjpeg", b"cuFile", b"cutensor", b"cudnn")),),
    texts=(
        Rule(
            "HIP110",
            "partial-library",
            Severity.WARNING,
            "Library with no or only a partial HIP/ROCm counterpart",
            "Port the calls of this library by hand; see the note for the closest ROCm library.",
            "Some CUDA libraries (NVTX, NVML, cuTENSOR, cuDNN, NPP, nvJPEG, cuFile) have no HIP counterpart "
            "or one that covers only part of the API; renaming is not enough.",
        ),
    ),
    fixtures=("detectors/libraries*",),
)
