"""CMake projects (CMakeLists.txt, *.cmake): whole-file facts, then one plan per command, applied as edits."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hipify_py.buildfiles.cmake_args import CMakeFacts, cmake_generic, cmake_residue
from hipify_py.buildfiles.cmake_commands import plan_command
from hipify_py.buildfiles.cmake_syntax import Cmd, cmake_parse
from hipify_py.buildfiles.common import (
    RESIDUE,
    RULE_NOT_UNDERSTOOD,
    WARN,
    BuildOptions,
    Note,
    Renames,
    Src,
    edit,
    finish,
    line_deletions,
)
from hipify_py.buildfiles.libraries import FINDCUDA_LIB_VARS, LIBS, lib_key, lib_target
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.edits import Edit
from hipify_py.util.lazyre import lazy

_CUDA_TARGET = lazy(r"(?<![A-Za-z0-9_:])CUDA::(\w+)")


# CUDA-namespace names: never treated as the user's own names
_CUDA_OWNED = lazy(
    r"CMAKE_CUDA_|CUDA_(?:NVCC|HOST|PROPAGATE|SEPARABLE|VERBOSE|64_BIT|ATTACH|BUILD|GENERATED|USE_STATIC|"
    r"TOOLKIT|SDK|LINK|RESOLVE|INCLUDE|LIBRARIES|FOUND|VERSION|ARCHITECTURES|STANDARD|EXTENSIONS|cu)|CUDAToolkit"
)


# links that bring the HIP runtime's host side once converted
_HOST_LINK = lazy(r"CUDA::(?:cudart|cuda_driver)\b|\$\{CUDA_LIBRARIES\}|^cudart|^hip::host$|^hip::device$")


_LINK_KEYWORDS = frozenset({"PRIVATE", "PUBLIC", "INTERFACE"})


def _cmake_facts(cmds: Sequence[Cmd], opts: BuildOptions) -> tuple[CMakeFacts, set[str], list[Note]]:
    """What the whole file tells: enabled languages, needed library packages, covered sources."""
    hip_enabled = False
    packages: dict[str, tuple[int, int]] = {}  # package -> span of its first use
    found: set[str] = set()
    user: set[str] = set()
    covered: set[str] = set()
    has_find_cuda = False
    host_linked: set[str] = set()
    keyword_links: set[str] = set()
    for cmd in cmds:
        key, texts = cmd.key, cmd.texts()
        if key in ("project", "enable_language") and (
            {"CUDA", "HIP"} & set(texts[1 if key == "project" else 0 :])
        ):
            hip_enabled = True
        if key == "find_package" and texts:
            found.add(texts[0].lower())
            has_find_cuda = has_find_cuda or texts[0] in ("CUDA", "CUDAToolkit")
        if key in ("set", "option", "function", "macro", "add_executable", "add_library") and texts:
            user.add(texts[0])
        if key in ("cuda_add_executable", "cuda_add_library") and texts:
            user.add(texts[0])
        if key == "project" and texts:
            user.add(texts[0])
        if key in ("list", "foreach") and len(texts) > 1:
            user.add(texts[1] if key == "list" else texts[0])
        if key == "message":
            continue
        keys: list[tuple[str, int, int]] = []  # (library name, span of the use)
        for arg in cmd.args:
            keys += [
                (m.group(1), arg.start + m.start(), arg.start + m.end())
                for m in _CUDA_TARGET.finditer(arg.text)
            ]
            keys += [
                (FINDCUDA_LIB_VARS[m.group(1)], arg.start + m.start(), arg.start + m.end())
                for m in re.finditer(r"\$\{(\w+)\}", arg.text)
                if m.group(1) in FINDCUDA_LIB_VARS
            ]
            if key in ("target_link_libraries", "link_libraries") and arg.kind == "u":
                keys.append((arg.text, arg.start, arg.end))
        if key in ("cuda_add_cublas_to_target", "cuda_add_cufft_to_target"):
            keys.append(("cublas" if "cublas" in key else "cufft", cmd.start, cmd.name_end))
        for name, start, end in keys:
            lib = lib_key(name)
            if lib in LIBS:
                packages.setdefault(lib_target(lib, opts).split("::")[1], (start, end))
        if key == "target_link_libraries" and len(texts) > 1:
            if set(texts[1:]) & _LINK_KEYWORDS:
                keyword_links.add(texts[0])
            if any(_HOST_LINK.search(t) for t in texts[1:]):
                host_linked.add(texts[0])
        if key == "set_source_files_properties" or (key == "set_property" and texts[:1] == ["SOURCE"]):
            covered.update(_sources_with_language(cmd))
    notes = [
        Note(
            *span,
            RULE_NOT_UNDERSTOOD,
            WARN,
            f"the HIP target needs find_package({pkg}), and this file finds no CUDA package to replace",
            f"add find_package({pkg} REQUIRED) where the project finds its packages",
        )
        for pkg, span in packages.items()
        if not has_find_cuda and pkg not in found
    ]
    user = {u for u in user if not _CUDA_OWNED.match(u)}
    facts = CMakeFacts(
        opts,
        Renames.of(opts.rename_sources),
        hip_enabled,
        tuple(packages),
        frozenset(found),
        frozenset(user),
        frozenset(host_linked),
        frozenset(keyword_links),
    )
    return facts, covered, notes


def _sources_with_language(cmd: Cmd) -> list[str]:
    """Sources an existing set_source_files_properties/set_property already gives LANGUAGE HIP (or CUDA)."""
    texts = cmd.texts()
    if cmd.key == "set_property":
        if "PROPERTY" not in texts or texts[
            texts.index("PROPERTY") + 1 : texts.index("PROPERTY") + 3
        ] not in (
            ["LANGUAGE", "HIP"],
            ["LANGUAGE", "CUDA"],
        ):
            return []
        items = texts[1 : texts.index("PROPERTY")]
    else:
        if "PROPERTIES" not in texts:
            return []
        p = texts.index("PROPERTIES")
        pairs = dict(zip(texts[p + 1 :: 2], texts[p + 2 :: 2], strict=False))
        if pairs.get("LANGUAGE") not in ("HIP", "CUDA"):
            return []
        items = texts[:p]
    out, skip = [], False
    for t in items:
        if skip:
            skip = False
        elif t in ("DIRECTORY", "TARGET_DIRECTORY"):
            skip = True
        else:
            out.extend(i for i in t.strip('"').split(";") if i)
    return out


def translate_cmake(source: bytes, opts: BuildOptions) -> tuple[bytes, list[Diagnostic]]:
    """Translate a CMakeLists.txt / *.cmake from CUDA to HIP.

    - languages: project(... CUDA) / enable_language(CUDA) / check_language(CUDA) -> HIP.
    - find_package(CUDA|CUDAToolkit ...) -> find_package(hip ...) keeping REQUIRED/QUIET, plus
      find_package(<lib>) for the hip libraries the file links (and enable_language(HIP) for
      FindCUDA projects, which never enabled a GPU language).
    - targets and variables: CUDA::cudart -> hip::host, CUDA::cublas -> roc::hipblas (roc::rocblas),
      ${CUDA_LIBRARIES} -> hip::host, CUDA_INCLUDE_DIRS -> HIP_INCLUDE_DIRS, CMAKE_CUDA_* -> CMAKE_HIP_*,
      CUDA_ARCHITECTURES -> HIP_ARCHITECTURES (values -> the offload_arch list),
      $<COMPILE_LANGUAGE:CUDA> -> HIP, cuda_std_17 -> hip_std_17.
    - separable compilation: CMake's HIP language has no such property, so it becomes
      -fgpu-rdc compile options and -fgpu-rdc --hip-link link options.
    - .cu sources of add_executable/add_library/target_sources/set/list/cuda_add_*: a
      set_source_files_properties(... PROPERTIES LANGUAGE HIP) after the command, once per file,
      unless rename_sources renames them (renamed to .hip: CMake knows the language by itself).
    - nvcc flags in compile/link option commands, CMAKE_CUDA_FLAGS and CUDA_NVCC_FLAGS: as in Makefiles.
    - anything else CUDA-looking outside comments and messages: HIP401.
    """
    src = Src.of(source)
    cmds, notes = cmake_parse(src.text)
    facts, covered, fact_notes = _cmake_facts(cmds, opts)
    notes += fact_notes
    edits: list[Edit] = []
    deletions: list[tuple[int, int]] = []
    state: dict[str, bool] = {}
    for cmd in cmds:
        plan = plan_command(cmd, facts, covered, state)
        notes += plan.notes
        indent = src.indent_at(cmd.start)
        if plan.whole is not None:
            lines = [*plan.whole.split("\n"), *plan.after] if plan.whole else plan.after
            if lines:
                edits.append(edit(cmd.start, cmd.rparen + 1, (src.nl + indent).join(lines)))
            else:
                edits.extend(_delete_command(src, cmd))
            continue
        if plan.rename is not None:
            edits.append(edit(cmd.start, cmd.name_end, plan.rename))
        elif RESIDUE.search(cmd.name) and not plan.handled_name:
            notes.append(
                Note(
                    cmd.start,
                    cmd.name_end,
                    RULE_NOT_UNDERSTOOD,
                    WARN,
                    f"CUDA-specific command {cmd.name}() left as is",
                )
            )
        for k, arg in enumerate(cmd.args):
            if k in plan.args:
                new = plan.args[k]
                if new is None:
                    deletions.append((arg.start, arg.end))
                elif new != arg.text:
                    edits.append(edit(arg.start, arg.end, new))
                continue
            if k in plan.skip:
                continue
            new_text, arg_notes = cmake_generic(arg, facts)
            notes += arg_notes
            if new_text != arg.text:
                edits.append(edit(arg.start, arg.end, new_text))
            notes += cmake_residue(arg, new_text, facts, arg_notes)
        if plan.after:
            end = src.line_span(cmd.rparen)[1]
            edits.append(edit(end, end, "".join(src.nl + indent + line for line in plan.after)))
    edits += _cmake_deletions(src, deletions)
    return finish(src, edits, notes)


def _delete_command(src: Src, cmd: Cmd) -> list[Edit]:
    ls = src.line_span(cmd.start)[0]
    _, ce, nxt = src.line_span(cmd.rparen)
    if src.text[ls : cmd.start].strip() == "" and src.text[cmd.rparen + 1 : ce].strip() == "":
        return [edit(ls, nxt, "")]  # the command had its lines to itself
    return _cmake_deletions(src, [(cmd.start, cmd.rparen + 1)])


def _cmake_deletions(src: Src, spans: Sequence[tuple[int, int]]) -> list[Edit]:
    by_line: dict[int, list[tuple[int, int]]] = {}
    for s, e in spans:
        by_line.setdefault(src.line_no(s), []).append((s, e))
    edits: list[Edit] = []
    for mine in by_line.values():
        ls, ce, nxt = src.line_span(mine[0][0])
        cut, emptied = line_deletions(src.text, [(s, min(e, ce)) for s, e in mine], ls, ce)
        if emptied:
            edits.append(edit(ls, nxt, ""))
        else:
            edits.extend(edit(s, e, "") for s, e in cut)
    return edits
