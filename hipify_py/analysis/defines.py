"""The macros a file #defines and the option macros its code needs: the per-file half of the
project-wide decision (project/option_macros.py settles the findings once the whole run is seen).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hipify_py.engine.source import line_matches
from hipify_py.util.lazyre import lazy

# Option macros: a project's SCREAMING_CASE names. Not the compiler's (`__x`, `_X`, `linux`), not HIP's
# or ROCm's, not the C/C++/POSIX/MPI/OpenMP headers' (these are defined without the project saying so).
_OPTION = lazy(rb"[A-Z][A-Z0-9_]*")
_LIBRARY = lazy(
    rb"(?:HIP|ROC|RCCL|MIOPEN|HIPCUB|THRUST|CUB|MPI|OMPI|MPICH|OMP|M|FLT|DBL|LDBL|INT\d*|UINT\d*|INTMAX|UINTMAX|"
    rb"INTPTR|UINTPTR|SIZE|SSIZE|PTRDIFF|CHAR|SCHAR|UCHAR|SHRT|USHRT|LONG|ULONG|LLONG|ULLONG|WCHAR|WINT|"
    rb"SIG|SIG_ATOMIC|RAND|EXIT|CLOCKS|CLOCK|PATH|FP|MATH|HUGE|EOF|BUFSIZ|FILENAME|FOPEN|TMP|SEEK|O|S|"
    rb"MAP|PROT|E|NAME|PIPE|STDIN|STDOUT|STDERR|TIME|TIMER|POSIX|XOPEN|GNU|GLIBC|LINUX|WIN32|WIN64|APPLE|"
    rb"BYTE|LITTLE|BIG|PDP|FE|EIGEN|BOOST|GTEST|TEST|CL|GL|GLEW|GLFW|OPENCL|SYCL|KOKKOS|NDEBUG|DEBUG)"
    rb"(?:_\w*)?|INFINITY|NAN|NULL|TRUE|FALSE|CHAR_BIT|MB_LEN_MAX|RAND_MAX|BUFSIZ"
)
# NDEBUG/DEBUG: build types define them without a visible -D (CMake's Release adds -DNDEBUG).


# Reserved names no compiler here defines (`__PTX__`, `__BORLANDC__`, and projects' own options in that
# form: cp2k's `__OFFLOAD_HIP`) are options too, given the names the target hipcc can define
# (data/predefined.py); never the toolchains' own families, whose members vary with versions and flags
# (`__CUDACC_RDC__`, `__GFX13__`), nor C's `__STDC_VERSION__` (C files).
_RESERVED = lazy(rb"__[A-Z][A-Z0-9_]*")
_TOOLCHAIN = lazy(
    rb"__(?:CUDA|CUDACC|NVCC|NV|HIP|ROCM|AMD|GFX|CLANG|GNU|GCC|GXX|LLVM|INTEL|STDC|WIN|MINGW|CYGWIN)\w*"
)


def is_option(
    name: bytes, known: Callable[[bytes], bool] = lambda _: False, predefined: frozenset[bytes] | None = None
) -> bool:
    """A macro a project's own build decides (`PTX`, `USE_CUDNN`); `known`: names of CUDA's API;
    `predefined`: the reserved names the target hipcc can define (None: reserved names are not options)."""
    if predefined is not None and _RESERVED.fullmatch(name):
        return name not in predefined and not _TOOLCHAIN.fullmatch(name) and not known(name)
    return bool(_OPTION.fullmatch(name)) and not _LIBRARY.fullmatch(name) and not known(name)


def option_macros(spans: Sequence[tuple[int, int, frozenset[bytes]]], offset: int) -> tuple[str, ...]:
    """The option macros the code at `offset` needs defined (option_branches.option_branches spans)."""
    names = {n for a, b, req in spans if a <= offset < b for n in req}
    return tuple(sorted(n.decode() for n in names))


_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(\()?", re.MULTILINE)
_DIRECTIVE = lazy(rb"#[ \t]*define")


def may_define(source: bytes) -> bool:
    """False when `source` has no `#define` for sure. why: a pattern anchored at line starts (`^` with
    MULTILINE) is tried at every byte; a search for the `#` it needs jumps from `#` to `#` (5 ms
    against 0.3 ms on a 1 MB file with no #define)."""
    return b"define" in source and _DIRECTIVE.search(source) is not None


def define_lines(source: bytes) -> list[re.Match[bytes]]:
    """Every `#define NAME` line, in order: group 1 the name (any word), group 2 the `(` of a
    function-like macro. Context.define_lines shares them between the rules of one file."""
    return line_matches(_DEFINE, source) if may_define(source) else []


def file_defines(source: bytes) -> tuple[str, ...]:
    """Every macro the file #defines, in any branch (a definition anywhere may switch the option on)."""
    return names_defined(define_lines(source))


def names_defined(lines: Sequence[re.Match[bytes]]) -> tuple[str, ...]:
    """file_defines from the file's define_lines."""
    return tuple(sorted({m.group(1).decode("ascii", "replace") for m in lines}))


# -- build files ---------------------------------------------------------------------------------


def quoted_includes(source: bytes) -> list[str]:
    return [m.decode("utf-8", "replace") for m in _QUOTED.findall(source)]


def angled_includes(source: bytes) -> list[str]:
    return [m.decode("utf-8", "replace") for m in _ANGLED.findall(source)]


_QUOTED = lazy(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_ANGLED = lazy(rb"^[ \t]*#[ \t]*include[ \t]*<([^>\n]+)>", re.MULTILINE)
