"""CMake: what to do with one command (a _Plan), given the facts about the whole file."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hipify_py.buildfiles.cmake_args import CMakeFacts, cmake_generic
from hipify_py.buildfiles.cmake_syntax import Arg, Cmd, inner, quote_arg
from hipify_py.buildfiles.common import (
    INFO,
    RULE_HOST,
    RULE_NOT_UNDERSTOOD,
    RULE_NVCC_FLAG,
    WARN,
    BuildOptions,
    Note,
    arch_note,
    raised_std,
    std_note,
)
from hipify_py.buildfiles.libraries import (
    lib_key,
    lib_target,
)
from hipify_py.buildfiles.nvcc_flags import (
    IDENTITY_HINT,
    identity_note,
    renamed_definitions,
    translate_flags,
)
from hipify_py.util.lazyre import lazy

_ARCH_ITEM = lazy(r"(?:\d+[a-z]?(?:-real|-virtual)?|native|all|all-major|sm_\w+|compute_\w+)")


_ON = frozenset({"ON", "TRUE", "YES", "Y", "1"})


_TARGET_KEYWORDS = frozenset({"PRIVATE", "PUBLIC", "INTERFACE", "BEFORE"})


_LINK_KEYWORDS = frozenset(
    {"PRIVATE", "PUBLIC", "INTERFACE", "LINK_PRIVATE", "LINK_PUBLIC", "LINK_INTERFACE_LIBRARIES"}
    | {"debug", "optimized", "general"}
)


_SET_OPTIONS = frozenset({"CACHE", "PARENT_SCOPE"})


_FINDCUDA_SETTINGS = frozenset(
    {
        "CUDA_PROPAGATE_HOST_FLAGS",
        "CUDA_HOST_COMPILER",
        "CUDA_VERBOSE_BUILD",
        "CUDA_64_BIT_DEVICE_CODE",
        "CUDA_USE_STATIC_CUDA_RUNTIME",
        "CUDA_ATTACH_VS_BUILD_RULE_TO_CUDA_FILE",
        "CUDA_BUILD_CUBIN",
        "CUDA_BUILD_EMULATION",
        "CUDA_GENERATED_OUTPUT_DIR",
        "CUDA_HOST_COMPILATION_CPP",
        "CMAKE_CUDA_HOST_COMPILER",
        "CMAKE_CUDA_RUNTIME_LIBRARY",
    }
)


_RUNTIME_FLAGS = frozenset({"-lcudart", "-lcudart_static", "-lcuda"})


_RDC_COMPILE = "$<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>"


_RDC_LINK = '"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>"'


_RDC_CMAKE_NOTE = (
    "separable compilation mapped to -fgpu-rdc (CMake's HIP language has no separable-compilation property)"
)


_RDC_CMAKE_HINT = "targets that link this code must be linked by the HIP compiler (clang++ with --hip-link)"


@dataclass
class _Plan:
    """What to do with one command; a local builder, filled by one handler."""

    rename: str | None = None  # new command name
    args: dict[int, str | None] = field(default_factory=dict)  # arg index -> new raw text (None deletes)
    whole: str | None = None  # new text for the whole command ("" deletes it)
    after: list[str] = field(default_factory=list)  # commands added on new lines after it
    notes: list[Note] = field(default_factory=list)
    skip: set[int] = field(default_factory=set)  # args left alone: no rewrite, no residue report
    handled_name: bool = False


def _arch_value(arg: Arg, opts: BuildOptions) -> str | None:
    """The offload-arch list in the argument's quoting, or None when the value is not an arch list."""
    off, value = inner(arg)
    items = [v for v in value.split(";") if v]
    if arg.kind == "b" or not items or not all(_ARCH_ITEM.fullmatch(v) for v in items):
        return None
    archs = ";".join(opts.offload_arch)
    if arg.kind == "u" and len(opts.offload_arch) > 1:
        return f'"{archs}"'  # unquoted, the list would split into several arguments
    return arg.text[:off] + archs + arg.text[off + len(value) :]


def _set_arch_values(cmd: Cmd, first: int, last: int, plan: _Plan, opts: BuildOptions) -> None:
    """Replace architecture values args[first:last] by the configured AMD targets."""
    values = cmd.args[first:last]
    new = _arch_value(values[0], opts) if len(values) == 1 else None
    if len(values) > 1 and all(_arch_value(v, opts) is not None for v in values):
        new = _arch_value(values[0], opts)
    if new is None:
        if values:
            plan.notes.append(
                Note(
                    values[0].start,
                    values[-1].end,
                    RULE_NOT_UNDERSTOOD,
                    WARN,
                    "GPU architecture value not understood; left as is",
                    f"set it to AMD targets such as {';'.join(opts.offload_arch)}",
                )
            )
            plan.skip.update(range(first, last))
        return
    plan.args[first] = new
    plan.args.update({k: None for k in range(first + 1, last)})
    plan.notes.append(arch_note(values[0].start, values[-1].end, opts))


_STD_VARS = frozenset({"CMAKE_CXX_STANDARD", "CMAKE_CUDA_STANDARD", "CMAKE_HIP_STANDARD"})


_STD_PROPS = frozenset({"CXX_STANDARD", "CUDA_STANDARD", "HIP_STANDARD"})


def _raise_std_value(cmd: Cmd, k: int, plan: _Plan, opts: BuildOptions) -> None:
    """A standard number (14) lower than the target's ROCm libraries accept -> theirs."""
    if k >= len(cmd.args):
        return
    arg = cmd.args[k]
    off, value = inner(arg)
    new = raised_std(value, opts) if value.isdigit() else None
    if new is not None:
        plan.args[k] = arg.text[:off] + new + arg.text[off + len(value) :]
        plan.notes.append(std_note(arg.start, arg.end, f"C++{value}", opts))


def _decompose(text: str) -> tuple[str, str, str, str]:
    """Split a flag argument into prefix, body of flags, suffix and the separator to rejoin flags."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        pre, body, suf, sep = _decompose(text[1:-1])
        return '"' + pre, body, suf + '"', sep
    m = re.fullmatch(r"(\$<(?:\$<[^<>]*>|[^<>:])*:)(.*)>", text, re.S)
    if m:
        pre, body, suf, sep = _decompose(m.group(2))
        return m.group(1) + pre, body, suf + ">", sep if pre else ";"
    if text.startswith("SHELL:"):
        return "SHELL:", text[6:], "", " "
    return "", text, "", ";" if ";" in text and not re.search(r"\s", text) else " "


def _rebuild_body(body: str, flags: Sequence[tuple[str, ...] | None], sep: str) -> str:
    """Body with its flags replaced (None keeps one, () drops it with the separator before it)."""
    parts = re.split(r"([\s;]+)", body)
    toks, seps = parts[0::2], parts[1::2]
    new = iter(flags)
    out: list[str] = []
    for i, tok in enumerate(toks):
        if not tok:
            continue
        repl = next(new)
        text = tok if repl is None else sep.join(repl)
        if text:
            out.extend((seps[i - 1], text) if out and i else (text,))
    lead = seps[0] if toks[0] == "" and seps else ""
    trail = seps[-1] if len(toks) > 1 and toks[-1] == "" else ""
    return lead + "".join(out) + trail


def _cmake_flags(cmd: Cmd, idxs: Sequence[int], plan: _Plan, facts: CMakeFacts) -> list[str]:
    """Translate nvcc flags in the given args (plan.args gets the results).

    Returns the flags left after translation (to tell whether anything is left)."""
    parts: list[tuple[int, int, str]] = []  # (arg index, offset of the piece in the raw arg, piece)
    layout: dict[int, tuple[str, str, str, str]] = {}
    for k in idxs:
        arg = cmd.args[k]
        if arg.kind == "b":
            continue
        pre, body, suf, sep = _decompose(arg.text)
        layout[k] = (pre, body, suf, sep)
        parts.extend((k, len(pre) + m.start(), m.group(0)) for m in re.finditer(r"[^\s;]+", body))
    new, flag_notes = translate_flags([p for _, _, p in parts], facts.opts, True)
    for j, (_, _, piece) in enumerate(parts):
        if piece in _RUNTIME_FLAGS:
            new[j] = ()  # why: CMake's HIP language (hip::host) links amdhip64 itself
    for fn in flag_notes:
        k, off, piece = parts[fn.index]
        at = cmd.args[k].start + off
        plan.notes.append(Note(at, at + len(piece), fn.rule, fn.severity, fn.message, fn.hint))
    left: list[str] = []
    for k, (pre, body, suf, sep) in layout.items():
        mine = [j for j, part in enumerate(parts) if part[0] == k]
        out = [f for j in mine for f in new.get(j, (parts[j][2],))]
        left.extend(out)
        if all(j not in new for j in mine):
            continue
        if not out and mine:
            plan.args[k] = None
            continue
        rebuilt = pre + _rebuild_body(body, [new.get(j) for j in mine], sep) + suf
        plan.args[k] = cmake_generic(Arg(cmd.args[k].start, cmd.args[k].end, "u", rebuilt), facts)[0]
    return left


def _is_on(arg: Arg | None) -> bool:
    return arg is not None and inner(arg)[1].upper() in _ON


def _rdc_target_lines(targets: Iterable[str]) -> list[str]:
    return [
        line
        for t in targets
        for line in (
            f"target_compile_options({t} PUBLIC {_RDC_COMPILE})",
            f"target_link_options({t} PUBLIC {_RDC_LINK})",
        )
    ]


def _source_commands(cmd: Cmd, facts: CMakeFacts, covered: set[str], plan: _Plan) -> None:
    """Give .cu sources the HIP language (or leave them to renames that make them .hip)."""
    need: list[str] = []
    for arg in cmd.args:
        if arg.kind == "b":
            continue
        for item in inner(arg)[1].split(";"):
            if not item.endswith(".cu") or item.startswith("$<"):
                continue
            item = facts.renames.lookup(item) or item
            if not item.endswith(".hip") and item not in covered and item not in need:
                need.append(item)
    if need:
        covered.update(need)
        plan.after.append(
            f"set_source_files_properties({' '.join(map(quote_arg, need))} PROPERTIES LANGUAGE HIP)"
        )
    if need and cmd.key in ("add_executable", "add_library"):
        _link_host(cmd, facts, plan)


_HOST_SOURCE = lazy(r".+\.(?:cpp|cc|cxx|c\+\+|C)")


def _link_host(cmd: Cmd, facts: CMakeFacts, plan: _Plan) -> None:
    """A target with .cu and C++ sources: its C++ files include the HIP runtime, which the C++
    compiler reads only with hip::host's platform define and include path (nvcc's CMake language
    gave the whole target the CUDA runtime)."""
    texts = cmd.texts()
    if not texts or texts[0] in facts.host_linked or set(texts[1:2]) & {"ALIAS", "IMPORTED", "INTERFACE"}:
        return
    items = [i for t in texts[1:] for i in t.strip('"').split(";")]
    if not any(_HOST_SOURCE.fullmatch(i) for i in items):
        return
    scope = " PRIVATE" if texts[0] in facts.keyword_links else ""
    plan.after.append(f"target_link_libraries({texts[0]}{scope} hip::host)")
    plan.notes.append(
        Note(
            cmd.start,
            cmd.name_end,
            RULE_HOST,
            INFO,
            f"{texts[0]} links hip::host: its C++ sources include the HIP runtime, read by the C++ compiler",
        )
    )


def _plan_set(cmd: Cmd, facts: CMakeFacts, covered: set[str], plan: _Plan) -> None:
    texts = cmd.texts()
    var = texts[0] if texts else ""
    stop = next((k for k, t in enumerate(texts) if k > 0 and t in _SET_OPTIONS), len(texts))
    if "CACHE" in texts[1:]:
        plan.skip.update(
            range(texts.index("CACHE", 1) + 2, len(texts))
        )  # CACHE <type> "<doc>": the doc is prose
    if var == "CMAKE_CUDA_ARCHITECTURES":
        _set_arch_values(cmd, 1, stop, plan, facts.opts)
    elif var in _STD_VARS and stop == 2:
        _raise_std_value(cmd, 1, plan, facts.opts)
    elif var.startswith("CMAKE_CUDA_FLAGS"):
        left = _cmake_flags(cmd, range(1, stop), plan, facts)
        if all(re.fullmatch(r"\$\{CMAKE_(?:CUDA|HIP)_FLAGS\w*\}", f) for f in left):
            plan.whole = ""  # nothing but the variable itself is left: the command is a no-op
    elif var == "CUDA_NVCC_FLAGS":
        _plan_nvcc_flags(cmd, 1, plan, facts)
    elif var in ("CMAKE_CUDA_SEPARABLE_COMPILATION", "CUDA_SEPARABLE_COMPILATION"):
        on = _is_on(cmd.args[1] if len(cmd.args) > 1 else None)
        lines = [f"add_compile_options({_RDC_COMPILE})", f"add_link_options({_RDC_LINK})"] if on else []
        plan.whole = _join_lines(lines)
        plan.notes.append(
            Note(cmd.start, cmd.rparen + 1, RULE_NVCC_FLAG, INFO, _RDC_CMAKE_NOTE, _RDC_CMAKE_HINT)
        )
    elif var == "CMAKE_CUDA_COMPILER":
        plan.whole = ""
        plan.notes.append(
            Note(
                cmd.start,
                cmd.rparen + 1,
                RULE_NVCC_FLAG,
                WARN,
                "CMAKE_CUDA_COMPILER setting dropped: "
                "CMake's HIP language needs ROCm's clang++, not nvcc or hipcc",
                "pass -DCMAKE_HIP_COMPILER=<rocm>/llvm/bin/clang++ if CMake does not find it",
            )
        )
    elif var in _FINDCUDA_SETTINGS:
        plan.whole = ""
        plan.notes.append(
            Note(
                cmd.start,
                cmd.rparen + 1,
                RULE_NVCC_FLAG,
                INFO,
                f"nvcc setting {var} dropped: no HIP counterpart",
            )
        )
    else:
        _source_commands(cmd, facts, covered, plan)


def _join_lines(lines: Sequence[str]) -> str:
    # marker joined later with the file's line break and the command's indent
    return "\n".join(lines)


def _plan_nvcc_flags(cmd: Cmd, first: int, plan: _Plan, facts: CMakeFacts) -> None:
    """FindCUDA's CUDA_NVCC_FLAGS list -> HIP compile options for the targets defined after it."""
    idxs = [k for k in range(first, len(cmd.args)) if cmd.args[k].text not in _SET_OPTIONS]
    idxs = [k for k in idxs if not re.fullmatch(r'"?\$\{CUDA_NVCC_FLAGS\}"?', cmd.args[k].text)]
    left = [f for f in _cmake_flags(cmd, idxs, plan, facts) if not re.fullmatch(r"\$\{CUDA_NVCC_FLAGS\}", f)]
    plan.whole = f'add_compile_options("$<$<COMPILE_LANGUAGE:HIP>:{";".join(left)}>")' if left else ""
    plan.notes.append(
        Note(
            cmd.start,
            cmd.rparen + 1,
            RULE_NVCC_FLAG,
            INFO,
            "CUDA_NVCC_FLAGS replaced by HIP compile options (they apply to targets defined after this line)",
        )
    )


def _plan_properties(cmd: Cmd, facts: CMakeFacts, plan: _Plan) -> None:
    """set_target_properties / set_property / set_source_files_properties."""
    texts = cmd.texts()
    key = cmd.key
    if key == "set_target_properties" and "PROPERTIES" in texts:
        p = texts.index("PROPERTIES")
        targets = texts[:p]
        pairs = list(range(p + 1, len(texts) - 1, 2))
        dropped = 0
        for k in pairs:
            name = texts[k]
            if name == "CUDA_ARCHITECTURES":
                _set_arch_values(cmd, k + 1, k + 2, plan, facts.opts)
            elif name in _STD_PROPS:
                _raise_std_value(cmd, k + 1, plan, facts.opts)
            elif name in (
                "CUDA_SEPARABLE_COMPILATION",
                "CUDA_RESOLVE_DEVICE_SYMBOLS",
                "CUDA_RUNTIME_LIBRARY",
            ):
                plan.args.update({k: None, k + 1: None})
                dropped += 1
                _property_note(cmd.args[k], name, plan)
                if name == "CUDA_SEPARABLE_COMPILATION" and _is_on(cmd.args[k + 1]):
                    plan.after.extend(_rdc_target_lines(targets))
        if dropped and dropped == len(pairs):
            plan.whole = ""  # no property left: the rdc lines (if any) replace the command
        return
    if key == "set_property" and "PROPERTY" in texts:
        p = texts.index("PROPERTY")
        name = texts[p + 1] if p + 1 < len(texts) else ""
        if name == "CUDA_ARCHITECTURES":
            _set_arch_values(cmd, p + 2, len(texts), plan, facts.opts)
        elif name in _STD_PROPS and p + 3 == len(texts):
            _raise_std_value(cmd, p + 2, plan, facts.opts)
        elif name in ("CUDA_SEPARABLE_COMPILATION", "CUDA_RESOLVE_DEVICE_SYMBOLS", "CUDA_RUNTIME_LIBRARY"):
            _property_note(cmd.args[p + 1], name, plan)
            on = name == "CUDA_SEPARABLE_COMPILATION" and _is_on(
                cmd.args[p + 2] if p + 2 < len(texts) else None
            )
            targets = texts[1:p] if texts[0] == "TARGET" else []
            plan.whole = _join_lines(_rdc_target_lines(targets) if on else [])
    # LANGUAGE CUDA -> LANGUAGE HIP (sources, and set_property(SOURCE ...))
    for k in range(1, len(texts)):
        if texts[k] == "CUDA" and texts[k - 1] == "LANGUAGE":
            plan.args[k] = "HIP"


def _property_note(arg: Arg, name: str, plan: _Plan) -> None:
    if name == "CUDA_SEPARABLE_COMPILATION":
        plan.notes.append(Note(arg.start, arg.end, RULE_NVCC_FLAG, INFO, _RDC_CMAKE_NOTE, _RDC_CMAKE_HINT))
    else:
        plan.notes.append(
            Note(arg.start, arg.end, RULE_NVCC_FLAG, INFO, f"{name} dropped: no HIP counterpart (not needed)")
        )


def _plan_cuda_add(cmd: Cmd, facts: CMakeFacts, covered: set[str], plan: _Plan) -> None:
    """FindCUDA's cuda_add_executable/cuda_add_library -> add_executable/add_library."""
    plan.rename = cmd.name[len("cuda_") :]
    plan.handled_name = True
    texts = cmd.texts()
    if "OPTIONS" in texts:
        o = texts.index("OPTIONS")
        before = len(plan.after)
        left = _cmake_flags(cmd, range(o + 1, len(texts)), plan, facts)
        plan.args.update({k: None for k in range(o, len(texts))})
        if left:
            # OPTIONS went to nvcc only: keep them away from the C++ sources of the target
            genex = f'"$<$<COMPILE_LANGUAGE:HIP>:{";".join(left)}>"'
            plan.after.insert(before, f"target_compile_options({texts[0]} PRIVATE {genex})")
    _source_commands(cmd, facts, covered, plan)
    if texts:
        # FindCUDA linked ${CUDA_LIBRARIES} and gave every source the toolkit's includes; hip::host
        # does both for the target's C++ sources (plain signature, as FindCUDA's own call)
        plan.after.append(f"target_link_libraries({texts[0]} hip::host)")


def _plan_glob(cmd: Cmd, facts: CMakeFacts, covered: set[str], plan: _Plan) -> None:
    texts = cmd.texts()
    if len(texts) < 3 or texts[0] not in ("GLOB", "GLOB_RECURSE"):
        return
    k, var = 2, texts[1]
    while k < len(texts) and texts[k] in (
        "LIST_DIRECTORIES",
        "RELATIVE",
        "CONFIGURE_DEPENDS",
        "FOLLOW_SYMLINKS",
    ):
        k += 2 if texts[k] in ("LIST_DIRECTORIES", "RELATIVE") else 1
    patterns = list(range(k, len(texts)))
    cu = [j for j in patterns if inner(cmd.args[j])[1].endswith(".cu")]
    if not cu:
        return
    ext = facts.renames.uniform_ext
    if ext:
        for j in cu:
            plan.args[j] = cmd.args[j].text.replace(".cu", ext) if cmd.args[j].kind == "u" else None
            if cmd.args[j].kind != "u":
                off, value = inner(cmd.args[j])
                plan.args[j] = (
                    cmd.args[j].text[:off] + value[:-3] + ext + cmd.args[j].text[off + len(value) :]
                )
        if ext == ".hip":
            return
    if len(cu) == len(patterns) and not ext:
        ref = "${" + var + "}"
        if ref not in covered:
            covered.add(ref)
            plan.after.append(f"set_source_files_properties({ref} PROPERTIES LANGUAGE HIP)")
        return
    plan.notes.append(
        Note(
            cmd.start,
            cmd.rparen + 1,
            RULE_NOT_UNDERSTOOD,
            WARN,
            "glob mixes CUDA sources with others: cannot tell which files need LANGUAGE HIP",
            "glob the .cu files into their own variable and set LANGUAGE HIP on it",
        )
    )


def _plan_link(cmd: Cmd, facts: CMakeFacts, plan: _Plan) -> None:
    """target_link_libraries / link_libraries: plain CUDA library names and -l flags."""
    first = 1 if cmd.key == "target_link_libraries" else 0
    flags: list[int] = []
    for k in range(first, len(cmd.args)):
        arg = cmd.args[k]
        key = lib_key(arg.text) if arg.kind == "u" else None
        if arg.text in _LINK_KEYWORDS:
            continue
        if key is not None:
            plan.args[k] = lib_target(key, facts.opts)
        elif arg.text.startswith(("-", '"-')):
            flags.append(k)
    _cmake_flags(cmd, flags, plan, facts)


def plan_command(cmd: Cmd, facts: CMakeFacts, covered: set[str], state: dict[str, bool]) -> _Plan:
    plan = _Plan()
    key, texts, opts = cmd.key, cmd.texts(), facts.opts
    if key == "message":
        plan.skip.update(range(len(cmd.args)))
    elif key == "option":
        plan.skip.update({0, 1})
    elif key in ("project", "enable_language", "check_language"):
        start = 1 if key == "project" else 0
        plan.skip.update(range(start))
        for k in range(start, len(texts)):
            if texts[k] == "CUDA":
                plan.args[k] = None if "HIP" in texts else "HIP"
    elif key == "find_package" and texts and texts[0] in ("CUDA", "CUDAToolkit"):
        kws = [t for t in texts[1:] if t in ("REQUIRED", "QUIET")]
        suffix = "".join(" " + t for t in kws)
        lines = [f"{cmd.name}(hip{suffix})"]
        if not state.get("found_libs"):
            state["found_libs"] = True
            lines += [f"find_package({p}{suffix})" for p in facts.packages if p not in facts.found]
        if texts[0] == "CUDA" and not facts.hip_enabled and not state.get("enabled"):
            state["enabled"] = True  # FindCUDA projects never enabled a GPU language
            lines.append("enable_language(HIP)")
        plan.whole = _join_lines(lines)
    elif key in ("add_executable", "add_library", "target_sources"):
        _source_commands(cmd, facts, covered, plan)
    elif key in ("cuda_add_executable", "cuda_add_library"):
        _plan_cuda_add(cmd, facts, covered, plan)
    elif key == "cuda_include_directories":
        plan.rename, plan.handled_name = "include_directories", True
    elif key in ("cuda_add_cublas_to_target", "cuda_add_cufft_to_target") and texts:
        lib = "cublas" if "cublas" in key else "cufft"
        plan.whole = f"target_link_libraries({texts[0]} {lib_target(lib, opts)})"
    elif key == "set":
        _plan_set(cmd, facts, covered, plan)
    elif key in ("list", "string") and len(texts) > 2 and texts[0] in ("APPEND", "PREPEND", "INSERT"):
        if texts[1] == "CUDA_NVCC_FLAGS" and key == "list":
            _plan_nvcc_flags(cmd, 2, plan, facts)
        elif texts[1].startswith("CMAKE_CUDA_FLAGS") and key == "string":
            if not _cmake_flags(cmd, range(2, len(texts)), plan, facts):
                plan.whole = ""
        elif key == "list":
            _source_commands(cmd, facts, covered, plan)
    elif key in ("target_compile_options", "add_compile_options", "target_link_options", "add_link_options"):
        first = 1 if key.startswith("target_") else 0
        idxs = [k for k in range(first, len(texts)) if texts[k] not in _TARGET_KEYWORDS]
        if idxs and not _cmake_flags(cmd, idxs, plan, facts):
            plan.whole = ""
    elif key == "add_definitions":
        _cmake_flags(cmd, range(len(texts)), plan, facts)
    elif key in ("add_compile_definitions", "target_compile_definitions"):
        first = 1 if key.startswith("target_") else 0
        raw = [a.text for a in cmd.args[first:]]
        for k, text in renamed_definitions(raw).items():
            plan.args[first + k] = text or None  # "": nvcc's identity macro, dropped
            if not text:
                arg = cmd.args[first + k]
                message = identity_note(arg.text)
                plan.notes.append(Note(arg.start, arg.end, RULE_NVCC_FLAG, INFO, message, IDENTITY_HINT))
    elif key in ("target_link_libraries", "link_libraries"):
        _plan_link(cmd, facts, plan)
    elif key in ("set_target_properties", "set_property", "set_source_files_properties"):
        _plan_properties(cmd, facts, plan)
    elif key == "file":
        _plan_glob(cmd, facts, covered, plan)
    elif "required" in key and texts[:1] == ["CMAKE_CUDA_COMPILER"]:
        plan.whole = ""
        plan.notes.append(
            Note(
                cmd.start,
                cmd.rparen + 1,
                RULE_HOST,
                INFO,
                f"{cmd.name}(CMAKE_CUDA_COMPILER ...) dropped: the HIP language needs no compiler path",
                "CMake finds ROCm's clang++ itself; pass -DCMAKE_HIP_COMPILER=... if it does not",
            )
        )
    elif key.startswith("cuda_"):
        plan.handled_name = True
        plan.skip.update(range(len(cmd.args)))
        plan.notes.append(
            Note(
                cmd.start,
                cmd.name_end,
                RULE_NOT_UNDERSTOOD,
                WARN,
                f"FindCUDA command {cmd.name}() has no HIP counterpart; left as is",
                "port this part of the build by hand",
            )
        )
    return plan
