"""Which vector operators a file may use: the scan behind HIP127's project-wide decision.

rules/vector_ops.py finds user operators on vector types that collide with HIP's; such an operator
that nothing uses compiles, so the finding is an error only where some file of the project may use it.
run/settle.py scans the project's sources with `operator_uses` when such a finding waits.
"""

from __future__ import annotations

import re

from hipify_py.analysis.defines import USE
from hipify_py.rules.vector_ops_data import (
    COMPONENTS,
    SCALAR_SPELLINGS,
    VECTOR_TYPES,
)
from hipify_py.util.lazyre import lazy

# A colliding operator that nothing uses compiles (hipcc: only a use is ambiguous), so HIP127 is an error
# only when some file of the project may use it. Each file says which `OP VECTOR` compound operations it
# may perform (`use:*= float2`; `use:*= ?` when the left operand's type is not spelled in the file).
_OP = lazy(rb"[-+*/]=(?!=)|\+\+|--")  # a character class first: a fast scan
_RIGHT_NAME = lazy(rb"\s*([A-Za-z_]\w*)\b(?!\s*[.\[(]|\s*->)")
# `TYPE [*&const __restrict__]* NAME` followed by what ends a declarator (not `TYPENAME`: a separator)
_NOT_CODE = lazy(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TYPEDEF = lazy(rb"typedef\s+(\w+)\s+(\w+)\s*;")  # literal first: a fast scan
_USING = lazy(rb"using\s+(\w+)\s*=\s*(\w+)\s*;")
_SCALARS = frozenset(s.encode() for name in SCALAR_SPELLINGS for s in name.split()) | frozenset(
    b"bool auto_never size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t "
    b"half __half half2 __half2 float double long char short int unsigned signed".split()
)
_NOT_DECLARATIONS = frozenset((b"return", b"else", b"case", b"goto", b"delete", b"new", b"throw", b"sizeof"))


def operator_uses(source: bytes) -> tuple[str, ...]:
    """`use:OP VECTOR` (or `use:OP ?`) for every compound assignment / step that may apply HIP's member
    operator: the left operand is (or may be) a vector, the right one is not a scalar the file spells.
    A name's type is that of its last declaration before the use (a parameter, a local, a global)."""
    if b"=" not in source and b"++" not in source and b"--" not in source:
        return ()
    src = _NOT_CODE.sub(lambda m: b" " * len(m.group()), source)  # offsets kept
    kinds = _Declarations(src)
    uses: set[str] = set()
    for m in _OP.finditer(src):
        op = m.group()
        if op in (b"++", b"--"):
            after = _RIGHT_NAME.match(src, m.end())
            if after is not None:  # ++x
                lhs = kinds.element(after.group(1), after.start(1), False)
                if lhs != b"":
                    uses.add(f"{USE}{op.decode()} {(lhs or b'?').decode()}")
                continue
        left = _left_operand_of(src, m.start())
        if left is None:
            continue
        name, at, subscripts, before = left
        if name == b"operator":
            continue  # `operator+=(...)`: a definition, not a use
        if before in (b".", b">"):  # a member: a component of a vector is a scalar
            if name.decode() in COMPONENTS:
                continue
            lhs: bytes | None = None
        else:
            lhs = kinds.element(name, at, subscripts or before == b"*")
        if lhs == b"":
            continue  # a scalar, or pointer arithmetic
        if op not in (b"++", b"--"):
            stop = min(
                (k for k in (src.find(c, m.end(), m.end() + 400) for c in b";{}") if k != -1), default=-1
            )
            rhs = src[m.end() : stop] if stop != -1 else b"?"
            if _scalar_operand(rhs, kinds, m.end()):
                continue
        uses.add(f"{USE}{op.decode()} {(lhs or b'?').decode()}")
    return tuple(sorted(uses))


class _Declarations:
    """Where a name is declared in a file, with its type and whether it is a pointer or an array;
    aliases of vector types (`typedef float2 cplx;`) resolved. Looked up per name, on demand: only the
    names left of a compound assignment are ever asked about."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.aliases = {}
        if b"typedef" in source or b"using" in source:
            for m in _TYPEDEF.finditer(source):
                if m.group(1) in VECTOR_TYPES:
                    self.aliases[m.group(2)] = m.group(1)
            for m in _USING.finditer(source):
                if m.group(2) in VECTOR_TYPES:
                    self.aliases[m.group(1)] = m.group(2)
        self.known: dict[bytes, list[tuple[int, bytes, bool]]] = {}

    def of(self, name: bytes) -> list[tuple[int, bytes, bool]]:
        """(offset, type, pointer or array) of each declaration of `name`, in order."""
        found = self.known.get(name)
        if found is not None:
            return found
        found = []
        # the literal first: a fast scan (a lookbehind first would try every offset)
        declarator = re.compile(re.escape(name) + rb"(?![\w$])\s*(\[)?(?=\s*[,;=)\[({:])")
        for m in declarator.finditer(self.source):
            if m.start() and _word(self.source[m.start() - 1]):
                continue
            declared = _declared_by(self.source, m.start())
            if declared is not None and declared[0] not in _NOT_DECLARATIONS:
                kind = self.aliases.get(declared[0], declared[0])
                found.append((m.start(), kind, declared[1] or bool(m.group(1))))
        self.known[name] = found
        return found

    def element(self, name: bytes, at: int, indexed: bool) -> bytes | None:
        """The vector type of `name` (indexed: of its elements) at `at`; b"" when it certainly is none
        (a scalar, pointer arithmetic); None when the file does not say."""
        before = [d for d in self.of(name) if d[0] < at]
        if not before:
            return None
        _, kind, pointer = before[-1]
        if pointer and not indexed:
            return b""
        if kind in VECTOR_TYPES:
            return kind
        return b"" if kind in _SCALARS else None  # else a type not spelled here (a template parameter)


def _scalar_operand(rhs: bytes, kinds: _Declarations, at: int) -> bool:
    """The right operand is a literal or a variable the file declares as a scalar."""
    text = rhs.strip().rstrip(b")").strip()
    if re.fullmatch(rb"[-+]?(?:\d[\w.]*|\.\d\w*)", text):
        return True
    m = re.fullmatch(rb"([A-Za-z_]\w*)((?:\s*\[[^\[\]]*\])*)", text)
    if m is None:
        return False
    before = [d for d in kinds.of(m.group(1)) if d[0] < at]
    return bool(before) and before[-1][1] in _SCALARS and (bool(m.group(2)) or not before[-1][2])


def _word(byte: int) -> bool:
    return byte == 0x5F or 0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A


def _skip_space_back(src: bytes, i: int) -> int:
    """The index after the last non-blank byte before i."""
    while i > 0 and src[i - 1] in b" \t\r\n":
        i -= 1
    return i


def _word_back(src: bytes, end: int) -> int:
    start = end
    while start > 0 and _word(src[start - 1]):
        start -= 1
    return start


def _declared_by(src: bytes, at: int) -> tuple[bytes, bool] | None:
    """(type, pointer) when `TYPE [*&const __restrict__]*` stands right before offset `at`."""
    i, pointer = _skip_space_back(src, at), False
    while i > 0:
        if src[i - 1] in b"*&":
            pointer |= src[i - 1] == 0x2A
            i = _skip_space_back(src, i - 1)
            continue
        start = _word_back(src, i)
        if src[start:i] in (b"const", b"__restrict__", b"__restrict"):
            i = _skip_space_back(src, start)
            continue
        word = src[start:i]
        return (word, pointer) if word and not word[:1].isdigit() else None
    return None


def _left_operand_of(src: bytes, op: int) -> tuple[bytes, int, bool, bytes] | None:
    """(name, offset, subscripted, the byte before it: `.`/`>` member, `*` dereference) of `x`, `x[i]`,
    `p->x`, `*p` left of the operator at `op`."""
    i = _skip_space_back(src, op)
    subscripted = False
    while i > 0 and src[i - 1] == 0x5D:  # `]`: skip one balanced subscript
        depth, j = 0, i - 1
        while j >= 0:
            depth += (src[j] == 0x5D) - (src[j] == 0x5B)
            if depth == 0:
                break
            j -= 1
        if j < 0 or i - j > 200:
            return None
        subscripted, i = True, _skip_space_back(src, j)
    start = _word_back(src, i)
    if start == i or src[start : start + 1].isdigit():
        return None
    before = _skip_space_back(src, start)
    return src[start:i], start, subscripted, src[before - 1 : before] if before else b""
