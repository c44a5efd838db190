"""`min`/`max` of a signed and an unsigned integer: CUDA's mixed overloads, written `std::min<U>` (HIP153).

CUDA declares min and max for each mixed-sign pair of the same width, __host__ __device__ (crt/
math_functions.h of CUDA 11-13: `unsigned int min(const int a, const unsigned int b)` and its mirror, the
same for long/unsigned long and long long/unsigned long long): the signed argument is converted to the
unsigned type and the result is unsigned. HIP has no such overloads by default: on the host its only
min/max is `int min(int, int)` (clang's __clang_hip_math.h: the mixed ones are behind
__HIP_DEFINE_MIXED_HOST_MIN_MAX__, which must be set on the command line, before the runtime wrapper
hipcc includes first; HIP 5.2's amd_math_functions.h has no such switch), in device code a template that
turns a mixed pair into `double`. So `dim3 block{min(512, uint32_t(n))}` does not compile (narrowing
from int) and `min(-1, 5u)`, CUDA's 5u, is -1. `std::min<U>(a, b)` (constexpr: host and device code in
HIP) is CUDA's own conversion and comparison on every release.

Only calls whose two argument types the file states (literals, casts, declared variables:
hipify_py/analysis/declared.py) and form one of CUDA's mixed pairs are rewritten; a file that defines
its own min/max is left alone.
"""

from __future__ import annotations

from hipify_py.analysis.callargs import CallFinder
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.declared import STANDARD_TYPEDEFS, expression_type, normal
from hipify_py.data.tables import CandidateFinder
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# CUDA's mixed-sign overloads (crt/math_functions.h): (first, second) argument type -> result type
MIXED = {
    (b"int", b"unsigned int"): b"unsigned int",
    (b"unsigned int", b"int"): b"unsigned int",
    (b"long", b"unsigned long"): b"unsigned long",
    (b"unsigned long", b"long"): b"unsigned long",
    (b"long long", b"unsigned long long"): b"unsigned long long",
    (b"unsigned long long", b"long long"): b"unsigned long long",
}
_NAMES = frozenset({b"min", b"max"})
_PRIMITIVE = {b"int": b"int", b"unsigned": b"unsigned int", b"long": b"long"}
_FINDER = CandidateFinder(_NAMES)
# the file's own min/max (a macro or a function with typed parameters): its calls are not CUDA's
_OWN = lazy(
    rb"#[ \t]*define[ \t]+(?:min|max)\b"
    rb"|\b(?:min|max)[ \t]*\([ \t]*(?:const[ \t]+)?\w+(?:[ \t]*[&*]+[ \t]*|[ \t]+)[A-Za-z_]\w*[ \t]*,"
)


# integer arithmetic the file states: `blockIdx.x * 16 + ty`, `n - 1` (cudaSift's `min(numPts1 - 1,
# blockIdx.x * 16 + ty)`): CUDA's built-in index components are unsigned int, and + - * / % & | ^ take
# C++'s usual arithmetic conversions (LP64: rank, then width)
_BUILTIN_VECTORS = frozenset({b"threadIdx", b"blockIdx", b"blockDim", b"gridDim"})
_ARITHMETIC = frozenset({b"+", b"-", b"*", b"/", b"%", b"&", b"|", b"^"})
_INTEGERS = {  # type -> (rank, bytes, unsigned)
    b"int": (1, 4, False),
    b"unsigned int": (1, 4, True),
    b"long": (2, 8, False),
    b"unsigned long": (2, 8, True),
    b"long long": (3, 8, False),
    b"unsigned long long": (3, 8, True),
}
_PROMOTED = frozenset({b"bool", b"char", b"signed char", b"unsigned char", b"short", b"unsigned short"})
_UNSIGNED_OF = {b"int": b"unsigned int", b"long": b"unsigned long", b"long long": b"unsigned long long"}


def _stated_type(ctx: Context, node: Node) -> bytes | None:
    """expression_type, and integer arithmetic on what it knows (and CUDA's built-in index components)."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "field_expression":
        argument, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
        if argument is not None and field is not None:
            name, part = (
                ctx.source[argument.start_byte : argument.end_byte],
                ctx.source[field.start_byte : field.end_byte],
            )
            return b"unsigned int" if name in _BUILTIN_VECTORS and part in (b"x", b"y", b"z") else None
    if node.type == "binary_expression":
        operator, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
        if operator is None or left is None or right is None or operator.type.encode() not in _ARITHMETIC:
            return None
        a, b = _stated_type(ctx, left), _stated_type(ctx, right)
        return _common(a, b) if a is not None and b is not None else None
    found = expression_type(ctx.source, node)
    return normal(found) if found is not None else None


def _common(a: bytes, b: bytes) -> bytes | None:
    """C++'s usual arithmetic conversions of two integer types (LP64); None for anything else."""
    a, b = (b"int" if t in _PROMOTED else t for t in (a, b))
    if a not in _INTEGERS or b not in _INTEGERS:
        return None
    if a == b:
        return a
    (ra, _, ua), (rb, _, ub) = _INTEGERS[a], _INTEGERS[b]
    if ua == ub:
        return a if ra > rb else b
    u, s = (a, b) if ua else (b, a)
    (ru, wu, _), (rs, ws, _) = _INTEGERS[u], _INTEGERS[s]
    if ru >= rs:
        return u
    return s if ws > wu else _UNSIGNED_OF[s]


def _argument_type(ctx: Context, span: tuple[int, int]) -> bytes | None:
    a, b = span
    node = ctx.root.descendant_for_byte_range(a, b)
    while (
        node is not None
        and node.parent is not None
        and (node.parent.start_byte, node.parent.end_byte) == (a, b)
    ):
        node = node.parent  # the outermost node of exactly this span
    if node is None or (node.start_byte, node.end_byte) != (a, b):
        return None
    if node.type in ("binary_expression", "field_expression"):
        return _stated_type(ctx, node)
    found = expression_type(ctx.source, node)
    if found is None and node.type == "call_expression":  # `uint32_t(n)`: a functional cast
        function, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        name = ctx.source[function.start_byte : function.end_byte] if function is not None else b""
        if args is not None and args.named_child_count == 1:
            found = STANDARD_TYPEDEFS.get(name.removeprefix(b"std::")) or _PRIMITIVE.get(name)
    return normal(found) if found is not None else None


def mixed_min_max(ctx: Context) -> RuleResult:
    result = RuleResult()
    if ctx.identifiers.isdisjoint(_NAMES) or _OWN.search(ctx.source) is not None:
        return result
    finder: CallFinder | None = None
    for m in _FINDER.finditer(ctx.source, ctx.identifiers):
        start, end = m.span()
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        before = ctx.source[max(0, start - 2) : start]
        if before.endswith((b".", b"::", b"->")):
            continue  # std::min, obj.min: not CUDA's global overloads
        finder = finder or CallFinder(ctx.source, ctx.root)
        call = finder.at((start, end))
        if call is None or len(call.args) != 2 or ctx.source[end : call.open].strip():
            continue  # min<T>(...) or anything but a plain call
        first, second = _argument_type(ctx, call.args[0]), _argument_type(ctx, call.args[1])
        unsigned = MIXED.get((first, second)) if first is not None and second is not None else None
        if unsigned is None or first is None or second is None:
            continue
        name = m.group()
        result.edits.append(Edit(start, end, b"std::" + name + b"<" + unsigned + b">"))
        result.requests.append(Insertion.include(b"algorithm"))
        message = (
            f"{name.decode()}({first.decode()}, {second.decode()}) is CUDA's mixed-sign overload "
            f"(unsigned comparison, {unsigned.decode()} result), which HIP lacks: written "
            f"std::{name.decode()}<{unsigned.decode()}>"
        )
        result.diagnostics.append(ctx.diag("HIP153", start, end, message))
        result.counts["call_adaptations"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={81: mixed_min_max},
    texts=(
        Rule(
            "HIP153",
            "mixed-sign-min-max",
            Severity.INFO,
            "min/max of a signed and an unsigned integer written std::min<U>/std::max<U>",
            "Nothing to do: std::min<unsigned int>(a, b) is CUDA's min(int, unsigned int).",
            "CUDA declares __host__ __device__ min/max for int/unsigned int, long/unsigned long and long "
            "long/unsigned long long in either order: the signed argument is converted to the unsigned "
            "type, the result is unsigned. HIP has none of these by default: host code gets `int min(int, "
            "int)` (the mixed overloads of clang's HIP headers need -D__HIP_DEFINE_MIXED_HOST_MIN_MAX__ on "
            "the command line; HIP 5.2 has none), device code a template that makes the pair `double`. "
            "`dim3 b{min(512, n)}` with an unsigned n fails (narrowing) and min(-1, 5u) is -1, not 5. Where "
            "the file states both argument types, the call is written std::min<U>/std::max<U> (constexpr, "
            "so host and device), with <algorithm>.",
        ),
    ),
    fixtures=("cxx/mixed_minmax*",),
)
