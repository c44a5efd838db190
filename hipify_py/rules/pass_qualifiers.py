"""A function qualifier macro that nvcc's device pass alone makes `__device__` -> `__host__ __device__`
in both of hipcc's passes (HIP233).

`#ifdef __CUDA_ARCH__ / #define QUAL __device__ / #endif` (Random123's R123_CUDA_DEVICE, in GOMC and
every code that vendors it; `#define SCOPE __device__ __host__` with `#else #define SCOPE`): under nvcc a
function marked QUAL is a host function in the host pass and a device function in the device pass, so
host and device code both call it. clang checks calls across the host/device boundary in both passes:
in the host pass a `__device__` function calling it finds a host function ("no viable overloaded
operator[]", "call to __host__ function from __device__ function"), in the device pass a host function
finds a device one. The same function, callable from both sides, is `__host__ __device__` in clang.

After the #if group, under `defined(__HIP__)` (hipcc's AMD passes; nvcc, HIP on NVIDIA and a plain
host compiler keep the project's definitions), the macro is defined again as `__host__ __device__` with
the device definition's other words (`__forceinline__`). Only a macro whose device definition is
qualifiers and inline words alone, in the branch nvcc's device pass takes of an `#ifdef __CUDA_ARCH__`,
`#if defined(__CUDA_ARCH__)` or `#ifndef __CUDA_ARCH__ ... #else` group, whose other branch does not
define it with `__device__` too. `__host__` on a variable is ignored by clang (a warning), so a
variable marked so is a `__device__` one with its host shadow, as nvcc's two definitions were.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipify_py.analysis.arch_tests import Directive, groups
from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.lexer import COMMENT
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_ARCH = b"__CUDA_ARCH__"
_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*?)[ \t]*$", re.MULTILINE)
_WORDS = frozenset({b"__device__", b"__host__", b"__forceinline__", b"inline", b"__inline__", b"static"})


def _device_branch(chain: list[Directive]) -> tuple[int, int, int, int] | None:
    """(device branch start, end, host branch start, end) of a two-way `__CUDA_ARCH__` presence group,
    or None. The host branch is empty (start == end) when the group has no #else."""
    if len(chain) not in (2, 3) or chain[-1][2] != b"endif" or (len(chain) == 3 and chain[1][2] != b"else"):
        return None
    kind, condition = chain[0][2], COMMENT.sub(b" ", chain[0][3]).split()
    text = b"".join(condition).replace(b"(", b"").replace(b")", b"")
    if kind in (b"ifdef", b"ifndef"):
        device_first = kind == b"ifdef" and text == _ARCH
        if text != _ARCH:
            return None
    elif kind == b"if" and text in (b"defined" + _ARCH, b"!defined" + _ARCH):
        device_first = not text.startswith(b"!")
    else:
        return None
    first = (chain[0][1], chain[1][0])
    second = (chain[1][1], chain[2][0]) if len(chain) == 3 else (chain[1][0], chain[1][0])
    if device_first:
        return (*first, *second)
    return None if len(chain) == 2 else (*second, *first)


def _definitions(source: bytes, start: int, end: int) -> Iterator[tuple[int, bytes, list[bytes]]]:
    for m in _DEFINE.finditer(source, start, end):
        words = COMMENT.sub(b" ", m.group(2)).split()
        yield m.start(1), m.group(1), words


def _qualifier_macros(ctx: Context) -> Iterator[tuple[int, int, bytes, list[bytes]]]:
    """(#endif line end, name offset, name, device-pass words) of each macro to define again."""
    src = ctx.source
    for chain in groups(src):
        spans = _device_branch(chain)
        if spans is None:
            continue
        device_at, device_end, host_at, host_end = spans
        host_device = {
            name for _, name, words in _definitions(src, host_at, host_end) if b"__device__" in words
        }
        endif_end = src.find(b"\n", chain[-1][1])
        for at, name, words in _definitions(src, device_at, device_end):
            if b"__device__" not in words or not set(words) <= _WORDS or name in host_device:
                continue
            if ctx.is_protected(at) or endif_end < 0:
                continue
            yield endif_end + 1, at, name, words


def define_for_both_passes(ctx: Context) -> RuleResult:
    result = RuleResult()
    if _ARCH not in ctx.source or b"define" not in ctx.source:
        return result
    for insert_at, at, name, words in _qualifier_macros(ctx):
        rest = [w for w in words if w not in (b"__device__", b"__host__")]
        body = b" ".join([b"__host__", b"__device__", *rest])
        block = (
            b"#if defined(__HIP__) /* hipify-py: clang checks host/device calls in both passes */\n"
            b"#undef " + name + b"\n#define " + name + b" " + body + b"\n#endif\n"
        )
        result.edits.append(Edit(insert_at, insert_at, block))
        message = (
            f"`{name.decode()}` makes functions `__device__` in nvcc's device pass only: nvcc's host pass "
            "sees host functions, hipcc's passes both check host/device calls, so it is "
            "`__host__ __device__` under hipcc"
        )
        result.diagnostics.append(ctx.diag("HIP233", at, at + len(name), message))
        result.counts["pass_qualifiers"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={44: define_for_both_passes},
    texts=(
        Rule(
            "HIP233",
            "pass-dependent-qualifier",
            Severity.INFO,
            "A qualifier macro that is `__device__` in nvcc's device pass only is `__host__ __device__` "
            "under hipcc",
            "Nothing to do; where the macro marks variables, check that host code does not rely on a host "
            "copy of its own.",
            "`#ifdef __CUDA_ARCH__ #define QUAL __device__ #endif` (Random123's R123_CUDA_DEVICE) makes "
            "a function a host function in nvcc's host pass and a device function in its device pass, so "
            "both sides call it. clang checks calls across the host/device boundary in both of its "
            "passes: a `__device__` function calling it fails in the host pass ('no viable overloaded "
            "operator[]', 'call to __host__ function from __device__ function'), a host function in the "
            "device pass. After the #if group the macro is defined again under `defined(__HIP__)` as "
            "`__host__ __device__` with the device definition's other words: the function both sides "
            "could call under nvcc. nvcc, HIP on NVIDIA and plain host compilers keep the project's "
            "definitions.",
        ),
    ),
    fixtures=("guards/pass_qualifiers*",),
)
