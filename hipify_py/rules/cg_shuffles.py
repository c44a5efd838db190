"""Cooperative-groups shuffles of any type: `tile.shfl(v, r)` -> `hipify_py_shfl(tile, v, r)` (HIP168).

CUDA's `thread_block_tile::shfl`, `shfl_up`, `shfl_down` and `shfl_xor` take any trivially copyable type
(a struct, a pair of keys and values: BGHT's hash tables); HIP's call `__shfl` and its kin, which have
overloads for arithmetic types only ("no matching function for call to '__shfl'" inside HIP's header).
A helper written once per file passes an arithmetic value to the group's own member, and moves any other
type as 32-bit words, each through that member: the bytes every thread gets are those CUDA's gives.

Rewritten: calls of those members with two arguments whose value is not a variable the file declares
with an arithmetic type (those compile as they are); the group object is left as written. A group of
another kind with such members (a user's class) is served the same way: the helper only calls them.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.declared import declared_type
from hipify_py.analysis.includes import after_last_include, helper_blocks
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_MEMBER = lazy(rb"\.[ \t]*(shfl(?:_up|_down|_xor)?)[ \t]*\(")
GUARD = b"HIPIFY_PY_SHIM_cg_shuffles"
# what HIP's shuffles take as they are (after the file's typedefs and the fixed-width types resolve)
_ARITHMETIC = frozenset(
    (
        b"bool",
        b"char",
        b"signed char",
        b"unsigned char",
        b"short",
        b"short int",
        b"unsigned short",
        b"unsigned short int",
        b"int",
        b"unsigned",
        b"unsigned int",
        b"long",
        b"long int",
        b"unsigned long",
        b"unsigned long int",
        b"long long",
        b"long long int",
        b"unsigned long long",
        b"unsigned long long int",
        b"float",
        b"double",
    )
)
_OPS = (b"shfl", b"shfl_up", b"shfl_down", b"shfl_xor")


def _helpers(nl: bytes) -> bytes:
    lines = [
        b"// hipify-py: cooperative groups' shuffles of any trivially copyable type, as CUDA's take:",
        b"#if !defined(" + GUARD + b")",
        b"#define " + GUARD,
        b"#include <type_traits>",
    ]
    for op in _OPS:
        name = b"hipify_py_" + op
        lines += [
            b"template <class G, class T, class L>",
            b"__host__ __device__ inline typename std::enable_if<std::is_arithmetic<T>::value, T>::type "
            + name
            + b"(const G& g, T v, L lane) {",
            b"  return g." + op + b"(v, lane);",
            b"}",
            b"template <class G, class T, class L>",
            b"__host__ __device__ inline typename std::enable_if<!std::is_arithmetic<T>::value, T>::type "
            + name
            + b"(const G& g, const T& v, L lane) {",
            b"  unsigned int words[(sizeof(T) + 3) / 4] = {};",
            b"  __builtin_memcpy(words, static_cast<const void*>(&v), sizeof(T));",
            b"  for (unsigned int i = 0; i < (sizeof(T) + 3) / 4; ++i)",
            b"    words[i] = g." + op + b"(words[i], lane);",
            b"  T out = v;",
            b"  __builtin_memcpy(static_cast<void*>(&out), words, sizeof(T));",
            b"  return out;",
            b"}",
        ]
    lines.append(b"#endif")
    return nl.join(lines) + nl


def rewrite_cg_shuffles(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"shfl" not in source:  # a group may come as a template parameter: `const Tile& tile` (BGHT)
        return result
    first = None
    ours = helper_blocks(source)
    for m in _MEMBER.finditer(source):
        dot, paren = m.start(), m.end() - 1
        if any(a <= dot < b for a, b in ours):
            continue  # a helper hipify-py wrote (cg::reduce's, these ones): it calls the group's own member
        if ctx.is_protected(dot) or ctx.classify(m.start(1), m.end(1)) != Where.MEMBER:
            continue  # a comment, a string, a macro body (no tree to find the receiver in)
        field = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
        member = field.parent if field is not None else None
        call = member.parent if member is not None else None
        if member is None or member.type != "field_expression" or call is None:
            continue
        if call.type != "call_expression":
            continue
        receiver = member.child_by_field_name("argument")
        arguments = call.child_by_field_name("arguments")
        if receiver is None or arguments is None or member.child_by_field_name("operator") is None:
            continue
        if source[member.child_by_field_name("operator").start_byte : dot + 1] != b".":
            continue  # `p->shfl(...)`: a pointer, not a group object
        values = [c for c in arguments.named_children if c.type != "comment"]
        if len(values) != 2 or _plainly_arithmetic(source, values[0]):
            continue
        op = source[m.start(1) : m.end(1)]
        result.edits.append(Edit(receiver.start_byte, receiver.start_byte, b"hipify_py_" + op + b"("))
        result.edits.append(Edit(dot, paren + 1, b", "))
        result.diagnostics.append(
            ctx.diag(
                "HIP168",
                m.start(1),
                m.end(1),
                f"`.{op.decode()}` of a value HIP's shuffles may not take: "
                f"written as hipify_py_{op.decode()}",
            )
        )
        result.counts["cg_shuffles"] += 1
        first = receiver.start_byte if first is None else first
    if first is not None and GUARD not in source:
        at, lead = after_last_include(ctx, first)
        result.requests.append(Insertion.helper(at, lead + _helpers(newline_of(source))))
    return result


def _plainly_arithmetic(source: bytes, value: Node) -> bool:
    if value.type in ("number_literal", "true", "false", "char_literal"):
        return True
    if value.type != "identifier":
        return False
    return declared_type(source, value) in _ARITHMETIC


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={152: rewrite_cg_shuffles},
    texts=(
        Rule(
            "HIP168",
            "cg-shuffle-any-type",
            Severity.INFO,
            "A cooperative-groups shuffle of a value HIP's shuffles may not take: it goes through a helper",
            "Nothing to do; the helper calls the group's own shuffle for arithmetic values and moves other "
            "types as 32-bit words.",
            "CUDA's thread_block_tile::shfl, shfl_up, shfl_down and shfl_xor take any trivially copyable "
            "type (cooperative_groups.h); HIP's (5.2, 6.4 and 7.2) call __shfl and its kin, which have "
            "overloads for arithmetic types only, so a struct (a key-value pair) fails inside HIP's header. "
            "Where the value is not a variable the file declares with an arithmetic type, the call becomes "
            "hipify_py_shfl(group, value, lane) (and _up, _down, _xor), a helper written once per file "
            "that calls the group's member for arithmetic types and, for any other type, shuffles it as "
            "32-bit words through that member, so every thread gets the bytes CUDA's shuffle gives.",
        ),
    ),
    fixtures=("cxx/cg_shuffles*",),
)
