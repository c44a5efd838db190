"""Arithmetic on a CUdeviceptr becomes integer arithmetic on its address (HIP171).

CUDA's CUdeviceptr is an unsigned integer, and driver-API code adds byte offsets to it
(`cuMemcpyHtoD(pointer + offset * size, ...)`, `cuPtr = b->cuPtr + offset`: OpenMM, OCCA). On AMD,
hipDeviceptr_t is `void*`, on which clang rejects arithmetic ("arithmetic on a pointer to void"). A sum
or difference with an operand the file or its headers declare as a CUdeviceptr (analysis/deviceptr_names.py)
gets each term as `(uintptr_t)(...)` and, where it is an address (one such term added), the result as
`(hipDeviceptr_t)(...)`: the integer CUDA computed, on either platform (on HIP's NVIDIA platform
hipDeviceptr_t is CUdeviceptr again). `+=`/`-=` on one and `%`, `&`, `/` ... of one read it the same way.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.analysis.deviceptr_names import declared
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare

_ADDITIVE = (b"+", b"-")
_INTEGER_ONLY = (b"%", b"&", b"|", b"^", b"<<", b">>", b"/", b"*")


def deviceptr_arithmetic(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    names = set(declared(source)) | {n.encode() for n in ctx.options.deviceptr_names}
    if not names:
        return result
    use = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(n) for n in sorted(names)) + rb")(?![\w$])")
    done: set[int] = set()
    inserts: dict[int, list[bytes]] = {}
    for m in use.finditer(source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(), m.end()) not in (Where.CODE, Where.MEMBER):
            continue
        term = _term_at(ctx, m.start(), m.end(), names)
        if term is None:
            continue
        parent = _up(term)
        if parent is None or parent.type not in ("binary_expression", "assignment_expression"):
            continue
        op = _operator(source, parent)
        if parent.type == "assignment_expression":
            compound = op in (b"+=", b"-=") and _same(parent.child_by_field_name("left"), term)
            if compound and parent.start_byte not in done:
                done.add(parent.start_byte)
                _compound(ctx, parent, op, result)
            continue
        if op in _INTEGER_ONLY:
            _insert(inserts, term.start_byte, b"((uintptr_t)(")
            _insert(inserts, term.end_byte, b"))")
            _found(ctx, term, f"`{op.decode()}` of a CUdeviceptr", result)
            continue
        if op not in _ADDITIVE:
            continue
        top = parent
        while (above := _up(top)) is not None and above.type == "binary_expression":
            if _operator(source, above) not in _ADDITIVE or not _same(above.child_by_field_name("left"), top):
                break
            top = above
        if top.start_byte in done:
            continue
        done.add(top.start_byte)
        terms = _terms(source, top)
        address = sum((1 if sign == b"+" else -1) for sign, t in terms if _is_deviceptr(ctx, t, names))
        if address not in (0, 1):
            continue
        first = top.start_byte
        _insert(inserts, first, b"((hipDeviceptr_t)(" if address else b"(")
        for _, t in terms:
            _insert(inserts, t.start_byte, b"(uintptr_t)(")
            _insert(inserts, t.end_byte, b")")
        _insert(inserts, top.end_byte, b"))" if address else b")")
        what = "a sum with a CUdeviceptr" if address else "a difference of CUdeviceptrs"
        _found(ctx, top, what, result)
    for at in sorted(inserts):
        result.edits.append(Edit(at, at, b"".join(inserts[at])))
    return result


def _insert(inserts: dict[int, list[bytes]], at: int, text: bytes) -> None:
    """Texts at one offset in the order given: an expression's opening before its first term's, the
    last term's closing before the expression's."""
    inserts.setdefault(at, []).append(text)


def _found(ctx: Context, node: Node, what: str, result: RuleResult) -> None:
    message = f"{what}: CUdeviceptr is an integer, hipDeviceptr_t a `void*` on AMD; computed on the address"
    result.diagnostics.append(ctx.diag("HIP171", node.start_byte, node.end_byte, message))
    result.counts["deviceptr_arith"] += 1


def _compound(ctx: Context, node: Node, op: bytes, result: RuleResult) -> None:
    """`p += n` -> `p = ((hipDeviceptr_t)((uintptr_t)(p) + (uintptr_t)(n)))`."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return
    target = ctx.source[left.start_byte : left.end_byte]
    sign = op[:1]
    opening = b"= ((hipDeviceptr_t)((uintptr_t)(" + target + b") " + sign + b" (uintptr_t)("
    result.edits.append(Edit(operator.start_byte, operator.end_byte, opening))
    result.edits.append(Edit(right.end_byte, right.end_byte, b")))"))
    _found(ctx, node, f"`{op.decode()}` on a CUdeviceptr", result)


def _term_at(ctx: Context, start: int, end: int, names: set[bytes]) -> Node | None:
    """The expression a name heads: the name, `obj.name`/`obj->name`, or a call of either."""
    node = ctx.root.descendant_for_byte_range(start, end)
    if node is None or node.type not in ("identifier", "field_identifier"):
        return None
    parent = node.parent
    if node.type == "field_identifier":
        if parent is None or parent.type != "field_expression" or parent.child_by_field_name("field") != node:
            return None
        node, parent = parent, parent.parent
    if (
        parent is not None
        and parent.type == "call_expression"
        and _same(parent.child_by_field_name("function"), node)
    ):
        node = parent
    return node if _is_deviceptr(ctx, node, names) else None


def _is_deviceptr(ctx: Context, node: Node, names: set[bytes]) -> bool:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None:
            return False
        node = function
    if node.type == "field_expression":
        field = node.child_by_field_name("field")
        return field is not None and ctx.source[field.start_byte : field.end_byte] in names
    return node.type == "identifier" and ctx.source[node.start_byte : node.end_byte] in names


def _up(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    return parent


def _same(a: Node | None, b: Node) -> bool:
    """`a` is `b`, or `b` in parentheses."""
    while a is not None and a.type == "parenthesized_expression" and a.named_child_count == 1:
        if (a.start_byte, a.end_byte) == (b.start_byte, b.end_byte):
            return True
        a = a.named_children[0]
    return a is not None and (a.start_byte, a.end_byte) == (b.start_byte, b.end_byte)


def _operator(source: bytes, node: Node) -> bytes:
    operator = node.child_by_field_name("operator")
    return source[operator.start_byte : operator.end_byte] if operator is not None else b""


def _terms(source: bytes, node: Node) -> list[tuple[bytes, Node]]:
    """`a + b - c` -> [(+, a), (+, b), (-, c)] (left-associative: through left operands only)."""
    terms: list[tuple[bytes, Node]] = []
    while node.type == "binary_expression" and _operator(source, node) in _ADDITIVE:
        right = node.child_by_field_name("right")
        left = node.child_by_field_name("left")
        if right is None or left is None:
            break
        terms.append((_operator(source, node), right))
        node = left
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
            if inner.type != "binary_expression":
                break
            node = inner
    terms.append((b"+", node))
    return terms[::-1]


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    # after rules/calls.py (60): its wrap of the same argument (`(void*)(...)`) must open outside this one
    translate={61: deviceptr_arithmetic},
    texts=(
        Rule(
            "HIP171",
            "deviceptr-arithmetic",
            Severity.INFO,
            "Arithmetic on a CUdeviceptr: computed on the address",
            "Nothing to do; the sum is the integer CUDA computes, converted back to hipDeviceptr_t.",
            "CUDA's CUdeviceptr is an unsigned integer and driver-API code adds byte offsets to it "
            "(`pointer + offset`); HIP's hipDeviceptr_t is `void*` on AMD, on which clang rejects "
            "arithmetic. A sum or difference with an operand the file or its headers declare as a "
            "CUdeviceptr (a variable, a member, a parameter, a function returning one) takes each term as "
            "`(uintptr_t)(...)` and, where it is an address, the result as `(hipDeviceptr_t)(...)`; `+=` and "
            "`-=` on one are written out, and `%`, `&`, `/`... read its address. On HIP's NVIDIA platform "
            "hipDeviceptr_t is CUdeviceptr again and the casts change nothing.",
        ),
    ),
    fixtures=("calls/deviceptr_arith*",),
)
