"""cudaPointerAttributes' memory-type member, spelled as the target's hipPointerAttribute_t spells it.

CUDA 10 added `cudaPointerAttributes::type` and deprecated `memoryType`; CUDA 11 removed `memoryType`.
HIP 5.x's hipPointerAttribute_t has only `memoryType`; HIP 6.0 renamed it `type` (CUDA's name). The
fields each release has are probed (scripts/probe_device_props.py: `pointer_attribute_fields` of
mappings/probed/hip-device-props-<version>.yaml). So `attrs.type` does not compile on HIP 5.2 and
`attrs.memoryType` does not compile on ROCm 6/7: where the object's declared type is cudaPointerAttributes
(or hipPointerAttribute_t), the member is renamed to the one the target has (HIP151). A `memoryType`
read whose object's type the file does not state, or one in the project's own HIP branch (left alone),
is reported with the fix (HIP152). `.type` with no known owner is not reported: the name is too common.
HIP 5.x numbers its hipMemoryType enumerators differently from CUDA (Host = 0, Device = 1; CUDA and HIP 6:
Host = 1, Device = 2): code comparing the member with the enumerators is right on both, with numbers not.
"""

from __future__ import annotations

import functools
from pathlib import Path

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.declared import declared_type, member_type, pointee_type
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

PREFIX = "hip-device-props-"
_STRUCTS = frozenset({b"cudaPointerAttributes", b"hipPointerAttribute_t"})
_OTHER = {b"type": b"memoryType", b"memoryType": b"type"}
# `.type` / `->memoryType`: the operator first (a literal-led pattern is a fast scan)
_ACCESS = lazy(rb"(?:\.|->)[ \t]*(memoryType|type)\b")


@functools.lru_cache(maxsize=8)
def pointer_attribute_fields(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, frozenset[bytes]]:
    """(probed HIP version, field names of its hipPointerAttribute_t) for the target or the nearest one."""
    if directory is None:
        return derived.load("pointer-attribute-fields", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> tuple[str, frozenset[bytes]]:
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    return version, frozenset(f.encode() for f in str(data.get("pointer_attribute_fields") or "").split())


def _owner_type(ctx: Context, start: int) -> tuple[bool, bytes | None]:
    """(is a member access, the declared struct of its object where the file states it)."""
    node = ctx.root.descendant_for_byte_range(start, start + 1)
    access = node.parent if node is not None else None
    if access is None or access.type != "field_expression":
        return False, None
    owner, operator = access.child_by_field_name("argument"), access.child_by_field_name("operator")
    if owner is None or operator is None:
        return True, None
    if operator.type == "." and owner.type == "identifier":
        found = declared_type(ctx.source, owner)
    elif operator.type == "." and owner.type == "field_expression":  # `s.attrs.type`, s of a file's struct
        inner, field = owner.child_by_field_name("argument"), owner.child_by_field_name("field")
        outer = declared_type(ctx.source, inner) if inner is not None and inner.type == "identifier" else None
        name = ctx.source[field.start_byte : field.end_byte] if field is not None else b""
        found = member_type(ctx.source, outer, name, ctx.root) if outer is not None and name else None
    elif operator.type == "->":
        found = pointee_type(ctx.source, owner)
    else:
        return True, None
    if found is not None and found.startswith(b"struct "):
        found = found[len(b"struct ") :]
    return True, found


def fix_pointer_attributes(ctx: Context) -> RuleResult:
    result = RuleResult()
    if ctx.identifiers.isdisjoint(_STRUCTS) or ctx.identifiers.isdisjoint(_OTHER):
        return result
    version, fields = pointer_attribute_fields(ctx.options.hip_version)
    if not fields:
        return result
    for m in _ACCESS.finditer(ctx.source):
        name = m.group(1)
        if name in fields or _OTHER[name] not in fields:
            continue  # the target has this spelling (or neither: nothing to say)
        start, end = m.start(1), m.end(1)
        if ctx.classify(start, end) in (Where.COMMENT, Where.STRING):
            continue
        is_access, owner = _owner_type(ctx, start)
        if not is_access:
            continue
        protected = ctx.is_protected(start)
        if owner in _STRUCTS and not protected:
            result.edits.append(Edit(start, end, _OTHER[name]))
            message = (
                f"{owner.decode()}::{name.decode()} is `{_OTHER[name].decode()}` in hipPointerAttribute_t "
                f"of HIP {version}"
            )
            result.diagnostics.append(ctx.diag("HIP151", start, end, message))
            result.counts["call_adaptations"] += 1
        elif name == b"memoryType" and (owner is None or owner in _STRUCTS):
            where = "the project's HIP branch reads" if protected else "a read of"
            message = (
                f"`{name.decode()}`: {where} a member that hipPointerAttribute_t of HIP {version} does not "
                "have (HIP 6.0 renamed it `type`, CUDA 11's name)"
            )
            hint = "If the object is a hipPointerAttribute_t/cudaPointerAttributes, read `.type`."
            result.diagnostics.append(ctx.diag("HIP152", start, end, message, hint))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={72: fix_pointer_attributes},
    texts=(
        Rule(
            "HIP151",
            "pointer-attribute-member",
            Severity.INFO,
            "cudaPointerAttributes memory-type member renamed to the target's spelling",
            "Nothing to do: `type` and `memoryType` are the same field, named per HIP release.",
            "CUDA 10 added cudaPointerAttributes::type and CUDA 11 removed the older `memoryType`. HIP 5.x's "
            "hipPointerAttribute_t has only `memoryType`; HIP 6.0 renamed it `type`. Where the object is "
            "declared a cudaPointerAttributes (or hipPointerAttribute_t) in the file, the member is written "
            "as the target's struct names it (probed per release: scripts/probe_device_props.py, "
            "`pointer_attribute_fields` of mappings/probed/hip-device-props-<version>.yaml). HIP 5.x "
            "numbers hipMemoryType from 0 (Host = 0, Device = 1), CUDA and HIP 6 from Unregistered = 0 "
            "(Host = 1, Device = 2): compare the member with the enumerators, not with numbers.",
        ),
        Rule(
            "HIP152",
            "pointer-attribute-memorytype",
            Severity.ERROR,
            "`memoryType` read where the target's hipPointerAttribute_t has only `type`",
            "Read `.type` (HIP 6.0 and CUDA 11 name it so); for HIP 5.x as well, test HIP_VERSION_MAJOR.",
            "HIP 6.0 renamed hipPointerAttribute_t::memoryType to `type`. A `.memoryType`/`->memoryType` "
            "read whose object's type the file does not state (a member of another header's struct, a "
            "function's result), or one in the project's own HIP branch (left alone), does not compile on "
            "ROCm 6 and later. Where the type is stated, HIP151 renames it.",
        ),
    ),
    loads=(pointer_attribute_fields,),
    fixtures=("pointer_attributes/*", "pointer_attributes_hip52/*"),
)
