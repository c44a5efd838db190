"""A CUDA toolkit comparison inside a condition the project's own macros decide: the `#if`s where ROCm
decides the comparison as every current toolkit does (HIP147, written by rules/version_atoms.py).

`#if (defined(SPFFT_CUDA) && (CUDART_VERSION >= 10000)) || (defined(SPFFT_ROCM) && HIP_VERSION_MAJOR >= 6)`
(SpFFT), `#if (CUDART_VERSION >= 9000) && !defined(WITH_CUCUB)` (ELPA): whether the whole test holds
depends on the project's switches, which the translation cannot know, so version_errors.py does not open
it; but with the switches set as the CUDA build sets them, hipcc (CUDART_VERSION undefined, 0) compiles
the branch for toolkits older than any supported one, or drops code current toolkits compile. Where every
current toolkit (11.8-13.0) decides such a comparison one way and hipcc the other, the comparison alone
is written `(CUDART_VERSION >= 10000 || defined(__HIP_PLATFORM_AMD__))` (or `&& !defined(...)`): with
any values of the switches ROCm takes the branch current CUDA takes, and HIP's NVIDIA platform still tests
CUDA's macros. Under the same limits as the whole-condition case (version_tests.choices_to_open), for a
target from ROCm 6.0 (HIP's API cleanup that followed CUDA's). The file's branch analysis is redone with
these conditions decided so (Context.branches), so that every rule sees what ROCm now compiles.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from hipify_py.analysis.pp_branches import Branches, Env, Value, directives, evaluate, nvidia_envs, tokens
from hipify_py.analysis.version_tests import choices_to_open
from hipify_py.util.lazyre import lazy

_TOOLKIT = rb"(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR)__|__CUDA_API_VERSION)\b"
_NUMBER = rb"\d+[uUlL]*\b"
_OP = rb"(?:[<>]=?|[!=]=)"
# `CUDART_VERSION >= 10000` or `10000 <= CUDART_VERSION`, not already followed by our own widening
_FORWARD = _TOOLKIT + rb"\s*" + _OP + rb"\s*" + _NUMBER
_BACKWARD = _NUMBER + rb"\s*" + _OP + rb"\s*" + _TOOLKIT
ATOM = lazy(
    rb"\b(?:"
    + _FORWARD
    + rb"|"
    + _BACKWARD
    + rb")(?!\s*(?:\|\||&&)\s*!?\s*defined\s*\(\s*__HIP_PLATFORM_AMD__)"
)
_COMMENT = lazy(rb"/\*.*?\*/|//[^\n]*", re.S)


class Atom(NamedTuple):
    start: int  # offsets in the file
    end: int
    way: bool  # its value on every current toolkit, which ROCm now takes


class AtomTest(NamedTuple):
    atoms: tuple[Atom, ...]
    value: Value  # the condition under hipcc once its atoms are decided (None: the switches decide)


def current(atom: bytes) -> bool | None:
    """The comparison's value on every current toolkit where they all agree and hipcc decides it the
    other way; None otherwise."""
    toks = tokens(atom)
    if toks is None:
        return None
    names = frozenset(text for kind, text in toks if kind == "i")
    values = {evaluate(toks, env) for env in nvidia_envs(names)}
    if None in values or len({bool(v) for v in values}) != 1:
        return None
    nvidia = bool(next(iter(values)))
    hipcc = evaluate(toks, Env({}, names))  # undefined under hipcc: 0 in #if
    return nvidia if hipcc is not None and bool(hipcc) != nvidia else None


def opened_atoms(
    source: bytes,
    branches: Branches,
    lacking: frozenset[bytes],
    hipcc: Callable[[frozenset[bytes]], Env],
    protected: Callable[[int], bool],
) -> dict[int, AtomTest]:
    """`#if` line start -> its atoms and new value, for the conditions ROCm now decides as current toolkits
    do. `hipcc`: the macro values of hipcc's passes (pp_branches.amd_env); `protected`: a directive the
    translation leaves as written."""
    candidates = []
    for start, end, kind, text in directives(source):
        if kind != b"if" or start in branches.opened or b"\\\n" in text:
            continue
        # hipcc's value unknown (`||` with a switch), or known (`&& !defined(WITH_CUCUB)`: 0) where the
        # switches decide it on current toolkits
        if branches.amd.get(start) is not None and None not in branches.nvidia.get(start, {None}):
            continue
        if protected(start) or any(a <= start < b for a, b in branches.dead):
            continue
        at = end - len(text)
        atoms = [
            Atom(at + m.start(), at + m.end(), way)
            for m in ATOM.finditer(text)
            if (way := current(m.group())) is not None
        ]
        if atoms:
            candidates.append((start, end, text, atoms))
    found = [(s, e, t, _before(atoms)) for s, e, t, atoms in candidates]
    chosen = choices_to_open(source, found, lacking, branches.opened)
    return {
        start: AtomTest(tuple(atoms), _after(source, text, end - len(text), atoms, hipcc))
        for start, end, text, atoms in candidates
        if start in chosen
    }


def _before(atoms: list[Atom]) -> Value:
    """The condition's hipcc value as far as choices_to_open needs it: 0 where every comparison now holds
    on ROCm (the #if branch may newly be taken), 1 where none does, unknown where they differ."""
    ways = {a.way for a in atoms}
    return None if len(ways) != 1 else int(not ways.pop())


def _after(
    source: bytes, text: bytes, at: int, atoms: list[Atom], hipcc: Callable[[frozenset[bytes]], Env]
) -> Value:
    """The condition's value under hipcc with each atom replaced by its current toolkits' value."""
    parts, pos = [], at
    for atom in atoms:
        parts += [source[pos : atom.start], b" 1 " if atom.way else b" 0 "]
        pos = atom.end
    parts.append(source[pos : at + len(text)])
    toks = tokens(_COMMENT.sub(b" ", b"".join(parts)))
    if toks is None:
        return None
    return evaluate(toks, hipcc(frozenset(t for k, t in toks if k == "i")))
