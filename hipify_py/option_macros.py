"""Error findings in code that only a build option compiles, decided once the whole project is seen.

An error finding is a promise that the build breaks. Code under `#ifdef PTX` (or `#ifdef VERIFY`,
`#ifdef CUDNN_CONV`) is compiled only when something defines PTX: the file, another file of the
project, a build file (`-DPTX`, `add_compile_definitions(PTX)`, `#cmakedefine PTX`) or the command
line. When nothing does, hipcc never sees the code and the finding is a warning that says so.

Per file (in the worker, pure): `option_macros` tells which option macros each error finding's code
needs (its `requires`), `file_defines` which macros the file #defines. The parent (`Project`) unites
the defines of every file of the run (cached results carry both) with the build files' and settles
the findings before they are reported: only severities and messages change, never the output.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from hipify_py.diagnostics import Diagnostic, Severity

# Option macros: a project's SCREAMING_CASE names. Not the compiler's (`__x`, `_X`, `linux`), not HIP's
# or ROCm's, not the C/C++/POSIX/MPI/OpenMP headers' (these are defined without the project saying so).
_OPTION = re.compile(rb"[A-Z][A-Z0-9_]*")
_LIBRARY = re.compile(
    rb"(?:HIP|ROC|RCCL|MIOPEN|HIPCUB|THRUST|CUB|MPI|OMPI|MPICH|OMP|M|FLT|DBL|LDBL|INT\d*|UINT\d*|INTMAX|UINTMAX|"
    rb"INTPTR|UINTPTR|SIZE|SSIZE|PTRDIFF|CHAR|SCHAR|UCHAR|SHRT|USHRT|LONG|ULONG|LLONG|ULLONG|WCHAR|WINT|"
    rb"SIG|SIG_ATOMIC|RAND|EXIT|CLOCKS|CLOCK|PATH|FP|MATH|HUGE|EOF|BUFSIZ|FILENAME|FOPEN|TMP|SEEK|O|S|"
    rb"MAP|PROT|E|NAME|PIPE|STDIN|STDOUT|STDERR|TIME|TIMER|POSIX|XOPEN|GNU|GLIBC|LINUX|WIN32|WIN64|APPLE|"
    rb"BYTE|LITTLE|BIG|PDP|FE|EIGEN|BOOST|GTEST|TEST|CL|GL|GLEW|GLFW|OPENCL|SYCL|KOKKOS|NDEBUG|DEBUG)"
    rb"(?:_\w*)?|INFINITY|NAN|NULL|TRUE|FALSE|CHAR_BIT|MB_LEN_MAX|RAND_MAX|BUFSIZ"
)
# NDEBUG/DEBUG: build types define them without a visible -D (CMake's Release adds -DNDEBUG).


def is_option(name: bytes, known: Callable[[bytes], bool] = lambda _: False) -> bool:
    """A macro a project's own build decides (`PTX`, `USE_CUDNN`); `known`: names of CUDA's API."""
    return bool(_OPTION.fullmatch(name)) and not _LIBRARY.fullmatch(name) and not known(name)


def option_macros(spans: Sequence[tuple[int, int, frozenset[bytes]]], offset: int) -> tuple[str, ...]:
    """The option macros the code at `offset` needs defined (pp_branches.option_branches spans)."""
    names = {n for a, b, req in spans if a <= offset < b for n in req}
    return tuple(sorted(n.decode() for n in names))


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)


def file_defines(source: bytes) -> tuple[str, ...]:
    """Every macro the file #defines, in any branch (a definition anywhere may switch the option on)."""
    if b"define" not in source:
        return ()
    return tuple(sorted({m.decode("ascii", "replace") for m in _DEFINE.findall(source)}))


# -- build files ---------------------------------------------------------------------------------
_DASH_D = re.compile(r"(?<![\w-])[-/]D[ \t]*([A-Za-z_]\w*)")
_CMAKE_DEFINITIONS = re.compile(
    r"\b(?:add_compile_definitions|target_compile_definitions|add_definitions|COMPILE_DEFINITIONS)"
    r"\b[^)]*",
    re.IGNORECASE,
)
_TEMPLATE_DEFINE = re.compile(r"#[ \t]*(?:cmakedefine01|cmakedefine|undef)[ \t]+(\w+)|AC_DEFINE\w*\(\[?(\w+)")
_WORD = re.compile(r"[A-Za-z_]\w*")
BUILD_NAMES = (
    "CMakeLists.txt",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "compile_commands.json",
    "configure.ac",
)
BUILD_SUFFIXES = (".cmake", ".mk", ".make", ".in", ".ac", ".bazel", ".bzl", "meson.build", ".ninja")


def build_defines(text: str) -> set[str]:
    """Macros a build file may define: `-DNAME` (Makefile, compile_commands.json, CMake), the names in
    CMake's *_definitions(...), `#cmakedefine NAME` / autoconf `#undef NAME` templates, AC_DEFINE."""
    found = set(_DASH_D.findall(text))
    for m in _CMAKE_DEFINITIONS.finditer(text):
        found.update(_WORD.findall(m.group(0)))
    for m in _TEMPLATE_DEFINE.finditer(text):
        found.add(m.group(1) or m.group(2))
    return found


def is_build_file(name: str) -> bool:
    return name in BUILD_NAMES or name.endswith(BUILD_SUFFIXES)


def build_files(roots: Iterable[Path], skip: Callable[[str], bool] = lambda _: False) -> list[Path]:
    """Build files in the trees being converted, and beside them in their parent folders up to the
    repository root (a CMakeLists.txt one level up may add the -D for a converted `src/`)."""
    found: dict[str, Path] = {}
    for root in roots:
        top = root if root.is_dir() else root.parent
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not skip(os.path.join(folder, d))]
            for name in files:
                if is_build_file(name):
                    found.setdefault(os.path.join(folder, name), Path(folder, name))
        for parent in _ancestors(top.resolve()):
            for name in BUILD_NAMES:
                path = parent / name
                if path.is_file():
                    found.setdefault(str(path), path)
    return [found[k] for k in sorted(found)]


def _ancestors(folder: Path, limit: int = 4) -> list[Path]:
    out = []
    for parent in list(folder.parents)[:limit]:
        out.append(parent)
        if (parent / ".git").exists():
            break
    return out


# -- the decision --------------------------------------------------------------------------------


def pending(diagnostics: Sequence[Diagnostic]) -> bool:
    """Findings whose severity waits for the whole project."""
    return any(d.requires and d.severity is Severity.ERROR for d in diagnostics)


def settle(diagnostics: Sequence[Diagnostic], defined: Callable[[str], bool]) -> list[Diagnostic]:
    """Error findings in code that needs a macro nothing defines become warnings that say so."""
    out = []
    for d in diagnostics:
        missing = [n for n in d.requires if not defined(n)] if d.severity is Severity.ERROR else []
        if missing:
            d = replace(
                d,
                severity=Severity.WARNING,
                message=f"{d.message} (only compiled when {missing[0]} is defined, which nothing in the "
                "project does)",
            )
        out.append(d)
    return out


def quoted_includes(source: bytes) -> list[str]:
    return [m.decode("utf-8", "replace") for m in _QUOTED.findall(source)]


_QUOTED = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
