"""A surface call's boundary mode -> kept on HIP's NVIDIA platform only (HIP235).

CUDA's surface object calls end with a `cudaSurfaceBoundaryMode` (`surf2Dread(&v, obj, x, y,
cudaBoundaryModeZero)`: out-of-range reads give zeros, writes are dropped; Clamp clamps the coordinates;
the default, Trap, fails the kernel). HIP's on AMD take none (ROCm 6.4 and 7.2; HIP 5.2 took one and
ignored it), so the call fails ("no matching function"). Image accesses outside the surface read zeros
and drop writes there (HIP 5.2 declared hipBoundaryModeZero the default): the Zero mode, and the Trap mode
of a program that stays in range. On HIP's NVIDIA platform the call is CUDA's, and the mode must stay:
edge reads that rely on Zero would trap under the default. So the mode becomes
`hipify_py_boundary_mode(mode)`, a helper macro that writes `, mode` there and nothing on AMD.

Found, not rewritten (HIP236, an error): the value-returning reads (`surf2Dread<float>(obj, x, y)`: HIP has
the pointer form only) and the cubemap-layered calls (CUDA's one layerFace index, HIP's face and layer).
"""

from __future__ import annotations

from hipify_py.analysis.callargs import CallFinder
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.detector_data import SURFACE_CUBEMAP_LAYERED, SURFACE_PARAMETERS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_CALL = lazy(
    rb"(?<![\w$.>:])(surf(?:1D|2D|3D|Cubemap)(?:Layered)?(?:read|write))\b[ \t]*(<[^;(){}]*>)?[ \t]*\("
)
_MODES = frozenset({b"cudaBoundaryModeZero", b"cudaBoundaryModeTrap"})
GUARD = b"HIPIFY_PY_SHIM_boundary_mode"
HELPER = rb"""// hipify-py: CUDA's surface calls end with a boundary mode; HIP's on AMD take none
#if !defined(HIPIFY_PY_SHIM_boundary_mode)
#define HIPIFY_PY_SHIM_boundary_mode
#if defined(__HIP_PLATFORM_NVIDIA__)
#define hipify_py_boundary_mode(mode) , mode
#else
#define hipify_py_boundary_mode(mode)
#endif
#endif
"""


def rewrite_surface_modes(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"surf" not in source:
        return result
    finder: CallFinder | None = None
    first = None
    for m in _CALL.finditer(source):
        start, end = m.span(1)
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        finder = finder or CallFinder(source, ctx.root)
        call = finder.at((start, end))
        if call is None:
            continue
        name, count = m.group(1), len(call.args)
        if name in SURFACE_CUBEMAP_LAYERED:
            message = (
                f"`{name.decode()}`: CUDA's takes one layerFace index (layer * 6 + face), HIP's a face and "
                "a layer: pass `layerFace % 6, layerFace / 6` and drop a boundary mode"
            )
            result.diagnostics.append(ctx.diag("HIP236", start, end, message))
            continue
        params = SURFACE_PARAMETERS.get(name)
        if params is None:
            continue
        if m.group(2) is not None and name.endswith(b"read") and count in (params - 1, params):
            message = (
                f"`{name.decode()}<T>(...)` returns the value in CUDA; HIP has only the pointer form: "
                f"`T v; {name.decode()}(&v, ...)` without the boundary mode"
            )
            result.diagnostics.append(ctx.diag("HIP236", start, end, message))
            continue
        if count != params + 1:
            continue
        (_, before), (mode_start, mode_end) = call.args[params - 1], call.args[params]
        if source[before:mode_start].strip() != b",":
            continue  # a comment between the arguments: left to the compiler
        mode = source[mode_start:mode_end]
        result.edits.append(Edit(before, mode_start, b" hipify_py_boundary_mode("))
        result.edits.append(Edit(mode_end, mode_end, b")"))
        kept = mode in _MODES
        message = (
            f"`{mode.decode('utf-8', 'replace')}` kept for HIP's NVIDIA platform only: on AMD the call takes "
            "no boundary mode, and accesses outside the surface read zeros and drop writes"
            + ("" if kept else " (Zero mode; CUDA's Clamp would clamp the coordinates)")
        )
        found = ctx.diag("HIP235", start, end, message)
        result.diagnostics.append(found if kept else found._replace(severity=Severity.WARNING))
        result.counts["surface_modes"] += 1
        first = start if first is None else first
    if first is not None and GUARD not in source:
        result.requests.append(Insertion.helper_before(ctx, first, HELPER))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={155: rewrite_surface_modes},
    texts=(
        Rule(
            "HIP235",
            "surface-boundary-mode",
            Severity.INFO,
            "A surface call's boundary mode is kept for HIP's NVIDIA platform only",
            "Nothing to do for cudaBoundaryModeZero or Trap. For Clamp (a warning), clamp the coordinates "
            "yourself.",
            "CUDA's surface calls (`surf2Dread(&v, obj, x, y, cudaBoundaryModeZero)`) end with a boundary "
            "mode: Zero reads zeros outside the surface and drops writes there, Clamp clamps the "
            "coordinates, Trap (the default) fails the kernel. HIP's on AMD take none (ROCm 6.4 and 7.2; "
            "HIP 5.2 took one and ignored it, defaulting to Zero), and the call fails to compile. The mode "
            "becomes `hipify_py_boundary_mode(mode)`, a macro that keeps `, mode` on HIP's NVIDIA platform "
            "(where an edge read relying on Zero would trap under the default) and drops it on AMD. A "
            "warning for Clamp or a mode computed at run time.",
        ),
        Rule(
            "HIP236",
            "surface-call-form",
            Severity.ERROR,
            "A surface call whose form HIP lacks",
            "Rewrite the call as the message says.",
            "HIP's surface reads return through a pointer only (`surf2Dread(&v, obj, x, y)`); CUDA's also "
            "return the value (`surf2Dread<float>(obj, x, y)`). CUDA's cubemap-layered calls take one "
            "layerFace index (layer * 6 + face), HIP's a face and a layer. Neither compiles as written "
            "(with a boundary mode, a cubemap-layered call compiles and passes the mode as the layer).",
        ),
    ),
    fixtures=("device/surface_modes*",),
)
