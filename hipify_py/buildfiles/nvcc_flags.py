"""nvcc flags -> hipcc flags, shared by Makefiles and CMake flag commands (HIP402 for what changes
meaning or is dropped).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.buildfiles.common import (
    INFO,
    RULE_ARCH,
    RULE_NVCC_FLAG,
    RULE_STD,
    WARN,
    BuildOptions,
    arch_note,
    raised_std,
    std_note,
)
from hipify_py.buildfiles.libraries import LIBS, lib_key, lib_target
from hipify_py.engine.diagnostics import Severity
from hipify_py.util.lazyre import lazy


class _Flag(NamedTuple):
    out: tuple[str, ...] | None  # replacement flags (() deletes; None keeps the flag as is)
    severity: Severity | None  # None: no diagnostic
    message: str = ""
    hint: str = ""


_HIP_RUNTIME = "-lamdhip64"


_RDC_NOTE = "relocatable device code: hip-clang uses -fgpu-rdc (link with -fgpu-rdc as well)"


_KEEP_NVCC = "nvcc-only flag with no hipcc counterpart; left as is"


_SINGLE_FLAGS: Mapping[str, _Flag] = MappingProxyType(
    {
        **dict.fromkeys(
            ("--expt-relaxed-constexpr", "-expt-relaxed-constexpr"),
            _Flag(
                (), INFO, "nvcc-only flag dropped: hip-clang calls constexpr host functions from device code"
            ),
        ),
        **dict.fromkeys(
            ("--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda", "-extended-lambda"),
            _Flag((), INFO, "nvcc-only flag dropped: hip-clang accepts __device__ lambdas without a flag"),
        ),
        **dict.fromkeys(
            ("-lineinfo", "--generate-line-info"),
            _Flag(("-gline-tables-only",), INFO, "nvcc -lineinfo mapped to -gline-tables-only"),
        ),
        **dict.fromkeys(("-dc", "--device-c"), _Flag(("-fgpu-rdc", "-c"), INFO, _RDC_NOTE)),
        **dict.fromkeys(
            ("--use_fast_math", "-use_fast_math", "--use-fast-math"),
            _Flag(
                ("-ffast-math",),
                INFO,
                "--use_fast_math mapped to -ffast-math",
                "denormal flushing and approximate division/sqrt differ from nvcc; check numerics",
            ),
        ),
        "-Wno-deprecated-gpu-targets": _Flag((), INFO, "nvcc-only warning flag dropped"),
        **dict.fromkeys(("--keep", "-keep"), _Flag((), INFO, "nvcc-only flag dropped (use -save-temps)")),
        **dict.fromkeys(
            ("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler"),
            _Flag((), INFO, "nvcc-only flag dropped: hipcc takes host flags directly"),
        ),
        **dict.fromkeys(
            ("--resource-usage", "-res-usage"),
            _Flag((), INFO, "nvcc-only flag dropped", "use -Rpass-analysis=kernel-resource-usage"),
        ),
        # why not dropped: hipcc links amdhip64 itself, but a link by g++/$(CXX) needs it named
        **dict.fromkeys(("-lcudart", "-lcudart_static"), _Flag((_HIP_RUNTIME,), None)),
        "-lcudadevrt": _Flag((), None),
        "-lcuda": _Flag(
            (_HIP_RUNTIME,), INFO, "-lcuda mapped to -lamdhip64: the driver API is in libamdhip64"
        ),
        **dict.fromkeys(
            ("-restrict", "--restrict"),
            _Flag(
                (),
                INFO,
                "nvcc-only flag dropped: hip-clang has no -restrict (use __restrict__ in the source)",
            ),
        ),
        **dict.fromkeys(
            ("-fatbin", "--fatbin", "-cubin", "--cubin"),
            _Flag(
                ("--genco",),
                INFO,
                "device-only output mapped to hipcc --genco (a code object for hipModuleLoad)",
                "the file name the program loads may need the new extension",
            ),
        ),
        "-lnvToolsExt": _Flag(
            ("-lroctx64",), INFO, "NVTX -> roctx64: only range push/pop and marks have counterparts"
        ),
        "-lnvidia-ml": _Flag(
            ("-lrocm_smi64",),
            INFO,
            "NVML -> ROCm SMI (rocm_smi64): a different API; its calls are reported (HIP142)",
        ),
        **dict.fromkeys(
            (
                "-dlink",
                "--device-link",
                "-ptx",
                "--ptx",
                "-dlto",
                "--dlink-time-opt",
                "-ewp",
                "--extensible-whole-program",
                "-src-in-ptx",
                "--source-in-ptx",
                "-noprof",
                "--dont-use-profile",
            ),
            _Flag(None, WARN, _KEEP_NVCC, "hip-clang links device code itself with -fgpu-rdc --hip-link"),
        ),
    }
)


# options taking a value, joined (-opt=value) or separate (-opt value): option -> kind
_VALUE_FLAGS: Mapping[str, str] = MappingProxyType(
    {
        **dict.fromkeys(("-Xcompiler", "--compiler-options"), "host"),
        **dict.fromkeys(
            (
                "-Xptxas",
                "--ptxas-options",
                "-Xnvlink",
                "--nvlink-options",
                "-Xcudafe",
                "-Xfatbin",
                "--fatbin-options",
                "-maxrregcount",
                "--maxrregcount",
                "-ccbin",
                "--compiler-bindir",
            ),
            "drop-warn",
        ),
        **dict.fromkeys(
            (
                "-cudart",
                "--cudart",
                "--threads",
                "-diag-suppress",
                "--diag-suppress",
                "--diag_suppress",
                "-keep-dir",
                "--keep-dir",
            ),
            "drop-info",
        ),
        **dict.fromkeys(("--default-stream", "-default-stream"), "stream"),
        **dict.fromkeys(("-rdc", "--relocatable-device-code"), "rdc"),
        **dict.fromkeys(("-std", "--std"), "std"),
        **dict.fromkeys(("-ftz", "--ftz"), "ftz"),
        **dict.fromkeys(("-fmad", "--fmad"), "fmad"),
        **dict.fromkeys(("-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt"), "prec"),
        "-x": "lang",
        "-t": "threads",
    }
)


_ARCH_FLAGS = frozenset({"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code"})


_ARCH_VALUE = lazy(r"""^["'\[]?(?:sm_|compute_|lto_|native|all|arch=|\$[({])""")


_DROP_WARN_HINT = {
    "-ccbin": "hipcc uses clang as the host compiler",
    "--compiler-bindir": "hipcc uses clang as the host compiler",
    "-maxrregcount": "use __launch_bounds__ in the source instead",
    "--maxrregcount": "use __launch_bounds__ in the source instead",
}


_LIB_FLAG = lazy(r"^-l(?P<name>cu\w+|nv\w+|npp\w*|nvidia-ml|nccl(?:_static)?)$")  # nccl: RCCL (LIBS)


def _value_flag(kind: str, name: str, value: str, nvcc_ctx: bool, opts: BuildOptions) -> _Flag | None:
    """Effect of an nvcc option that takes a value; None when it is not the nvcc option after all."""
    bare = value.strip("\"'")
    if kind == "host":
        if "$(" in bare or "${" in bare:
            return _Flag((bare,), None)
        return _Flag(tuple(p for p in bare.split(",") if p), None)
    if kind == "drop-warn":
        return _Flag(
            (), WARN, f"nvcc-only option {name} dropped: no hipcc counterpart", _DROP_WARN_HINT.get(name, "")
        )
    if kind == "drop-info":
        return _Flag((), INFO, f"nvcc-only option {name} dropped")
    if kind == "stream":
        if bare in ("per-thread", "legacy"):
            return _Flag((f"-fgpu-default-stream={bare}",), None)
        return _Flag(None, WARN, f"{name} {bare}: no hipcc counterpart; left as is")
    if kind == "rdc":
        on = bare.lower() in ("true", "1", "on")
        return _Flag(("-fgpu-rdc",) if on else (), INFO, _RDC_NOTE)
    if kind == "std":
        m = re.fullmatch(r"(c|gnu)\+\+(\w\w)", bare)
        if m is None:
            return None
        new = raised_std(m.group(2), opts)
        if new is not None:
            return _Flag((f"-std={m.group(1)}++{new}",), None, "std")  # note made by the caller
        return _Flag((f"-std={bare}",), None)
    if kind == "ftz":
        on = bare.lower() == "true"
        return _Flag(
            ("-fgpu-flush-denormals-to-zero",) if on else (), INFO, f"{name}={bare} mapped for hip-clang"
        )
    if kind == "fmad":
        out = "-ffp-contract=fast" if bare.lower() == "true" else "-ffp-contract=off"
        return _Flag((out,), INFO, f"{name}={bare} mapped to {out}")
    if kind == "prec":
        return _Flag((), INFO, f"{name} dropped: hip-clang rounds division and sqrt correctly by default")
    if kind == "lang":
        return _Flag(("-x", "hip"), None) if bare == "cu" else None
    if kind == "threads":
        return (
            _Flag((), INFO, "nvcc -t (parallel compilation) dropped") if nvcc_ctx and bare.isdigit() else None
        )
    return None


def _lib_flag(flag: str, opts: BuildOptions) -> _Flag | None:
    m = _LIB_FLAG.match(flag)
    if not m:
        return None
    key = lib_key(m.group("name"))
    if key in LIBS:
        return _Flag((f"-l{lib_target(key, opts).split('::')[1]}",), None)
    return _Flag(None, WARN, f"library {flag} has no HIP counterpart; left as is", "port the calls by hand")


@functools.lru_cache(maxsize=1)
def _macro_renames() -> Mapping[str, str]:
    """CUDA macro names (the tables' `define` rows) -> the HIP name the translated sources spell."""
    from hipify_py.data.mappings import load_mappings

    by_cuda = load_mappings().by_cuda
    rows = (by_cuda[name] for name in by_cuda)
    return MappingProxyType({e.cuda: e.hip for e in rows if e.kind == "define" and e.hip and e.hip != e.cuda})


_DEFINE_FLAGS = ("-D", "--define-macro", "-U", "--undefine-macro")


def _renamed_definition(text: str) -> str:
    """NAME[=VALUE] of a -D/-U flag with the CUDA macro names in it renamed as the sources are: the
    translation renames a macro where the code tests or uses it (`THRUST_DEVICE_SYSTEM_CUDA`,
    `CUDA_API_PER_THREAD_DEFAULT_STREAM`), so the build must define the new name."""
    renames = _macro_renames()
    return re.sub(r"[A-Za-z_]\w*", lambda m: renames.get(m.group(0), m.group(0)), text)


def _define_flag(pieces: Sequence[str], i: int) -> tuple[tuple[str, ...], int] | None:
    """(replacement, pieces spanned) for a -D/-U option at i whose macro names the translation renames."""
    p = pieces[i]
    for opt in _DEFINE_FLAGS:
        if p == opt and i + 1 < len(pieces):
            new = _renamed_definition(pieces[i + 1])
            return ((p, new), 2) if new != pieces[i + 1] else None
        joined = opt + "=" if opt.startswith("--") else opt
        if p.startswith(joined) and len(p) > len(joined):
            new = _renamed_definition(p[len(joined) :])
            return ((joined + new,), 1) if new != p[len(joined) :] else None
    return None


def renamed_definitions(args: Sequence[str]) -> dict[int, str]:
    """CMake compile definitions (NAME[=VALUE], no -D) -> index: the renamed text, where it changes
    ("" for nvcc's own identity macros, which a HIP build must not define)."""
    out = {k: "" if _identity(a) else _renamed_definition(a) for k, a in enumerate(args)}
    return {k: t for k, t in out.items() if t != args[k]}


# nvcc's identity macros, which some builds define by hand: under hipcc they make HIP's headers pick the
# NVIDIA platform as well ("Must define exactly one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__"),
# and the translated sources test __HIPCC__ where they tested them (rules/nvcc_guards.py, the tables)
_NVCC_IDENTITY = frozenset({"__NVCC__", "__CUDACC__"})
_IDENTITY_NOTE = (
    "{} dropped: nvcc's own macro, which under hipcc makes HIP's headers pick the NVIDIA platform too; "
    "the translated sources test __HIPCC__ where they tested it"
)


IDENTITY_HINT = "Nothing to do; the HIP build defines __HIPCC__ itself."


def identity_note(definition: str) -> str:
    return _IDENTITY_NOTE.format(definition)


def _identity(definition: str) -> bool:
    return definition.partition("=")[0] in _NVCC_IDENTITY


def _identity_define(pieces: Sequence[str], i: int) -> int:
    """Pieces spanned by a -D of nvcc's identity macro at i (0: none)."""
    p = pieces[i]
    if p in ("-D", "--define-macro") and i + 1 < len(pieces) and _identity(pieces[i + 1]):
        return 2
    for opt in ("-D", "--define-macro="):
        if p.startswith(opt) and _identity(p[len(opt) :]):
            return 1
    return 0


class _FlagNote(NamedTuple):
    index: int  # piece the note is about
    severity: Severity
    message: str
    hint: str
    rule: str = RULE_NVCC_FLAG


def _arch_span(pieces: Sequence[str], i: int) -> int:
    """How many pieces an architecture option at i spans (0: none)."""
    name, eq, _ = pieces[i].partition("=")
    if name in _ARCH_FLAGS and eq:
        return 1
    if pieces[i] in _ARCH_FLAGS and i + 1 < len(pieces) and _ARCH_VALUE.match(pieces[i + 1]):
        return 2
    return 0


def translate_flags(
    pieces: Sequence[str], opts: BuildOptions, nvcc_ctx: bool
) -> tuple[dict[int, tuple[str, ...]], list[_FlagNote]]:
    """Map nvcc flags in one group (a Makefile line, a CMake command) to hipcc flags.

    Returns piece index -> replacement flags (empty: delete) and notes. All architecture options of
    the group collapse into one --offload-arch per configured target, never duplicated.
    """
    new: dict[int, tuple[str, ...]] = {}
    notes: list[_FlagNote] = []
    have = {p.split("=", 1)[1] for p in pieces if p.startswith("--offload-arch=")}
    runtime_named = _HIP_RUNTIME in pieces
    first_arch: int | None = None
    i = 0
    while i < len(pieces):
        span = _arch_span(pieces, i)
        if span:
            first_arch = i if first_arch is None else first_arch
            new.update({k: () for k in range(i, i + span)})
            i += span
            continue
        p = pieces[i]
        identity = _identity_define(pieces, i) if p.startswith(("-D", "--define")) else 0
        if identity:
            new.update({k: () for k in range(i, i + identity)})
            message = identity_note(" ".join(pieces[i : i + identity]))
            notes.append(_FlagNote(i, INFO, message, IDENTITY_HINT))
            i += identity
            continue
        defined = _define_flag(pieces, i) if p.startswith(("-D", "-U", "--define", "--undefine")) else None
        if defined is not None:
            new.update({i: defined[0], **{k: () for k in range(i + 1, i + defined[1])}})
            i += defined[1]
            continue
        name, eq, value = p.partition("=")
        effect, span = _SINGLE_FLAGS.get(p) or _lib_flag(p, opts), 1
        if p == "-G" or p == "--device-debug":
            out = () if "-g" in pieces else ("-g",)  # -g already there: no duplicate
            effect = _Flag(out, INFO, "nvcc -G mapped to -g (device debug info)") if nvcc_ctx else None
        elif effect is None and name in _VALUE_FLAGS:
            if eq:
                effect = _value_flag(_VALUE_FLAGS[name], name, value, nvcc_ctx, opts)
            elif i + 1 < len(pieces):
                effect, span = _value_flag(_VALUE_FLAGS[name], name, pieces[i + 1], nvcc_ctx, opts), 2
        if effect is None:
            i += 1
            continue
        if effect.out == (_HIP_RUNTIME,):
            effect = effect._replace(out=() if runtime_named else effect.out)  # why: once per group
            runtime_named = True
        if effect.out is not None:
            new[i] = effect.out
            new.update({k: () for k in range(i + 1, i + span)})
        if effect.message == "std" and effect.out:
            note = std_note(0, 0, p if span == 1 else f"{p} {pieces[i + 1]}", opts)
            notes.append(_FlagNote(i, note.severity, note.message, note.hint, RULE_STD))
        elif effect.severity is not None:
            notes.append(_FlagNote(i, effect.severity, effect.message, effect.hint))
        i += span
    if first_arch is not None:
        new[first_arch] = tuple(f"--offload-arch={a}" for a in opts.offload_arch if a not in have)
        note = arch_note(0, 0, opts)
        notes.append(_FlagNote(first_arch, note.severity, note.message, note.hint, RULE_ARCH))
    return new, notes
