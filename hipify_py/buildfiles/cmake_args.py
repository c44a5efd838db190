"""CMake: rewrites valid in any data argument (variables, properties, targets, genexes, standards,
sources), and the facts about the whole file they read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hipify_py.buildfiles.cmake_syntax import Arg, inner
from hipify_py.buildfiles.common import (
    RESIDUE,
    RULE_NOT_UNDERSTOOD,
    WARN,
    BuildOptions,
    Note,
    Renames,
    leftover_note,
    raised_std,
    std_note,
)
from hipify_py.buildfiles.libraries import (
    CMAKE_IDENTS,
    CUDA_TARGET_NOTES,
    FINDCUDA_LIB_VARS,
    lib_key,
    lib_target,
)
from hipify_py.util.lazyre import lazy

_CM_GENERIC = lazy(
    r"(?P<cvar>(?<![A-Za-z0-9_])CMAKE_CUDA_(?:STANDARD_REQUIRED|STANDARD|EXTENSIONS|FLAGS(?:_[A-Z]+|_(?=\$\{))?"
    r"|COMPILER_LAUNCHER|COMPILER_LOADED|COMPILER_VERSION|COMPILER|ARCHITECTURES)(?![A-Za-z0-9_]))"
    r"|(?P<prop>(?<![A-Za-z0-9_])CUDA_(?:ARCHITECTURES|STANDARD_REQUIRED|STANDARD|EXTENSIONS)(?![A-Za-z0-9_]))"
    r"|(?P<ref>\$\{(?P<refname>" + "|".join(FINDCUDA_LIB_VARS) + r")\})"
    r"|(?P<ident>(?<![A-Za-z0-9_])(?:" + "|".join(CMAKE_IDENTS) + r")(?![A-Za-z0-9_]))"
    r"|(?P<tgt>(?<![A-Za-z0-9_:])CUDA::(?P<tname>[A-Za-z0-9_]+))"
    r"|(?P<lang>\$<(?:COMPILE|LINK)_LANG(?P<andid>_AND_ID)?(?:UAGE)?:)(?P<langs>[^>]*)"
    r"|(?P<feat>(?<![A-Za-z0-9_])(?P<flang>cuda|cxx|hip)_std_(?P<std>\d+)(?![A-Za-z0-9_]))"
    r"|(?P<stdflag>(?<![\w-])-std=(?P<dialect>c|gnu)\+\+(?P<year>\w\w)(?![\w+]))"
)


_WORD_CUDA = lazy(r"(?<![A-Za-z0-9_])CUDA(?![A-Za-z0-9_])")


@dataclass(frozen=True)
class CMakeFacts:
    opts: BuildOptions
    renames: Renames
    hip_enabled: bool  # project()/enable_language() already name CUDA or HIP
    packages: tuple[str, ...]  # hip library packages the file's targets need, in first-use order
    found: frozenset[str]  # packages the file already finds (lower case)
    user_names: frozenset[str]  # the user's own variables and targets: not reported when CUDA-ish
    # targets whose links already bring the HIP runtime's host side (CUDA::cudart, ${CUDA_LIBRARIES}, ...)
    host_linked: frozenset[str] = frozenset()
    keyword_links: frozenset[str] = frozenset()  # targets linked with PRIVATE/PUBLIC/INTERFACE


def cmake_generic(arg: Arg, facts: CMakeFacts) -> tuple[str, list[Note]]:
    """Renames valid in any data argument: variables, properties, targets, genexes, sources."""
    notes: list[Note] = []

    off, value = inner(arg)

    def sub(m: re.Match[str]) -> str:
        at, end = arg.start + off + m.start(), arg.start + off + m.end()
        if m.group("cvar") or m.group("prop"):
            return m.group(0).replace("CUDA", "HIP", 1)
        if m.group("ref"):
            return lib_target(FINDCUDA_LIB_VARS[m.group("refname")], facts.opts)
        if m.group("ident"):
            return CMAKE_IDENTS[m.group("ident")]
        if m.group("tgt"):
            key = lib_key(m.group("tname"))
            if key is not None:
                return lib_target(key, facts.opts)
            name = m.group("tname")
            msg = CUDA_TARGET_NOTES.get(name, f"CUDA::{name} has no HIP counterpart target")
            notes.append(Note(at, end, RULE_NOT_UNDERSTOOD, WARN, msg, "link the ROCm library by hand"))
            return m.group(0)
        if m.group("lang"):
            langs = _WORD_CUDA.sub("HIP", m.group("langs"))
            if m.group("andid"):
                langs = langs.replace("NVIDIA", "Clang")
            return m.group("lang") + langs
        if m.group("stdflag"):
            new = raised_std(m.group("year"), facts.opts)
            if new is None:
                return m.group(0)
            notes.append(std_note(at, end, m.group(0), facts.opts))
            return f"-std={m.group('dialect')}++{new}"
        std = m.group("std")
        new = raised_std(std, facts.opts)
        if new is not None:
            notes.append(std_note(at, end, m.group(0), facts.opts))
        lang = "hip" if m.group("flang") == "cuda" else m.group("flang")
        return f"{lang}_std_{new or std}"

    new_value = _CM_GENERIC.sub(sub, value)
    if arg.kind != "b":
        items = new_value.split(";")
        renamed = [facts.renames.lookup(it) or it for it in items]
        new_value = ";".join(renamed)
    return arg.text[:off] + new_value + arg.text[off + len(value) :], notes


def cmake_residue(arg: Arg, new_text: str, facts: CMakeFacts, known: Sequence[Note]) -> list[Note]:
    notes = []
    for m in RESIDUE.finditer(new_text):
        tok = m.group(0)
        at = arg.start + m.start()
        if tok in facts.user_names or any(n.start <= at < n.end for n in known):
            continue  # the user's own names; or already reported more precisely
        start, end = (
            (arg.start + m.start(), arg.start + m.end()) if new_text == arg.text else (arg.start, arg.end)
        )
        notes.append(leftover_note(start, end, tok))
    return notes
