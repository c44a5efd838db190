"""User operators on CUDA vector types that HIP's vector types already define (HIP127, HIP212, HIP213).

CUDA's float4/int2/... and cuComplex.h's cuDoubleComplex/cuFloatComplex are plain structs, so code (the
helper_math.h pattern, complex arithmetic) defines its own `operator+=(float4&, float4)`,
`operator*(cuDoubleComplex, cuDoubleComplex)`... HIP's vector types are classes with their own operators
(facts in vector_ops_data.py), and HIP 5.2's hip_complex.h adds complex ones. Outcomes, per user operator:

- the forms the target makes ambiguous (mappings/vector-ops-<HIP>.yaml, probed per release by
  scripts/probe_vector_ops.py): `+= -= *= /=` with the same vector type and `++`/`--` on every HIP;
  from ROCm 6.4 also `*` and `/` of two vectors (non-template friends); on 5.2's complex types nearly
  every operator. Every use of such a user operator is ambiguous when it is `__host__ __device__`. One
  that provably does what HIP's does (each component once, `a.x += b.x; ...`,
  `return make_float2(a.x * b.x, a.y * b.y);`) is guarded with `#if !defined(__HIP_PLATFORM_AMD__)`
  (HIP213: NVIDIA builds keep it, AMD uses HIP's). Any other (complex `*`, ...) gets clang's
  `__attribute__((enable_if(true, "")))`, under `#if defined(__clang__) && defined(__HIP_PLATFORM_AMD__)`
  (HIP127): among candidates that match equally well clang prefers the one with enable_if, so every call
  that was a tie runs the user's operator, as on CUDA where it was the only one.
- a vector-scalar operator (`float2 operator+(float2, float)`) that is not a plain broadcast
  (`make_float2(a.x + s, a.y + s)`): calls with another scalar type now run HIP's broadcast (HIP212).
- everything else (element-wise `float4 operator+(float4, float4)`, dot/cross, mixed vector types,
  operators HIP lacks) compiles and keeps its meaning: the user's non-template operator wins over
  HIP's templates for its exact operand types. Left as is.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from hipify_py.analysis.context import Context, Where
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.lexer import COMMENT
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.rules.vector_ops_data import (
    AMBIGUOUS_STEP,
    BROADCAST_BINARY,
    BROADCAST_COMPOUND,
    COMPLEX_TYPES,
    COMPONENTS,
    FLOATING,
    OPERAND_TYPES,
    SCALAR_SPELLINGS,
)
from hipify_py.rules.vector_ops_parse import Operator, Param, operators
from hipify_py.util.lazyre import lazy

_MACRO = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*)$", re.M)
_OWN_TYPE = lazy(
    rb"\b(?:struct|class|union)\s+(\w+)\s*(?:final\s*)?[{:]|\btypedef\b[^;{}]*?\b(\w+)\s*;|\busing\s+(\w+)\s*="
)
# `typedef float2 Complex;`, `using cplx = cuDoubleComplex;`: the file's own names for a vector type
_ALIAS = lazy(rb"\btypedef\s+(\w+)\s+(\w+)\s*;|\busing\s+(\w+)\s*=\s*(\w+)\s*;")
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
PREFIX = "vector-ops-"
_COMMUTATIVE = frozenset({"+", "*", "&", "|", "^"})  # `s + a.x` is `a.x + s`, bit for bit (IEEE too)
GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)"
PREFER = (
    b"#if defined(__clang__) && defined(__HIP_PLATFORM_AMD__) // hipify-py: wins the tie with HIP's own",
    b'__attribute__((enable_if(true, "")))',
    b"#endif",
)


@functools.lru_cache(maxsize=8)
def ambiguous_forms(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, frozenset[str], frozenset[str]]:
    """(probed HIP version, forms such as `*= vector`, `++ prefix`, `/ vector` on vector types, the same
    on cuComplex.h's types) for the target or the nearest older probed release."""
    if directory is None:
        return derived.load("vector-ops", _build_forms, hip_version)
    return _build_forms(hip_version, directory)


def _build_forms(
    hip_version: str | None, directory: Path | None = None
) -> tuple[str, frozenset[str], frozenset[str]]:
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    forms = frozenset(str(form) for form in data.get("ambiguous") or ())
    return version, forms, frozenset(str(form) for form in data.get("complex_ambiguous") or ())


def check_vector_operators(ctx: Context) -> RuleResult:
    result = RuleResult()
    source = ctx.source
    if b"operator" not in source or not (ctx.identifiers & OPERAND_TYPES.keys()):
        return result
    _, vector_forms, complex_forms = ambiguous_forms(ctx.options.hip_version)
    own = _own_types(ctx)
    aliases = _aliases(ctx, own)
    macros = {m.group(1): m.group(2) for m in _MACRO.finditer(source) if not _skipped_branch(ctx, m.start())}
    guarded: list[tuple[Node, str]] = []
    proven: set[tuple] = set()
    declarations: list[tuple[Operator, bytes]] = []
    preferred: list[tuple[Operator, bytes]] = []
    for op in operators(ctx, macros):
        if aliases:
            op = op._replace(params=tuple(p._replace(type=aliases.get(p.type, p.type)) for p in op.params))
        vector = _vector_operand(op, own)
        if vector is None:
            continue
        forms = complex_forms if vector in COMPLEX_TYPES else vector_forms
        if _ambiguous_shape(op, vector, forms):
            if op.body is None:
                declarations.append((op, vector))
                continue
            if _same_as_hip(op, vector):
                guarded.append((op.node, f"HIP's {vector.decode()} defines operator{op.op}"))
                proven.add(_signature(op))
            elif op.qualifiers is None or {b"__host__", b"__device__"} <= op.qualifiers:
                preferred.append((op, vector))
            continue
        warning = _broadcast_change(op, vector)
        if warning:
            result.diagnostics.append(ctx.diag("HIP212", op.node.start_byte, op.node.end_byte, warning))
    for op, vector in declarations:
        if _signature(op) in proven:
            guarded.append((op.node, f"HIP's {vector.decode()} defines operator{op.op}"))
        elif op.qualifiers is None or {b"__host__", b"__device__"} <= op.qualifiers:
            preferred.append((op, vector))
    for op, vector in preferred:
        edit = _prefer_edit(ctx, op)
        if edit is not None:  # None: marked already (a second run over the output)
            result.diagnostics.append(_preferred(ctx, op, vector))
            result.edits.append(edit)
            result.counts["vector_operators_preferred"] += 1
    guarded.sort(key=lambda g: g[0].start_byte)  # why: a prototype is found after its definition
    for node, why in guarded:
        message = (
            f"{why} (element-wise, the same as this one): guarded with #if !defined(__HIP_PLATFORM_AMD__), "
            "so AMD builds use HIP's and NVIDIA builds keep this one"
        )
        result.diagnostics.append(ctx.diag("HIP213", node.start_byte, node.end_byte, message))
    result.edits.extend(_guard_edits(ctx, [g[0] for g in guarded]))
    if guarded:
        result.counts["vector_operators_guarded"] += len(guarded)
    return result


def _preferred(ctx: Context, op: Operator, vector: bytes) -> object:
    message = (
        f"operator{op.op} on {vector.decode()} ties with HIP's own operator{op.op} on it at every use and is "
        "not element-wise as HIP's is: marked with clang's enable_if(true), which wins such ties, so each "
        "call runs it as on CUDA"
    )
    return ctx.diag("HIP127", op.node.start_byte, op.node.end_byte, message)


def _prefer_edit(ctx: Context, op: Operator) -> Edit | None:
    """PREFER before a definition's body, or after a declaration's declarator (before its `;`); None
    where it is there already."""
    source = ctx.source
    nl = newline_of(source)
    block = nl.join(PREFER) + nl
    at = op.body.start_byte if op.body is not None else op.declarator_end
    if source[op.declarator_end : op.declarator_end + 200].lstrip().startswith(PREFER[0]):
        return None
    line_start = source.rfind(b"\n", 0, at) + 1
    if not source[line_start:at].strip():
        return Edit(line_start, line_start, block)
    end = at - (len(source[line_start:at]) - len(source[line_start:at].rstrip()))  # no trailing blanks
    return Edit(end, at, nl + block)


def _signature(op: Operator) -> tuple:
    return (op.op, tuple((p.type, p.const, p.ref) for p in op.params))


def _skipped_branch(ctx: Context, at: int) -> bool:
    """In a branch hipcc skips (`#ifndef __CUDACC__`: host compilers only)."""
    return any(a <= at < b for a, b in ctx.branches.dead)


def _dead(ctx: Context, at: int) -> bool:
    """In a comment or string, or in a branch hipcc skips."""
    return ctx.classify(at, at + 1) in (Where.COMMENT, Where.STRING) or _skipped_branch(ctx, at)


def _own_types(ctx: Context) -> frozenset[bytes]:
    """Names the file declares as types itself (a user's own `struct float3` is not HIP's), outside the
    branches hipcc skips (`#ifndef __CUDACC__ struct double2 {...}` is for host compilers only)."""
    names = set()
    for m in _OWN_TYPE.finditer(ctx.source):
        if not _dead(ctx, m.start()):
            names.update(g for g in m.groups() if g)
    return frozenset(n for n in names if n in OPERAND_TYPES)


def _aliases(ctx: Context, own: frozenset[bytes]) -> dict[bytes, bytes]:
    """The file's typedef/using names of a vector or complex type, through chains of them."""
    if b"typedef" not in ctx.source and b"using" not in ctx.source:
        return {}
    named: dict[bytes, bytes] = {}
    for m in _ALIAS.finditer(ctx.source):
        if _dead(ctx, m.start()):
            continue
        target, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        named[name] = target
    out = {}
    for name, target in named.items():
        for _ in range(4):  # typedef FloatComplex Complex; typedef float2 FloatComplex;
            target = named.get(target, target) if target not in OPERAND_TYPES else target
        if target in OPERAND_TYPES and target not in own and name not in OPERAND_TYPES:
            out[name] = target
    return out


def _vector_operand(op: Operator, own: frozenset[bytes]) -> bytes | None:
    """The HIP vector type this operator is about (its first vector operand)."""
    for p in op.params:
        if p.type in OPERAND_TYPES:
            return None if p.type in own else p.type
    return None


def _by_value_or_const_ref(p: Param, vector: bytes) -> bool:
    return p.type == vector and (p.ref == "" or (p.ref == "&" and p.const))


def _ambiguous_shape(op: Operator, vector: bytes, forms: frozenset[str]) -> bool:
    """Operands that one of HIP's non-template operators (a member, or a friend for `*`/`/` from ROCm
    6.4) matches equally well, in a form the target makes ambiguous."""
    if not op.params or op.params[0].type != vector:
        return False
    first = op.params[0]
    mutable = first.ref == "&" and not first.const
    if op.op in AMBIGUOUS_STEP:
        prefix = len(op.params) == 1 and f"{op.op} prefix" in forms
        postfix = len(op.params) == 2 and op.params[1].type == b"int" and f"{op.op} postfix" in forms
        return mutable and (prefix or postfix)
    if len(op.params) == 1:  # unary minus (HIP 5.2's complex types)
        return f"{op.op} unary" in forms and _by_value_or_const_ref(first, vector)
    if len(op.params) != 2:
        return False
    second = op.params[1]
    if second.type == vector:
        form = f"{op.op} vector"
        operand_ok = _by_value_or_const_ref(second, vector)
    else:  # a scalar operand: HIP 5.2's complex `z * s` for each arithmetic type
        form = f"{op.op} scalar"
        operand_ok = _scalar(second) and (second.ref == "" or (second.ref == "&" and second.const))
    if form not in forms or not operand_ok:
        return False
    if op.op in _COMPOUND:
        return mutable
    return _by_value_or_const_ref(first, vector)


# -- proving that the user's operator does what HIP's does ---------------------------------------


def _member(name: bytes, component: str) -> tuple[bytes, ...]:
    return (name, b".", component.encode())


def _makes(vector: bytes, parts: list[tuple[bytes, ...]]) -> list[tuple[bytes, ...]]:
    """The spellings of a vector built from `parts`: make_float4(...), {...}, float4{...}."""
    inner: list[bytes] = []
    for i, part in enumerate(parts):
        if i:
            inner.append(b",")
        inner.extend(part)
    return [
        (b"make_" + vector, b"(", *inner, b")"),
        (b"{", *inner, b"}"),
        (vector, b"{", *inner, b"}"),
    ]


def _same_as_hip(op: Operator, vector: bytes) -> bool:
    """Each component updated exactly once the way HIP's member does it; `return a;` allowed."""
    assert op.body is not None
    scalar, n = OPERAND_TYPES[vector]
    if op.op in ("/=",) and scalar not in FLOATING:
        return False  # integer division: HIP's traps/behaves per lane as the user's does, but keep it simple
    a = op.params[0].name
    comps = COMPONENTS[:n]
    if op.stmts is None:
        return False
    if op.op not in _COMPOUND and op.op not in AMBIGUOUS_STEP:
        if len(op.params) != 2 or op.params[1].type != vector:
            return False  # unary minus, `z * s`: HIP 5.2's complex operators; not worth proving
        return _same_binary(op, vector, scalar, comps)
    stmts = list(op.stmts)
    returns_ok = op.returns in (b"void",) or op.returns.replace(b" ", b"") == vector + b"&"
    if stmts and stmts[-1] == (b"return", a, b";"):
        stmts = stmts[:-1]
        returns_ok = op.returns.replace(b" ", b"") in (vector, vector + b"&")
    if not returns_ok or not a:
        return False
    if op.op in AMBIGUOUS_STEP:
        if len(op.params) != 1:
            return False  # postfix: HIP's returns the old value; not worth proving
        sign = op.op
        forms = [
            {(sign.encode(), *_member(a, c), b";") for c in comps},
            {(*_member(a, c), sign.encode(), b";") for c in comps},
            {(*_member(a, c), sign[0].encode() + b"=", b"1", b";") for c in comps},
        ]
        return len(stmts) == n and any(set(stmts) == form for form in forms)
    b = op.params[1].name
    if not b:
        return False
    arith = op.op[0].encode()
    compound = {(*_member(a, c), op.op.encode(), *_member(b, c), b";") for c in comps}
    spelled = {(*_member(a, c), b"=", *_member(a, c), arith, *_member(b, c), b";") for c in comps}
    if len(stmts) == n and len(set(stmts)) == n and set(stmts) <= compound | spelled:
        return True
    built = _makes(vector, [(*_member(a, c), arith, *_member(b, c)) for c in comps])
    return len(stmts) == 1 and any(stmts[0] == (a, b"=", *form, b";") for form in built)


def _same_binary(op: Operator, vector: bytes, scalar: str, comps: tuple[str, ...]) -> bool:
    """`return make_float2(a.x * b.x, a.y * b.y);` (or a braced vector): HIP's friend operator."""
    a, b = op.params[0].name, op.params[1].name
    if not a or not b or op.stmts is None or op.returns.replace(b" ", b"") != vector:
        return False
    if op.op == "/" and scalar not in FLOATING:
        return False  # integer division by zero: not worth proving the same
    built = _makes(vector, [(*_member(a, c), op.op.encode(), *_member(b, c)) for c in comps])
    return len(op.stmts) == 1 and any(op.stmts[0] == (b"return", *form, b";") for form in built)


def _broadcast_change(op: Operator, vector: bytes) -> str | None:
    """A vector-scalar operator that is not a broadcast: calls with other scalar types change meaning."""
    if len(op.params) != 2:
        return None
    first, second = op.params
    compound = op.op in BROADCAST_COMPOUND
    if not compound and op.op not in BROADCAST_BINARY:
        return None
    if compound:
        if first.type != vector or first.ref != "&" or not _scalar(second) or second.ref == "&&":
            return None
        scalar_param, vector_first = second, True
    elif first.type == vector and first.ref != "&&" and _scalar(second):
        scalar_param, vector_first = second, True
    elif second.type == vector and _scalar(first):
        scalar_param, vector_first = first, False
    else:
        return None
    if scalar_param.ref == "&" and not scalar_param.const:
        return None  # `float&` only binds float lvalues; HIP's template takes the rest, as before
    component, _ = OPERAND_TYPES[vector]
    scalar = SCALAR_SPELLINGS[scalar_param.type.decode()]
    same_type = scalar == component or _type_free(op.op, component, scalar)
    if same_type and op.body is not None and _is_broadcast(op, vector, vector_first, compound):
        return None
    what = "is not a plain broadcast" if same_type else f"takes {scalar_param.type.decode()}, not {component}"
    shape = (
        f"{vector.decode()} {op.op} {scalar_param.type.decode()}"
        if vector_first
        else f"{scalar_param.type.decode()} {op.op} {vector.decode()}"
    )
    return (
        f"operator{op.op} ({shape}) {what}: HIP's {vector.decode()} has a template operator{op.op} for any "
        "scalar that applies the scalar to every component, and it wins wherever the scalar argument is "
        f"not exactly {scalar_param.type.decode()} (an int or double literal): those calls change meaning; "
        "cast the scalar or give this operator a name"
    )


def _type_free(op: str, component: str, scalar: str) -> bool:
    """Whether converting the scalar to the component type first (as HIP does) gives the same result:
    shifts always; + - * and bitwise operators on integers (arithmetic modulo 2^n); never with
    floating-point (rounding) or / and % (truncation differs)."""
    if op.rstrip("=") in ("<<", ">>"):
        return True
    integral = component not in FLOATING and scalar not in FLOATING
    return integral and op.rstrip("=") in ("+", "-", "*", "&", "|", "^")


def _scalar(p: Param) -> bool:
    return p.type.decode(errors="replace") in SCALAR_SPELLINGS


def _is_broadcast(op: Operator, vector: bytes, vector_first: bool, compound: bool) -> bool:
    _, n = OPERAND_TYPES[vector]
    comps = COMPONENTS[:n]
    v = op.params[0 if vector_first else 1].name
    s = op.params[1 if vector_first else 0].name
    if not v or not s:
        return False
    if op.stmts is None:
        return False
    stmts = list(op.stmts)
    arith = op.op[0].encode() if compound else op.op.encode()
    if compound:
        if stmts and stmts[-1] == (b"return", v, b";"):
            stmts = stmts[:-1]
        expected = {(*_member(v, c), op.op.encode(), s, b";") for c in comps}
        return len(stmts) == n and set(stmts) == expected
    orders = [vector_first, not vector_first] if op.op in _COMMUTATIVE else [vector_first]
    for v_first in orders:
        parts = [(*_member(v, c), arith, s) if v_first else (s, arith, *_member(v, c)) for c in comps]
        if len(stmts) == 1 and any(stmts[0] == (b"return", *form, b";") for form in _makes(vector, parts)):
            return True
    return False


# -- edits ------------------------------------------------------------------------------------------


def _guard_edits(ctx: Context, nodes: list[Node]) -> list[Edit]:
    """One `#if !defined(__HIP_PLATFORM_AMD__)` block around each run of adjacent guarded operators."""
    if not nodes:
        return []
    source = ctx.source
    nl = newline_of(source)
    runs: list[list[Node]] = []
    for node in nodes:
        if runs and not _only_blank_or_comments(ctx, runs[-1][-1].end_byte, node.start_byte):
            runs.append([node])
        elif runs:
            runs[-1].append(node)
        else:
            runs.append([node])
    edits = []
    for run in runs:
        start, end = run[0].start_byte, run[-1].end_byte
        line_start = source.rfind(b"\n", 0, start) + 1
        opening = GUARD + b" // hipify-py: HIP's vector types define these operators" + nl
        if source[line_start:start].strip():
            edits.append(Edit(start, start, nl + opening))
        else:
            edits.append(Edit(line_start, line_start, opening))
        eol = source.find(b"\n", end)
        line_end = len(source) if eol == -1 else eol + 1
        if source[end:line_end].strip():
            edits.append(Edit(end, end, nl + b"#endif" + nl))
        else:
            tail = b"" if source[line_end - 1 : line_end] == b"\n" else nl
            edits.append(Edit(line_end, line_end, tail + b"#endif" + nl))
    return edits


def _only_blank_or_comments(ctx: Context, start: int, end: int) -> bool:
    gap = ctx.source[start:end]
    if not gap.strip():
        return True
    stripped = COMMENT.sub(b"", gap)
    return not stripped.strip()


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={200: check_vector_operators},
    texts=(
        Rule(
            "HIP127",
            "ambiguous-vector-operator",
            Severity.INFO,
            "User operator on a HIP vector or complex type made to win over HIP's own",
            "Nothing to do. To drop the attribute, give the operator a name and call that.",
            "HIP's vector types (float4, int2, double2, ...; hipDoubleComplex is double2) are classes with "
            "member operators += -= *= /= and ++/--, from ROCm 6.4 friend * and / of two vectors, and HIP "
            "5.2's hip_complex.h adds complex operators. A user's `__host__ __device__` free operator with "
            "the same operands matches every use equally well, so each use is ambiguous. One that is "
            "element-wise is guarded (HIP213); any other (complex multiplication, ...) gets clang's "
            '`__attribute__((enable_if(true, "")))` on AMD: clang prefers it in such ties, so every call '
            "runs the user's operator, as on CUDA where it was the only one.",
        ),
        Rule(
            "HIP212",
            "merged-behaviour",
            Severity.WARNING,
            "After renaming, some calls or cases run other code than on CUDA",
            "Check the code the message names: on HIP it runs for both CUDA names/values (or types).",
            "Where HIP merges two CUDA types or enumerators, the tool keeps the first definition or case "
            "label and disables the later one (#if 0 / commented label), since HIP cannot tell the two "
            "apart; this finding says the disabled code differed, so the merged values now run the first "
            "one's code. Also reported: a user operator on a vector type that is not element-wise, where "
            "calls with another scalar type (e.g. int or double for float) now pick HIP's broadcasting "
            "template operator instead.",
        ),
        Rule(
            "HIP213",
            "merged-duplicate-disabled",
            Severity.INFO,
            "Code made redundant by HIP disabled (same behaviour)",
            "Nothing to do; delete the disabled code when the CUDA build is gone.",
            "A later overload or case label that, after renaming, repeats an earlier one and does the same "
            "was disabled; a user's element-wise operator on a vector type that HIP already defines was "
            "guarded with `#if !defined(__HIP_PLATFORM_AMD__)` (still used on NVIDIA).",
        ),
    ),
    loads=(ambiguous_forms,),
    fixtures=("vector_ops",),
)
