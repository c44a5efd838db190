"""The `#if` groups whose `__CUDA_ARCH__` presence tests the translation widens to HIP's device pass
(rules/device_pass.py writes them, HIP143): a per-file fact the rules that must know which code hipcc
compiles share, below the rules. nvcc defines __CUDA_ARCH__ in its device passes only; hipcc defines
__HIP_DEVICE_COMPILE__ there. A group is widened where every __CUDA_ARCH__ test of a condition is a
presence test and the group holds nothing NVIDIA-only (inline assembly without a HIP equivalent,
`#pragma nv_*`, wmma, nested arch tests, a CUDA API without a HIP counterpart)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from hipify_py.analysis.pp_branches import directives
from hipify_py.analysis.ptx_text import without_equivalents
from hipify_py.data.detector_data import HIP_PLATFORM_MACRO
from hipify_py.engine.lexer import COMMENT, IDENTIFIER
from hipify_py.util.lazyre import lazy

NVIDIA_ONLY = lazy(
    rb"\b(?:asm|__asm__|__asm|nvcuda|__CUDA_ARCH__|__nvvm\w*)\b|^[ \t]*#[ \t]*pragma[ \t]+(?:nv_|diag_)", re.M
)
_NAME = b"__CUDA_ARCH__"
_PRESENCE = lazy(rb"defined\s*\(\s*__CUDA_ARCH__\s*\)|defined\s+__CUDA_ARCH__\b")
_ANY = lazy(rb"\b__CUDA_ARCH__\b")

Directive = tuple[int, int, bytes, bytes]


def groups(source: bytes) -> Iterator[list[Directive]]:
    """The directives of each complete #if ... #endif group (innermost groups first)."""
    stack: list[list[Directive]] = []
    for directive in directives(source):
        kind = directive[2]
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append([directive])
        elif stack:
            stack[-1].append(directive)
            if kind == b"endif":
                yield stack.pop()


def presence_spans(directive: Directive, source: bytes) -> list[tuple[int, int]] | None:
    """Spans to replace for the presence tests of __CUDA_ARCH__ in one condition (for #ifdef/#ifndef:
    from the keyword to the name), or None when the condition uses the macro otherwise (a comparison,
    a value) or already tests a HIP macro."""
    start, end, kind, text = directive
    at = end - len(text)  # where the condition text starts
    code = COMMENT.sub(lambda m: b" " * len(m.group()), text)  # offsets kept
    if _NAME not in code or HIP_PLATFORM_MACRO.search(code):
        return None
    if kind in (b"ifdef", b"ifndef"):
        if code.split() != [_NAME]:
            return None
        keyword = source.rindex(kind, start, at)
        return [(keyword, at + code.index(_NAME) + len(_NAME))]
    if kind not in (b"if", b"elif"):
        return None
    tests = [(at + m.start(), at + m.end()) for m in _PRESENCE.finditer(code)]
    return tests if tests and len(tests) == len(_ANY.findall(code)) else None


Widened = tuple[list[Directive], list[tuple[Directive, list[tuple[int, int]]]]]


def widened(src: bytes, lacking: frozenset[bytes], is_protected: Callable[[int], bool]) -> Iterator[Widened]:
    """The #if groups whose __CUDA_ARCH__ presence tests are widened, with those tests' spans.
    `lacking`: the file's CUDA names with no HIP counterpart (Context.lacking_names); `is_protected`:
    Context.is_protected (a HIP branch or a hipify-py: off region is left as it is)."""
    if _NAME not in src:
        return
    for chain in groups(src):
        tests = [(d, spans) for d in chain if (spans := presence_spans(d, src))]
        if not tests:
            continue
        body = b"".join(src[a[1] : b[0]] for a, b in itertools.pairwise(chain))
        body = COMMENT.sub(b" ", body)
        if b"asm" in body:  # assembly with a HIP equivalent is not NVIDIA-only: it is rewritten
            body = without_equivalents(body)
        if NVIDIA_ONLY.search(body) is not None or unported(lacking, body):
            continue
        if any(is_protected(d[0]) for d, _ in tests):
            continue
        yield chain, tests


def unported(lacking: frozenset[bytes], body: bytes) -> bool:
    """The branch names a CUDA API HIP lacks (cudaDeviceFlushGPUDirectRDMAWrites): nvcc-only code. A name
    the target renames (`__trap` -> `__builtin_trap`) is ported (`lacking`: Context.lacking_names): else
    the decision would change once the rename is written (a second run would differ)."""
    return bool(lacking) and not lacking.isdisjoint(IDENTIFIER.findall(body))
