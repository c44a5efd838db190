"""A bf16 value cast to half, or a half cast to bf16 (HIP220).

CUDA converts between __nv_bfloat16 and __half through float: one of them converts to float, the other
constructs from it. HIP's __hip_bfloat16 converts to a dozen arithmetic types and __half constructs
from as many, so `static_cast<__half>(b)`, `(__half)b`, `__half h = b` and the reverse direction are
ambiguous (checked with ROCm 6.4 and 7.2; earlier releases not claimed). The fix is to go through float
(`__float2half(__bfloat162float(b))`). Both types must be spelled: in the cast, and in the declaration
of the operand (a variable, `x[i]` of a pointer or array); template parameters are followed through the
file's explicit instantiations (`convert<half, __nv_bfloat16>(...)` -> `cvt<Td, Ts>` ->
`static_cast<Td>(src[i])`), one finding per cast with the first instantiation that breaks it.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.detectors.overloads import spelled_type
from hipify_py.rules.detectors.templates import template_uses, type_bindings
from hipify_py.rules.registry import declare

FIRST_CHECKED = "6.4"  # the first release whose hipcc showed the ambiguity (6.4.3 and 7.2.4)
_KIND = {
    b"half": "half",
    b"__half": "half",
    b"__nv_bfloat16": "bf16",
    b"nv_bfloat16": "bf16",
    b"__hip_bfloat16": "bf16",
}


def _casts(source: bytes, root: Node) -> list[tuple[Node, Node, Node]]:
    """(cast node, target type node, operand node) of every static_cast<T>(x) and (T)x."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type == "cast_expression":
            kind, value = node.child_by_field_name("type"), node.child_by_field_name("value")
            if kind is not None and value is not None:
                found.append((node, kind, value))
        elif node.type == "call_expression":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is None or args is None or fn.type != "template_function":
                continue
            name, targs = fn.child_by_field_name("name"), fn.child_by_field_name("arguments")
            operands = [c for c in args.named_children if c.type != "comment"]
            if name is None or targs is None or source[name.start_byte : name.end_byte] != b"static_cast":
                continue
            types = [c for c in targs.named_children if c.type != "comment"]
            if len(types) == 1 and len(operands) == 1:
                found.append((node, types[0], operands[0]))
    return found


def _type_name(text: bytes) -> bytes:
    return b" ".join(w for w in text.split() if w not in (b"const", b"volatile"))


def half_bf16_casts(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    target = ctx.options.hip_version
    if not target or compare_versions(target, FIRST_CHECKED) < 0:
        return result
    src = ctx.source
    uses: dict[bytes, list[list[Node]]] | None = None
    for cast, kind, operand in _casts(src, ctx.root):
        if scan.is_dead(cast.start_byte):
            continue
        operand_type = spelled_type(ctx, src[operand.start_byte : operand.end_byte], cast.start_byte, False)
        if operand_type is None:
            continue
        to = _type_name(src[kind.start_byte : kind.end_byte])
        if uses is None:
            uses = template_uses(src, ctx.root)
        for to_type, from_type in type_bindings(src, uses, cast, (to, operand_type)):
            pair = (_KIND.get(from_type), _KIND.get(to_type))
            if pair not in (("bf16", "half"), ("half", "bf16")):
                continue
            chain = (to_type, from_type) != (to, operand_type)
            names = f"{to.decode()} = {to_type.decode()}, {operand_type.decode()} = {from_type.decode()}"
            shown = f" (instantiated with {names})" if chain else ""
            message = (
                f"{from_type.decode()} to {to_type.decode()}{shown} is ambiguous on HIP {target}: convert "
                "through float (__bfloat162float/__float2half or __half2float/__float2bfloat16)"
            )
            result.diagnostics.append(ctx.diag("HIP220", cast.start_byte, cast.end_byte, message))
            break
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((110, half_bf16_casts, (b"bfloat16",)),),
    texts=(
        Rule(
            "HIP220",
            "half-bf16-cast",
            Severity.ERROR,
            "bf16 value cast to half (or half to bf16): ambiguous in HIP",
            "Convert through float: __float2half(__bfloat162float(b)), __float2bfloat16(__half2float(h)).",
            "CUDA converts between __nv_bfloat16 and __half through float. HIP's __hip_bfloat16 converts to "
            "many arithmetic types and __half constructs from as many, so the cast is ambiguous (checked "
            "with ROCm 6.4 and 7.2; earlier releases are not claimed). Reported where both types are "
            "spelled: the cast's type and the operand's declaration, with template parameters followed "
            "through the file's explicit instantiations.",
        ),
    ),
    fixtures=(
        "detectors/hip64",
        "detectors/hip72",
    ),
)
