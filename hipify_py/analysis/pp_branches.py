"""Preprocessor branches as hipcc sees them, for the pitfall detectors.

A small evaluator of `#if` conditions in three-valued logic (None = depends on a macro we do not know)
under two configurations: hipcc's device pass (HIP macros defined, every CUDA version/arch macro
undefined) and the device passes of current NVIDIA toolchains (several arch x CUDA version pairs).
It answers two questions:

- which branches hipcc never compiles (a condition that is certainly false on AMD), so detectors stay
  silent on code that cannot break the AMD build (`#if __CUDA_ARCH__ >= 900` + inline PTX);
- whether a condition on CUDA version/arch macros behaves on AMD as on current NVIDIA GPUs (then it is
  harmless, e.g. `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600`) or not (code silently dropped or
  entered).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from hipify_py.analysis.version_tests import (
    ERROR_LINE,
    TOOLKIT_COMPARE,
    VERSION_MACROS,
    backports,
    choices_to_open,
    current_toolkits_differ,
    error_branch,
    group_directives,
    hipcc_value,
    includes_only,
    names_version_in_code,
)
from hipify_py.data.detector_data import (
    HIP_PLATFORM_MACRO,
    LIBRARY_VERSION_MACROS,
    NVCC_FEATURE_MACROS,
    NVIDIA_COMPILER_TESTS,
    NVIDIA_ONLY_PROJECT_MACROS,
)
from hipify_py.engine.source import line_matches
from hipify_py.util.lazyre import compiled, lazy

Value = int | None  # None: unknown (a macro we cannot evaluate)

_DIRECTIVE = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)
# Macros whose value on AMD is known: these make a condition worth evaluating.
CUDA_MACROS = lazy(
    rb"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR|BUILD)__|__CUDA_ARCH__|__CUDA_ARCH_LIST__|"
    rb"__NVCC__|__CUDA_API_VERSION|__CUDA_ARCH_FEAT_\w+|__CUDA_ARCH_SPECIFIC__|__CUDA_ARCH_FAMILY_SPECIFIC__|"
    + LIBRARY_VERSION_MACROS
    + rb")\b"
)
HIP_DEFINED = (
    b"__HIPCC__",
    b"__HIP__",
    b"__HIP_PLATFORM_AMD__",
    b"__HIP_PLATFORM_HCC__",
    b"__HIP_PLATFORM_AMDGPU__",
    b"__HIP_DEVICE_COMPILE__",
    b"USE_ROCM",
    b"__CUDACC__",  # the translator renames it to __HIPCC__
    *NVCC_FEATURE_MACROS,  # the translator makes their tests hold on AMD (rules/nvcc_features.py)
)
# Current NVIDIA device passes: compute capability (True: the arch-specific `sm_90a` target, which
# defines __CUDA_ARCH_FEAT_SM90_ALL and __CUDA_ARCH_SPECIFIC__) x CUDA toolkit.
_ARCHS = ((800, False), (860, False), (890, False), (900, False), (900, True))
_FEATURE = lazy(rb"__CUDA_ARCH_FEAT_SM(\d+)\w*")
_TOOLKITS = ((11, 8), (12, 4), (12, 8), (13, 0))


class Env(NamedTuple):
    """Macro values: `defined` names (with a value, None when unknown) and names known to be undefined."""

    values: Mapping[bytes, Value]
    undefined: frozenset[bytes]

    def defined(self, name: bytes) -> bool | None:
        if name in self.values:
            return True
        if name in self.undefined:
            return False
        return None

    def value(self, name: bytes) -> Value:
        if name in self.values:
            return self.values[name]
        return 0 if name in self.undefined else None


_NVIDIA_ONLY = lazy(NVIDIA_ONLY_PROJECT_MACROS + rb"|__hipify_nvidia_compiler__")
_COMPILER_TEST = lazy(NVIDIA_COMPILER_TESTS)


def _cuda_names(condition_names: frozenset[bytes]) -> frozenset[bytes]:
    return frozenset(n for n in condition_names if CUDA_MACROS.fullmatch(n))


def _nvidia_only(condition_names: frozenset[bytes]) -> frozenset[bytes]:
    return frozenset(n for n in condition_names if _NVIDIA_ONLY.fullmatch(n))


def amd_env(extra_undefined: frozenset[bytes] = frozenset()) -> Callable[[frozenset[bytes]], Env]:
    """hipcc device pass: HIP macros defined, the CUDA macros of a condition undefined."""

    def make(names: frozenset[bytes]) -> Env:
        return Env({n: 1 for n in HIP_DEFINED}, _cuda_names(names) | _nvidia_only(names) | extra_undefined)

    return make


def nvidia_envs(names: frozenset[bytes]) -> Iterator[Env]:
    """Device passes of current NVIDIA toolchains (library versions: defined, value unknown)."""
    hip = frozenset(HIP_DEFINED) - {b"__CUDACC__", *NVCC_FEATURE_MACROS}  # features: as the build's flags say
    for (arch, specific), (major, minor) in itertools.product(_ARCHS, _TOOLKITS):
        cuda = major * 1000 + minor * 10
        undefined = set(hip)
        values: dict[bytes, Value] = {
            b"__CUDA_ARCH__": arch,
            b"CUDA_VERSION": cuda,
            b"CUDART_VERSION": cuda,
            b"__CUDA_API_VERSION": cuda,
            b"__CUDACC_VER_MAJOR__": major,
            b"__CUDACC_VER_MINOR__": minor,
            b"__CUDACC_VER_BUILD__": None,
            b"__NVCC__": 1,
            b"__CUDACC__": 1,
        }
        if specific:
            values[b"__CUDA_ARCH_SPECIFIC__"] = values[b"__CUDA_ARCH_FAMILY_SPECIFIC__"] = arch
        for n in _cuda_names(names):
            feature = _FEATURE.fullmatch(n)
            if feature is not None and specific and int(feature.group(1)) * 10 == arch:
                values[n] = 1
            elif feature is not None or n in (b"__CUDA_ARCH_SPECIFIC__", b"__CUDA_ARCH_FAMILY_SPECIFIC__"):
                if n not in values:
                    undefined.add(n)
            else:
                values.setdefault(n, None)  # CUBLAS_VERSION, __CUDA_ARCH_LIST__: defined, value unknown
        yield Env(values, frozenset(undefined))


# -- expression evaluation (C preprocessor grammar, three-valued) -----------------------------------
_TOKEN = lazy(
    rb"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%<>!~()?:,&|^]))"
)
_BINARY: tuple[tuple[bytes, ...], ...] = (
    (b"||",),
    (b"&&",),
    (b"|",),
    (b"^",),
    (b"&",),
    (b"==", b"!="),
    (b"<", b">", b"<=", b">="),
    (b"<<", b">>"),
    (b"+", b"-"),
    (b"*", b"/", b"%"),
)


def tokens(text: bytes) -> list[tuple[str, bytes]] | None:
    """('n', number) / ('i', identifier) / ('o', operator) tokens, or None when the text is not C."""
    out: list[tuple[str, bytes]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        kind = "n" if m.group(1) else "i" if m.group(2) else "o"
        out.append((kind, m.group(m.lastindex or 0)))
    return out


class _Parser:
    def __init__(self, toks: Sequence[tuple[str, bytes]], env: Env) -> None:
        self.toks, self.env, self.i = toks, env, 0

    def peek(self) -> bytes | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, bytes]:
        if self.i >= len(self.toks):
            raise ValueError("unexpected end")
        self.i += 1
        return self.toks[self.i - 1]

    def expect(self, text: bytes) -> None:
        if self.take()[1] != text:
            raise ValueError(f"expected {text!r}")

    def parse(self) -> Value:
        value = self.ternary()
        if self.i != len(self.toks):
            raise ValueError("trailing tokens")
        return value

    def ternary(self) -> Value:
        cond = self.binary(0)
        if self.peek() != b"?":
            return cond
        self.take()
        yes = self.ternary()
        self.expect(b":")
        no = self.ternary()
        if cond is None:
            return yes if yes == no else None
        return yes if cond else no

    def binary(self, level: int) -> Value:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = self.take()[1]
            right = self.binary(level + 1)
            left = _apply(op, left, right)
        return left

    def unary(self) -> Value:
        kind, text = self.take()
        if text == b"(":
            value = self.ternary()
            self.expect(b")")
            return value
        if text in (b"!", b"-", b"~", b"+"):
            value = self.unary()
            if value is None:
                return None
            return {b"!": int(not value), b"-": -value, b"~": ~value, b"+": value}[text]
        if kind == "n":
            return int(text, 0) if not text.startswith(b"0") or text[:2].lower() == b"0x" else int(text, 8)
        if kind != "i":
            raise ValueError("operand expected")
        if text == b"defined":
            paren = self.peek() == b"("
            if paren:
                self.take()
            kind, name = self.take()
            if paren:
                self.expect(b")")
            known = self.env.defined(name)
            return None if known is None else int(known)
        if self.peek() == b"(":  # function-like macro: value unknown, skip its arguments
            depth = 0
            while True:
                t = self.take()[1]
                depth += (t == b"(") - (t == b")")
                if depth == 0:
                    return None
        return self.env.value(text)


def _apply(op: bytes, a: Value, b: Value) -> Value:
    # Kleene logic: `0 && x` and `1 || x` are known whatever x is
    if op == b"&&":
        if a == 0 or b == 0:
            return 0
        return None if a is None or b is None else 1
    if op == b"||":
        if (a is not None and a != 0) or (b is not None and b != 0):
            return 1
        return None if a is None or b is None else 0
    if a is None or b is None:
        return None
    try:
        return int(
            {
                b"|": lambda: a | b,
                b"^": lambda: a ^ b,
                b"&": lambda: a & b,
                b"==": lambda: a == b,
                b"!=": lambda: a != b,
                b"<": lambda: a < b,
                b">": lambda: a > b,
                b"<=": lambda: a <= b,
                b">=": lambda: a >= b,
                b"<<": lambda: a << b if 0 <= b < 64 else None,
                b">>": lambda: a >> b if 0 <= b < 64 else None,
                b"+": lambda: a + b,
                b"-": lambda: a - b,
                b"*": lambda: a * b,
                b"/": lambda: a // b if b else None,
                b"%": lambda: a % b if b else None,
            }[op]()
        )
    except TypeError:  # a shift out of range gave None
        return None


def evaluate(toks: Sequence[tuple[str, bytes]], env: Env) -> Value:
    try:
        return _Parser(toks, env).parse()
    except (ValueError, KeyError, IndexError):
        return None


@functools.lru_cache(maxsize=4096)
def _nvidia_values(toks: tuple[tuple[str, bytes], ...]) -> frozenset[Value]:
    """The condition's values over every NVIDIA toolchain pass (~20 of them): a pure function of the
    tokens, and the same `#if __CUDA_ARCH__ >= 700` recurs throughout a code base."""
    names = frozenset(text for kind, text in toks if kind == "i")
    return frozenset(evaluate(toks, env) for env in nvidia_envs(names))


_COMMENT = lazy(rb"/\*.*?\*/|//[^\n]*", re.S)
_PRAGMA_ONLY = lazy(rb"#\s*(?:pragma|if|ifdef|ifndef|elif|else|endif)\b|_Pragma\s*\(")


class Condition(NamedTuple):
    start: int  # offset of the directive line
    kind: bytes  # if / ifdef / ifndef / elif
    names: frozenset[bytes]
    toks: list[tuple[str, bytes]] | None


def _condition(kind: bytes, text: bytes) -> list[tuple[str, bytes]] | None:
    text = _COMMENT.sub(b" ", text.replace(b"\\\n", b" ").replace(b"\\\r\n", b" "))
    text = _COMPILER_TEST.sub(b" __hipify_nvidia_compiler__ ", text)
    if kind in (b"ifdef", b"ifndef"):
        name = text.split()[0] if text.split() else b""
        toks = [("i", b"defined"), ("o", b"("), ("i", name), ("o", b")")]
        return [("o", b"!"), *toks] if kind == b"ifndef" else toks
    return tokens(text)


def _logical_end(source: bytes, pos: int) -> int:
    end = source.find(b"\n", pos)
    while end != -1 and source[max(0, end - 2) : end].rstrip(b"\r").endswith(b"\\"):
        end = source.find(b"\n", end + 1)
    return len(source) if end == -1 else end


def directives(source: bytes) -> Iterator[tuple[int, int, bytes, bytes]]:
    """(line start, line end, kind, condition text) of each conditional directive."""
    for m in line_matches(_DIRECTIVE, source):
        end = _logical_end(source, m.end())
        yield m.start(), end, m.group(1), source[m.end() : end]


class Branches:
    """Per file: spans hipcc never compiles, and the AMD/NVIDIA values of CUDA-macro conditions.

    why a plain class, not a dataclass: see engine/options.py"""

    def __init__(
        self,
        dead: list[tuple[int, int]],
        amd: dict[int, Value],  # directive line start -> condition value under hipcc
        nvidia: dict[int, set[Value]],  # directive line start -> values under current NVIDIA toolchains
        shadowed: set[int],  # `#elif` lines hipcc never evaluates (an earlier branch is taken on AMD)
        bodies: dict[int, tuple[int, int]],  # evaluated directive line start -> its code up to the #endif
    ) -> None:
        self.dead, self.amd, self.nvidia, self.shadowed, self.bodies = dead, amd, nvidia, shadowed, bodies
        # directive line start -> its value under hipcc before the translation sent ROCm the other way
        # (a version test whose hipcc branch reaches an #error: rules/version_errors.py)
        self.opened: dict[int, Value] = {}
        # directive line start -> its toolkit comparisons ROCm now decides as current toolkits do
        # (analysis/toolkit_atoms.AtomTest; Context.branches fills it)
        self.atoms: dict[int, Any] = {}

    def only_pragmas(self, source: bytes, line_start: int) -> bool:
        """The branch of the directive at line_start holds nothing but pragmas (`#pragma nv_diag_suppress`):
        whichever way the condition goes, the program is the same."""
        body = self.bodies.get(line_start)  # up to the #endif: later #elif/#else branches count too
        if body is None:
            return False
        text = _COMMENT.sub(b" ", source[body[0] : body[1]].replace(b"\\\n", b" "))
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return bool(lines) and all(_PRAGMA_ONLY.match(line) for line in lines)

    def harmless(self, line_start: int) -> bool:
        """The condition at line_start selects on AMD what it selects on every current NVIDIA GPU."""
        if line_start in self.shadowed:
            return True
        amd, nvidia = self.amd.get(line_start), self.nvidia.get(line_start)
        return (
            amd is not None
            and nvidia is not None
            and {None if v is None else bool(v) for v in nvidia} == {bool(amd)}
        )


def analyse(
    source: bytes,
    known_undefined: frozenset[bytes] = frozenset(),
    hip6: bool = False,
    headers: frozenset[bytes] = frozenset(),
    lacking: frozenset[bytes] = frozenset(),
    overrides: Mapping[int, Value] | None = None,
    known: frozenset[bytes] = frozenset(),
) -> Branches:
    """Evaluate every conditional whose condition names a CUDA/HIP macro with a known AMD value.

    A CUDA version test whose branch under hipcc reaches an `#error` while the other branch does not
    (HIP145), or a comparison of the CUDA toolkit's version that every current toolkit decides the same
    way and hipcc the other (HIP147, only where `hip6`: a target HIP from 6.0, unless the branch hipcc
    would take names the version macro in code), is taken the other way (rules/version_errors.py
    rewrites it so): `Branches.opened`. `headers`: CUDA headers the target has (`includes_only`);
    `lacking`: the file's CUDA names with no HIP counterpart, which HIP147 opens no test toward.
    `overrides`: directive line start -> its value under hipcc as the translation rewrites it (its toolkit
    comparisons decided as current toolkits do: analysis/toolkit_atoms.py). `known`: the file's names the
    tables know (CUDA's own API), which a block for old toolkits may #define (version_tests.backports)."""
    overrides = overrides or {}
    first = _analyse(source, known_undefined, {}, overrides)
    if ERROR_LINE.search(source) is None and TOOLKIT_COMPARE.search(source) is None:
        return first
    opened = _opened(source, first, hip6, headers, lacking, known)
    result = first
    for _ in range(4):  # an #elif hipcc reaches only once its #if is opened: one more pass per level
        if not opened:
            break
        result = _analyse(source, known_undefined, opened, overrides)
        again = _opened(source, result, hip6, headers, lacking, known)
        more = {k: v for k, v in again.items() if k not in opened}
        if not more:
            break
        opened = {**opened, **more}
    return result


def _opened(
    source: bytes,
    first: Branches,
    hip6: bool,
    headers: frozenset[bytes],
    lacking: frozenset[bytes],
    known: frozenset[bytes],
) -> dict:
    """Directive line start -> its value under hipcc, for the version tests the translation opens."""
    opened: dict[int, Value] = {}
    toolkit: list[tuple[int, int, bytes, Value]] = []  # HIP147 candidates, decided per condition below
    for start, end, kind, text in directives(source):
        amd = hipcc_value(kind, first.amd.get(start), first.nvidia.get(start), text)
        if amd is None or kind == b"else" or start in first.shadowed or not VERSION_MACROS.search(text):
            continue
        if HIP_PLATFORM_MACRO.search(text) or any(a <= start < b for a, b in first.dead):
            continue
        if error_branch(source, end, not amd) is not None:
            continue  # never into an #error
        if error_branch(source, end, bool(amd)) is not None:
            opened[start] = amd
            newer = newer_toolkit_elif(source, end) if amd else None
            if newer is not None:
                opened[newer] = False  # ROCm takes it, as current toolkits do (HIP145 opens it too)
        elif kind == b"if" and current_toolkits_differ(amd, first.nvidia.get(start), text):
            if names_version_in_code(source, end, bool(amd)):
                opened[start] = amd  # what hipcc would take cannot compile there: any shape, any target
            elif amd and backports(source, end, known):
                opened[start] = amd  # `#if CUDA_VERSION < 4010 #define CUDA_ERROR_ASSERT 710`: any target
            elif hip6 and not amd and includes_only(source, end, headers):
                opened[start] = amd  # `#if CUDART_VERSION >= 11000 #include <cuda_bf16.h> #endif`
            elif hip6:
                toolkit.append((start, end, text, amd))
    opened.update(choices_to_open(source, toolkit, lacking))
    return opened


# `#elif CUDART_VERSION >= 11050`: a branch for toolkits from that version on
_NEWER_TEST = lazy(rb"\s*\(?\s*(?:" + VERSION_MACROS.pattern + rb")\s*>=?\s*\d+[uUlL]*\s*\)?\s*")


def newer_toolkit_elif(source: bytes, line_end: int) -> int | None:
    """`#ifndef CUDART_VERSION / #error / #elif CUDART_VERSION >= N`: once ROCm skips the #error branch
    (the macro is undefined under hipcc), the `#elif` right after it, a test for toolkits from version N
    on, is false there too and ROCm would fall to the branch for old toolkits. Its line start, or None."""
    for m in group_directives(source, line_end):
        if m.group(1) == b"elif":
            end = _logical_end(source, m.end())
            condition = _COMMENT.sub(b" ", source[m.end() : end])
            return m.start() if _NEWER_TEST.fullmatch(condition) else None
        if m.group(1) != b"error":
            return None
    return None


def _analyse(
    source: bytes,
    known_undefined: frozenset[bytes],
    opened: Mapping[int, Value],
    overrides: Mapping[int, Value],
) -> Branches:
    interesting = compiled(  # why not re.compile: ~10 ms to compile, the same in every run
        CUDA_MACROS.pattern
        + rb"|\b(?:"
        + NVIDIA_ONLY_PROJECT_MACROS
        + b"|"
        + b"|".join(re.escape(n) for n in (*HIP_DEFINED, *sorted(known_undefined)))
        + rb")\b"
    )
    make_amd = amd_env(known_undefined)
    result = Branches([], {}, {}, set(), {})
    result.opened = dict(opened)
    # stack of open #if chains: [body start, value of the current branch on AMD, any branch taken,
    # (directive start, body start) of the evaluated directives of the chain]
    stack: list[list[object]] = []
    for start, end, kind, text in directives(source):
        if kind in (b"if", b"ifdef", b"ifndef", b"elif"):
            value: Value = None
            if interesting.search(text):
                toks = _condition(kind, text)
                if toks is not None:
                    names = frozenset(t for k, t in toks if k == "i")
                    value = evaluate(toks, make_amd(names))
                    if start in opened:
                        value = 0 if value else 1
                    elif start in overrides:
                        value = overrides[start]
                    result.amd[start] = value
                    if CUDA_MACROS.search(text):
                        result.nvidia[start] = set(_nvidia_values(tuple(toks)))
            if kind == b"elif" and stack:
                _close(stack[-1], start, result)
                frame = stack[-1]
                taken = frame[2]
                if taken == 1:
                    result.shadowed.add(start)
                frame[0], frame[1] = end, (0 if taken == 1 else value)
                if start in result.amd:
                    frame[3].append((start, end))  # type: ignore[union-attr]
                frame[2] = 1 if taken == 1 or value not in (0, None) else (None if value is None else taken)
            elif kind != b"elif":
                evaluated = [(start, end)] if start in result.amd else []
                stack.append(
                    [end, value, 1 if value not in (0, None) else (None if value is None else 0), evaluated]
                )
        elif kind == b"else" and stack:
            frame = stack[-1]
            _close(frame, start, result)
            taken = frame[2]
            frame[0], frame[1] = end, (0 if taken == 1 else 1 if taken == 0 else None)
        elif kind == b"endif" and stack:
            frame = stack.pop()
            _close(frame, start, result)
            for directive, body in frame[3]:  # type: ignore[attr-defined]
                result.bodies[directive] = (body, start)
    return result


def _close(frame: list[object], at: int, result: Branches) -> None:
    if frame[1] == 0:
        result.dead.append((int(frame[0]), at))  # type: ignore[call-overload]


_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def dead_branches(
    source: bytes,
    undefined: frozenset[bytes] = frozenset(),
    hip6: bool = False,
    headers: frozenset[bytes] = frozenset(),
    lacking: frozenset[bytes] = frozenset(),
    overrides: Mapping[int, Value] | None = None,
    known: frozenset[bytes] = frozenset(),
) -> Branches:
    """`analyse`, then once more with the macros this file defines only inside dead branches
    (CUTLASS: `#if __CUDA_ARCH__ >= 900` -> `#define CUTE_ARCH_MMA_SM90A_ENABLED`, tested 300 times).
    `undefined`: more macros undefined under hipcc (guards of CUDA headers with no HIP counterpart,
    mappings/guards.yaml). `hip6`, `headers`, `lacking`, `overrides`, `known`: see `analyse`."""
    first = analyse(source, undefined, hip6, headers, lacking, overrides, known)
    if not first.dead:
        return first
    inside: dict[bytes, bool] = {}
    spans = sorted(first.dead)
    for m in _DEFINE.finditer(source):
        dead = any(a <= m.start() < b for a, b in spans)
        inside[m.group(1)] = inside.get(m.group(1), True) and dead
    only_dead = frozenset(n for n, dead in inside.items() if dead and not CUDA_MACROS.fullmatch(n))
    if not only_dead:
        return first
    return analyse(source, only_dead | undefined, hip6, headers, lacking, overrides, known)
