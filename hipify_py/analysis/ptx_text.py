"""Inline PTX statements found in text: the forms rules/ptx_equivalents.py rewrites, as pure functions of
the text (rules/device_pass.py and scripts/realworld_check.py read them too)."""

from __future__ import annotations

import re

from hipify_py.data.detector_data import PTX_EQUIVALENTS, PTX_OPERATIONS, PTX_SPECIAL_REGISTERS
from hipify_py.util.lazyre import lazy

# `asm [volatile] (` opening every statement below
_ASM_OPEN = rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(\s*"

# asm [volatile] ( "template" ["template"...] [: : : "memory"] ): no operands, so nothing else to carry
ASM_STATEMENT = lazy(_ASM_OPEN + rb'((?:"(?:[^"\\\n]|\\.)*"\s*)+)(?::\s*:\s*:\s*(?:"memory"\s*)?)?\)')
_STRING_BODY = lazy(rb'"((?:[^"\\\n]|\\.)*)"')
# asm [volatile] ("mov.<type><bits> %0, %1;" : "=<c>"(  -- the operands are read by _operand
_MOVE = lazy(
    _ASM_OPEN + rb'"\s*mov\.([bus](?:16|32|64)|f32|f64)\s+%0\s*,\s*%1\s*;?\s*"\s*:\s*"=([hrlfd])"\s*\('
)
# asm [volatile] ("mov.<type><bits> %0, %%<register>;" : "=<c>"(  -- the operand is read by _operand
_SPECIAL = lazy(_ASM_OPEN + rb'"\s*mov\.[bus](?:32|64)\s+%0\s*,\s*%%(\w+)\s*;?\s*"\s*:\s*"=([rl])"\s*\(')
# `)` of the statement after the output operand: empty input and clobber lists may follow
_SPECIAL_CLOSE = lazy(rb'\s*(?::\s*(?:"memory"\s*)?){0,2}\)')
_INPUT = lazy(rb'\s*:\s*"([hrlfd])"\s*\(')
# asm [volatile] ("prefetch[u][.space].level[::eviction] [%0];" :: "l"(  -- the address is read by _operand
_PREFETCH = lazy(
    _ASM_OPEN + rb'"\s*prefetchu?(?:\.(?:global|local))?\.L[12](?:::evict_\w+)?\s+\[\s*%0\s*\]\s*;?\s*"'
    rb'\s*:\s*:\s*"[lr]"\s*\('
)
_CLOBBER_CLOSE = lazy(rb'\s*(?::\s*(?:"memory"\s*)?)?\)')
_CLOSE = lazy(rb"\s*\)")


def asm_key(strings: bytes) -> bytes:
    template = b"".join(_STRING_BODY.findall(strings))
    template = template.replace(b"\\n", b" ").replace(b"\\t", b" ").replace(b";", b" ")
    return b" ".join(template.split())


# asm [volatile] ("<op> %0, <a>[, <b>...];" : "=<c>"(  -- each source is an operand %1, %2... in order or an
# integer literal (`lop3.b32 %0, %1, %2, %3, 0x96;`); the operands are read by _operand
_OPERATION = lazy(
    _ASM_OPEN
    + rb'"\s*([a-z][a-z0-9]*(?:\.[a-z0-9]+)+)\s+%0((?:\s*,\s*(?:%[1-9]|0[xX][0-9a-fA-F]+|[0-9]+))+)\s*;?\s*"'
    + rb'\s*:\s*"=([rl])"\s*\('
)
# an input operand: its constraint a register of the width the instruction wants, or "n", an immediate
_NEXT_INPUT = lazy(rb'\s*[:,]\s*"([rln])"\s*\(')


def operations(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each PTX instruction of detector_data.PTX_OPERATIONS whose operands
    have the constraints it lists (`asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))`
    -> `((d) = hipify_py_bfe_u32((a), (b), (c)))`; scripts/realworld_check.py too). An immediate
    ("n"(4) or a literal in the template) stands for any integer source."""
    found = []
    for m in _OPERATION.finditer(source):
        row = PTX_OPERATIONS.get(m.group(1))
        sources = [t.strip() for t in m.group(2).split(b",")[1:]]
        if row is None or row[0] != m.group(3) or len(sources) != len(row[1]):
            continue
        registers = [t for t in sources if t.startswith(b"%")]
        if registers != [b"%%%d" % (k + 1) for k in range(len(registers))]:
            continue  # why: the inputs are read in order, so %1, %2... must come in order
        out = _operand(source, m.end())
        if out is None:
            continue
        args: list[bytes] = []
        at = out[1] + 1
        for want, token in zip(row[1], sources, strict=True):
            if not token.startswith(b"%"):
                args.append(token)
                continue
            given = _NEXT_INPUT.match(source, at)
            span = (
                _operand(source, given.end())
                if given is not None and given.group(1) in (bytes([want]), b"n")
                else None
            )
            if span is None:
                break
            args.append(source[span[0] : span[1]])
            at = span[1] + 1
        close = _CLOBBER_CLOSE.match(source, at) if len(args) == len(row[1]) else None
        if close is None:
            continue
        call = row[2] + b"(" + b", ".join(b"(" + a + b")" for a in args) + b")"
        found.append((m.start(), close.end(), b"((" + source[out[0] : out[1]] + b") = " + call + b")"))
    return found


# asm [volatile] ("ld[.volatile].global[.<cache op>][.v2|.v4].<type>[.v2|.v4] <%0 or {%0, %1...}>, [%<k>];"
# : the outputs `"=<c>"(x)`, then the address operand: its constraint "l"/"r" or a macro standing for one
# (LULESH's `__PTR(ptr)`); the operands are read by _operand
_LOAD = lazy(
    _ASM_OPEN
    + rb'"\s*ld\.(?:weak\.|(?P<volatile>volatile)\.)?global(?:\.(?P<op>ca|cg|cs|lu|cv|nc))?(?:\.nc)?'
    + rb"(?P<v1>\.v[24])?\.(?P<type>[bsuf](?:16|32|64))(?P<v2>\.v[24])?\s+"
    + rb'(?P<regs>%0|\{\s*%0(?:\s*,\s*%[1-3])*\s*\})\s*,\s*\[\s*%(?P<at>[1-4])\s*\]\s*;?\s*"\s*:'
)
# asm [volatile] ("st[.volatile].global[.<cache op>][.vN].<type>[.vN] [%0], <%1 or {%1, %2...}>;" :: the
# address operand, then the values
_STORE = lazy(
    _ASM_OPEN
    + rb'"\s*st\.(?:weak\.|(?P<volatile>volatile)\.)?global(?:\.(?P<op>wb|cg|cs|wt))?'
    + rb"(?P<v1>\.v[24])?\.(?P<type>[bsuf](?:16|32|64))(?P<v2>\.v[24])?\s+"
    + rb'\[\s*%0\s*\]\s*,\s*(?P<regs>%1|\{\s*%1(?:\s*,\s*%[2-4])*\s*\})\s*;?\s*"\s*:\s*:'
)
_OUTPUT = lazy(rb'\s*,?\s*"=([hrlfd])"\s*\(')
_VALUE = lazy(rb'\s*,\s*"([hrlfd])"\s*\(')
_ADDRESS = lazy(rb'\s*:?\s*(?:"[lr]"|[A-Za-z_]\w*)\s*\(')
# an address written once per element of a vector access: names, members, indexes, + and - only
_PLAIN_ADDRESS = lazy(rb"[\w\s.+\-\[\]>]+")
_ACCESS_TYPES = {
    b"s16": (b"short", b"h"),
    b"u16": (b"unsigned short", b"h"),
    b"b16": (b"unsigned short", b"h"),
    b"s32": (b"int", b"r"),
    b"u32": (b"unsigned int", b"r"),
    b"b32": (b"unsigned int", b"r"),
    b"s64": (b"long long", b"l"),
    b"u64": (b"unsigned long long", b"l"),
    b"b64": (b"unsigned long long", b"l"),
    b"f32": (b"float", b"f"),
    b"f64": (b"double", b"d"),
}


def _shape(m: re.Match[bytes], first: int) -> tuple[bytes, bytes, int] | None:
    """(C type, register constraint, element count) of a load or store, when its registers are `%first`
    on, one per element."""
    if m.group("v1") and m.group("v2"):
        return None
    ctype, constraint = _ACCESS_TYPES.get(m.group("type"), (b"", b""))
    width = int((m.group("v1") or m.group("v2") or b".v1")[2:])
    regs = m.group("regs")
    numbers = [int(r) for r in re.findall(rb"%(\d)", regs)]
    if not ctype or numbers != list(range(first, first + width)):
        return None
    return ctype, constraint, width


def _operands(source: bytes, at: int, pattern: re.Pattern[bytes], constraint: bytes, count: int) -> list:
    """`count` operands of `constraint` from `at`: their texts and the offset after the last."""
    found: list[bytes] = []
    for _ in range(count):
        given = pattern.match(source, at)
        span = _operand(source, given.end()) if given is not None and given.group(1) == constraint else None
        if span is None:
            return []
        found.append(source[span[0] : span[1]])
        at = span[1] + 1
    return [found, at]


def _pointer(m: re.Match[bytes], ctype: bytes, where: bytes, const: bytes) -> bytes:
    volatile = m.group("volatile") or m.group("op") == b"cv"
    return b"(" + const + (b"volatile " if volatile else b"") + ctype + b"*)(" + where + b")"


def _each(parts: list[bytes]) -> bytes:
    return b"((void)(" + b", ".join(parts) + b"))"


def accesses(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each global load with a cache operator (`asm("ld.global.cg.f32 %0,
    [%1];" : "=f"(r) : "l"(p))` -> `((r) = *(const float*)(p))`; LULESH's sm_utils.inl) and each global
    store (`st.global.cs.f32 [%0], %1;` -> `(*(float*)(p) = (v))`). The operator is a hint (PTX ISA, Cache
    Operators), as for CUDA's __ldcg/__stcs, which HIP's own overloads access plainly; `.cv` (fetch
    again) and `.volatile` are volatile accesses. A vector access takes each element."""
    found = []
    for m in _LOAD.finditer(source):
        shape = _shape(m, 0)
        if shape is None or int(m.group("at")) != shape[2]:
            continue
        ctype, constraint, width = shape
        outs = _operands(source, m.end(), _OUTPUT, constraint, width)
        given = _ADDRESS.match(source, outs[1]) if outs else None
        address = _operand(source, given.end()) if given is not None else None
        close = _CLOBBER_CLOSE.match(source, address[1] + 1) if address is not None else None
        if address is None or close is None:
            continue
        where = source[address[0] : address[1]]
        if width > 1 and _PLAIN_ADDRESS.fullmatch(where) is None:
            continue  # why: the address is written once per element
        pointer = _pointer(m, ctype, where, b"const ")
        parts = [b"(%s) = (%s)[%d]" % (o, pointer, k) for k, o in enumerate(outs[0])]
        text = (
            b"((" + outs[0][0] + b") = *" + pointer + b")"
            if width == 1
            else b"((void)(" + b", ".join(parts) + b"))"
        )
        found.append((m.start(), close.end(), text))
    for m in _STORE.finditer(source):
        shape = _shape(m, 1)
        if shape is None:
            continue
        ctype, constraint, width = shape
        given = _ADDRESS.match(source, m.end())
        address = _operand(source, given.end()) if given is not None else None
        values = _operands(source, address[1] + 1, _VALUE, constraint, width) if address is not None else []
        close = _CLOBBER_CLOSE.match(source, values[1]) if values else None
        if address is None or close is None:
            continue
        where = source[address[0] : address[1]]
        if width > 1 and _PLAIN_ADDRESS.fullmatch(where) is None:
            continue
        pointer = _pointer(m, ctype, where, b"")
        parts = [b"(%s)[%d] = (%s)" % (pointer, k, v) for k, v in enumerate(values[0])]
        text = (
            b"(*" + pointer + b" = (" + values[0][0] + b"))"
            if width == 1
            else b"((void)(" + b", ".join(parts) + b"))"
        )
        found.append((m.start(), close.end(), text))
    return found


def without_equivalents(text: bytes) -> bytes:
    """`text` with every inline PTX statement this rule rewrites blanked out (rules/device_pass.py asks:
    a device-pass branch whose assembly all has HIP equivalents holds no NVIDIA-only code)."""
    spans = [
        (m.start(), m.end()) for m in ASM_STATEMENT.finditer(text) if asm_key(m.group(1)) in PTX_EQUIVALENTS
    ]
    forms = moves(text) + prefetches(text) + special_reads(text) + operations(text) + accesses(text)
    spans += [(a, b) for a, b, _ in forms]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + b" " * (end - start) + text[end:]
    return text


def moves(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each register move within one class (scripts/realworld_check.py too)."""
    found = []
    for m in _MOVE.finditer(source):
        out = _operand(source, m.end())
        given = _INPUT.match(source, out[1] + 1) if out is not None else None
        into = _operand(source, given.end()) if given is not None else None
        close = _CLOSE.match(source, into[1] + 1) if into is not None else None
        if out is None or given is None or into is None or close is None:
            continue
        if given.group(1) != m.group(2):
            continue  # across register classes: a reinterpretation, not a copy
        target, value = source[out[0] : out[1]], source[into[0] : into[1]]
        found.append((m.start(), close.end(), b"((" + target + b") = (" + value + b"))"))
    return found


def special_reads(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, assignment) of each read of a PTX special register HIP has a function for
    (scripts/realworld_check.py too)."""
    found = []
    for m in _SPECIAL.finditer(source):
        hip = PTX_SPECIAL_REGISTERS.get(m.group(1))
        out = _operand(source, m.end()) if hip is not None else None
        close = _SPECIAL_CLOSE.match(source, out[1] + 1) if out is not None else None
        if hip is None or out is None or close is None:
            continue
        found.append((m.start(), close.end(), b"((" + source[out[0] : out[1]] + b") = " + hip + b")"))
    return found


def prefetches(source: bytes) -> list[tuple[int, int, bytes]]:
    """(start, end, `((void)(address))`) of each prefetch of one address (scripts/realworld_check.py too)."""
    found = []
    for m in _PREFETCH.finditer(source):
        address = _operand(source, m.end())
        close = _CLOBBER_CLOSE.match(source, address[1] + 1) if address is not None else None
        if address is None or close is None:
            continue
        found.append((m.start(), close.end(), b"((void)(" + source[address[0] : address[1]] + b"))"))
    return found


def _operand(source: bytes, at: int) -> tuple[int, int] | None:
    """The span of an operand's expression from `at` (just after its `(`) to its `)` (excluded)."""
    depth = 0
    for i in range(at, min(len(source), at + 2048)):
        c = source[i]
        if c == 0x28:  # (
            depth += 1
        elif c == 0x29:  # )
            if depth == 0:
                return at, i
            depth -= 1
        elif c in b';{}"':
            return None
    return None
