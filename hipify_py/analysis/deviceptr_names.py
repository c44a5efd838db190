"""Names a file or its headers declare with CUDA's CUdeviceptr as their type: variables, members,
parameters, and functions that return one (`CUdeviceptr& getDevicePointer()`). A header that an
in-place run has converted already declares them as hipDeviceptr_t: the same names.

CUdeviceptr is an unsigned integer, and driver-API code adds offsets to it (`pointer + offset`,
`b->cuPtr + offset`: OpenMM, OCCA); HIP's hipDeviceptr_t is `void*` on AMD, on which clang rejects
arithmetic. rules/deviceptr_arith.py finds such sums by these names. A name the same text also declares
with another type (`char* ptr` beside `CUdeviceptr ptr`) is not one of them: a use could be either.
"""

from __future__ import annotations

import re

from hipify_py.util.lazyre import lazy

# `CUdeviceptr [const] [&] name` then what may follow a declared name: `;` `=` `,` `)` `[` `{`, or a
# function's `(...)` (its parameters) followed by a body or `;`; `CUdeviceptr* p` (a pointer to one) is not
_DECLARED = lazy(
    rb"\b(?:CUdeviceptr(?:_v2)?|hipDeviceptr_t)\b[ \t]*(?:const\b[ \t]*)?(?:&[ \t]*)?([A-Za-z_]\w*)[ \t]*"
    rb"(?=[;=,)\[{]|\([^;{}()]*\)[ \t]*(?:const\b[ \t]*)?(?:override\b[ \t]*)?[{;])"
)
# `CUdeviceptr a, b;`: the names after the first
_MORE = lazy(rb"[ \t]*,[ \t]*([A-Za-z_]\w*)[ \t]*(?=[;=,])")


def declared(text: bytes) -> frozenset[bytes]:
    """The names `text` declares with the type CUdeviceptr, less those it also declares otherwise."""
    if b"CUdeviceptr" not in text and b"hipDeviceptr_t" not in text:
        return frozenset()
    names: set[bytes] = set()
    for m in _DECLARED.finditer(text):
        names.add(m.group(1))
        at = m.end()
        while (more := _MORE.match(text, at)) is not None:
            names.add(more.group(1))
            at = more.end()
    return frozenset(name for name in names if not _declared_otherwise(text, name))


def _declared_otherwise(text: bytes, name: bytes) -> bool:
    """`T* name`, `T name` with T not CUdeviceptr (`char* ptr;`, `void* ptr = ...`)."""
    other = re.compile(
        rb"\b(?!CUdeviceptr\b|CUdeviceptr_v2\b|hipDeviceptr_t\b|return\b|const\b|else\b|case\b|goto\b|delete\b|new\b)"
        rb"([A-Za-z_][\w:<>]*)[ \t]*[*&]*[ \t]*(?:const\b[ \t]*)?[*&]*[ \t]*"
        + re.escape(name)
        + rb"[ \t]*[;=,)\[]"
    )
    return other.search(text) is not None


def used(source: bytes, names: frozenset[bytes]) -> frozenset[bytes]:
    """The `names` (declared elsewhere) that `source` uses as words and does not declare otherwise."""
    return frozenset(
        name
        for name in names
        if name in source
        and re.search(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", source)
        and not _declared_otherwise(source, name)
    )
