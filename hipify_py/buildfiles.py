"""Build-file translation: CMake projects and Makefiles from CUDA/nvcc to HIP/hipcc.

Everything here is pure (bytes in, bytes and diagnostics out, no file I/O). Changes are Edit objects
applied in one pass, so every untouched byte (CRLF, tabs, comments) stays byte-identical.

Rules (see the docs of translate_cmake and translate_makefile for the full lists):
- HIP401 (warning): a build construct that was not understood, or a CUDA-looking token left over.
  It is reported, never guessed.
- HIP402: an nvcc-only flag or setting that was dropped, mapped with a caveat (info), or kept
  because it has no AMD counterpart (warning).

Quoted CMake strings: arguments of message() and documentation strings (option(), set(... CACHE
type "doc")) are prose and are neither rewritten nor scanned. Every other quoted or bracket argument
is data (a list of sources, flags, variable names) and is rewritten like an unquoted one, because
its meaning requires it (e.g. set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo")).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.diagnostics import Diagnostic, Severity
from hipify_py.edits import Edit, apply_edits

RULE_NOT_UNDERSTOOD = "HIP401"
RULE_NVCC_FLAG = "HIP402"
_WARN = Severity.WARNING
_INFO = Severity.INFO


@dataclass(frozen=True)
class BuildOptions:
    offload_arch: tuple[str, ...] = ("gfx90a",)  # AMD targets replacing sm_XX / -gencode
    hip_libraries: str = "hip"  # "hip": hipblas, hiprand, ...; "roc": rocblas, rocrand, ...
    # old -> new source file names, when the tree's files are renamed (e.g. kernel.cu -> kernel.hip)
    rename_sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.hip_libraries not in ("hip", "roc"):
            raise ValueError(f"hip_libraries must be 'hip' or 'roc', not {self.hip_libraries!r}")


def build_file_kind(path: str) -> str | None:
    """ "cmake", "make" or None, from the file name alone."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in ("Makefile", "makefile", "GNUmakefile") or name.endswith((".mk", ".make")):
        return "make"
    return None


# --------------------------------------------------------------------------------------------------
# Shared plumbing
# --------------------------------------------------------------------------------------------------


class _Note(NamedTuple):
    start: int  # byte offsets in the original source
    end: int
    rule: str
    severity: Severity
    message: str
    hint: str = ""


@dataclass(frozen=True)
class _Src:
    raw: bytes
    text: str  # latin-1 view: one char per byte, so str offsets are byte offsets
    line_starts: tuple[int, ...]
    nl: str  # the file's line break, reused for inserted lines

    @classmethod
    def of(cls, raw: bytes) -> _Src:
        text = raw.decode("latin-1")
        starts = (0, *(m.end() for m in re.finditer("\n", text)))
        return cls(raw, text, starts, "\r\n" if "\r\n" in text else "\n")

    def line_no(self, pos: int) -> int:
        return bisect.bisect_right(self.line_starts, pos) - 1

    def line_span(self, pos: int) -> tuple[int, int, int]:
        """(start, content end without the line break, start of the next line)."""
        i = self.line_no(pos)
        start = self.line_starts[i]
        nxt = self.line_starts[i + 1] if i + 1 < len(self.line_starts) else len(self.text)
        end = nxt
        if end > start and self.text[end - 1] == "\n":
            end -= 1
            if end > start and self.text[end - 1] == "\r":
                end -= 1
        return start, end, nxt

    def indent_at(self, pos: int) -> str:
        start = self.line_span(pos)[0]
        return re.match(r"[ \t]*", self.text[start:pos]).group(0)

    def diagnostic(self, note: _Note) -> Diagnostic:
        start, end, _ = self.line_span(note.start)
        return Diagnostic(
            rule=note.rule,
            severity=note.severity,
            start=note.start,
            end=note.end,
            line=self.line_no(note.start) + 1,
            col=note.start - start + 1,
            message=note.message,
            hint=note.hint,
            source_line=self.raw[start:end].decode("utf-8", "replace"),
        )


def _edit(start: int, end: int, text: str) -> Edit:
    # texts are latin-1 views of the source plus ASCII, so this restores the original bytes
    return Edit(start, end, text.encode("latin-1"))


def _finish(src: _Src, edits: Iterable[Edit], notes: Iterable[_Note]) -> tuple[bytes, list[Diagnostic]]:
    ordered = sorted(set(notes), key=lambda n: (n.start, n.end, n.rule, n.message))
    return apply_edits(src.raw, edits), [src.diagnostic(n) for n in ordered]


def _line_deletions(text: str, spans: Iterable[tuple[int, int]], ls: int, ce: int) -> tuple[list, bool]:
    """Deletions inside one physical line [ls, ce), widened so the line stays tidy.

    A deleted word takes the blanks before it (or after it, when it starts the line, so the indent
    stays). Returns the widened spans and whether nothing but blanks is left on the line.
    """
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and text[merged[-1][1] : s].strip(" \t") == "":
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    out: list[tuple[int, int]] = []
    for s, e in merged:
        left = s
        while left > ls and text[left - 1] in " \t":
            left -= 1
        if left > ls:
            out.append((left, e))
            continue
        right = e
        while right < ce and text[right] in " \t":
            right += 1
        out.append((s, right))
    pos, rest = ls, []
    for s, e in out:
        rest.append(text[pos:s])
        pos = e
    rest.append(text[pos:ce])
    return out, "".join(rest).strip(" \t") == ""


# --------------------------------------------------------------------------------------------------
# Data tables
# --------------------------------------------------------------------------------------------------


class _Lib(NamedTuple):
    hip: str  # CMake target with hip_libraries == "hip"; the package is the part after "::"
    roc: str  # ... with hip_libraries == "roc"


_LIBS: Mapping[str, _Lib] = MappingProxyType(
    {
        "cublas": _Lib("roc::hipblas", "roc::rocblas"),
        "curand": _Lib("hip::hiprand", "roc::rocrand"),
        "cufft": _Lib("hip::hipfft", "roc::rocfft"),
        "cusparse": _Lib("roc::hipsparse", "roc::rocsparse"),
        "cusolver": _Lib("roc::hipsolver", "roc::rocsolver"),
    }
)
_HOST_TARGET = "hip::host"  # the HIP runtime for host code (cudart, the driver API)
_RUNTIME_LIBS = frozenset({"cudart", "cudart_static", "cuda_driver", "cuda"})


def _lib_target(key: str, opts: BuildOptions) -> str:
    if key in _RUNTIME_LIBS:
        return _HOST_TARGET
    lib = _LIBS[key]
    return lib.roc if opts.hip_libraries == "roc" else lib.hip


def _lib_key(name: str) -> str | None:
    """cudart / cublas_static / cufft ... -> table key, None when there is no counterpart."""
    base = name.removesuffix("_static") if name != "cudart_static" else name
    return base if base in _LIBS or base in _RUNTIME_LIBS else None


# FindCUDA result variables -> key of the library they name
_FINDCUDA_LIB_VARS: Mapping[str, str] = MappingProxyType(
    {
        "CUDA_LIBRARIES": "cudart",
        "CUDA_CUDART_LIBRARY": "cudart",
        "CUDA_cudart_static_LIBRARY": "cudart",
        "CUDA_CUDA_LIBRARY": "cuda",
        "CUDA_CUBLAS_LIBRARIES": "cublas",
        "CUDA_cublas_LIBRARY": "cublas",
        "CUDA_curand_LIBRARY": "curand",
        "CUDA_CUFFT_LIBRARIES": "cufft",
        "CUDA_cufft_LIBRARY": "cufft",
        "CUDA_cusparse_LIBRARY": "cusparse",
        "CUDA_cusolver_LIBRARY": "cusolver",
    }
)
# CUDA names that have a HIP variable with the same meaning (set by find_package(hip))
_CMAKE_IDENTS: Mapping[str, str] = MappingProxyType(
    {
        "CUDA_FOUND": "hip_FOUND",
        "CUDAToolkit_FOUND": "hip_FOUND",
        "CUDA_INCLUDE_DIRS": "HIP_INCLUDE_DIRS",
        "CUDAToolkit_INCLUDE_DIRS": "HIP_INCLUDE_DIRS",
        "CUDA_TOOLKIT_ROOT_DIR": "ROCM_PATH",
        "CUDAToolkit_ROOT": "ROCM_PATH",
    }
)
_CUDA_TARGET_NOTES: Mapping[str, str] = MappingProxyType(
    {
        "nvToolsExt": "NVTX: link roctx64 from roctracer by hand (only range push/pop and marks map)",
        "nvtx3": "NVTX: link roctx64 from roctracer by hand (only range push/pop and marks map)",
        "nvml": "NVML: ROCm SMI (rocm_smi64) is a different API; port by hand",
        "cupti": "CUPTI: use roctracer/rocprofiler, a different API",
        "cublasLt": "cuBLASLt: hipBLASLt is not part of this HIP release; port by hand",
        "nvrtc": "NVRTC: hiprtc has a similar API; link it by hand",
    }
)
# Make variables that hold the CUDA toolkit location; they all become ROCM_PATH
_CUDA_PATH_VARS = (
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDA_INSTALL_PATH",
    "CUDA_TOOLKIT_PATH",
    "CUDA_TOOLKIT_DIR",
    "CUDATOOLKIT_HOME",
    "CUDA_PATH",
    "CUDA_HOME",
    "CUDA_ROOT",
    "CUDA_DIR",
    "CUDADIR",
)
_ROCM_DEFAULT = "/opt/rocm"


# --------------------------------------------------------------------------------------------------
# nvcc flags (shared by Makefiles and CMake flag commands)
# --------------------------------------------------------------------------------------------------


class _Flag(NamedTuple):
    out: tuple[str, ...] | None  # replacement flags (() deletes; None keeps the flag as is)
    severity: Severity | None  # None: no diagnostic
    message: str = ""
    hint: str = ""


_RDC_NOTE = "relocatable device code: hip-clang uses -fgpu-rdc (link with -fgpu-rdc as well)"
_KEEP_NVCC = "nvcc-only flag with no hipcc counterpart; left as is"
_SINGLE_FLAGS: Mapping[str, _Flag] = MappingProxyType(
    {
        **dict.fromkeys(
            ("--expt-relaxed-constexpr", "-expt-relaxed-constexpr"),
            _Flag(
                (), _INFO, "nvcc-only flag dropped: hip-clang calls constexpr host functions from device code"
            ),
        ),
        **dict.fromkeys(
            ("--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda", "-extended-lambda"),
            _Flag((), _INFO, "nvcc-only flag dropped: hip-clang accepts __device__ lambdas without a flag"),
        ),
        **dict.fromkeys(
            ("-lineinfo", "--generate-line-info"),
            _Flag(("-gline-tables-only",), _INFO, "nvcc -lineinfo mapped to -gline-tables-only"),
        ),
        **dict.fromkeys(("-dc", "--device-c"), _Flag(("-fgpu-rdc", "-c"), _INFO, _RDC_NOTE)),
        **dict.fromkeys(
            ("--use_fast_math", "-use_fast_math", "--use-fast-math"),
            _Flag(
                ("-ffast-math",),
                _INFO,
                "--use_fast_math mapped to -ffast-math",
                "denormal flushing and approximate division/sqrt differ from nvcc; check numerics",
            ),
        ),
        "-Wno-deprecated-gpu-targets": _Flag((), _INFO, "nvcc-only warning flag dropped"),
        **dict.fromkeys(("--keep", "-keep"), _Flag((), _INFO, "nvcc-only flag dropped (use -save-temps)")),
        **dict.fromkeys(
            ("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler"),
            _Flag((), _INFO, "nvcc-only flag dropped: hipcc takes host flags directly"),
        ),
        **dict.fromkeys(
            ("--resource-usage", "-res-usage"),
            _Flag((), _INFO, "nvcc-only flag dropped", "use -Rpass-analysis=kernel-resource-usage"),
        ),
        **dict.fromkeys(
            ("-lcudart", "-lcudart_static", "-lcudadevrt"), _Flag((), None)
        ),  # hipcc links amdhip64
        "-lcuda": _Flag((), _INFO, "-lcuda dropped: the driver API is in libamdhip64, which hipcc links"),
        "-lnvToolsExt": _Flag(
            ("-lroctx64",), _INFO, "NVTX -> roctx64: only range push/pop and marks have counterparts"
        ),
        **dict.fromkeys(
            (
                "-dlink",
                "--device-link",
                "-ptx",
                "--ptx",
                "-cubin",
                "--cubin",
                "-fatbin",
                "--fatbin",
                "-dlto",
                "--dlink-time-opt",
                "-ewp",
                "--extensible-whole-program",
                "-src-in-ptx",
                "--source-in-ptx",
                "-restrict",
                "--restrict",
                "-noprof",
                "--dont-use-profile",
            ),
            _Flag(None, _WARN, _KEEP_NVCC, "hip-clang links device code itself with -fgpu-rdc --hip-link"),
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
_ARCH_VALUE = re.compile(r"""^["'\[]?(?:sm_|compute_|lto_|native|all|arch=|\$[({])""")
_DROP_WARN_HINT = {
    "-ccbin": "hipcc uses clang as the host compiler",
    "--compiler-bindir": "hipcc uses clang as the host compiler",
    "-maxrregcount": "use __launch_bounds__ in the source instead",
    "--maxrregcount": "use __launch_bounds__ in the source instead",
}
_LIB_FLAG = re.compile(r"^-l(?P<name>cu\w+|nv\w+|npp\w*|nvidia-ml)$")


def _value_flag(kind: str, name: str, value: str, nvcc_ctx: bool) -> _Flag | None:
    """Effect of an nvcc option that takes a value; None when it is not the nvcc option after all."""
    bare = value.strip("\"'")
    if kind == "host":
        if "$(" in bare or "${" in bare:
            return _Flag((bare,), None)
        return _Flag(tuple(p for p in bare.split(",") if p), None)
    if kind == "drop-warn":
        return _Flag(
            (), _WARN, f"nvcc-only option {name} dropped: no hipcc counterpart", _DROP_WARN_HINT.get(name, "")
        )
    if kind == "drop-info":
        return _Flag((), _INFO, f"nvcc-only option {name} dropped")
    if kind == "stream":
        if bare in ("per-thread", "legacy"):
            return _Flag((f"-fgpu-default-stream={bare}",), None)
        return _Flag(None, _WARN, f"{name} {bare}: no hipcc counterpart; left as is")
    if kind == "rdc":
        on = bare.lower() in ("true", "1", "on")
        return _Flag(("-fgpu-rdc",) if on else (), _INFO, _RDC_NOTE)
    if kind == "std":
        return _Flag((f"-std={bare}",), None) if re.fullmatch(r"c\+\+\d\w*", bare) else None
    if kind == "ftz":
        on = bare.lower() == "true"
        return _Flag(
            ("-fgpu-flush-denormals-to-zero",) if on else (), _INFO, f"{name}={bare} mapped for hip-clang"
        )
    if kind == "fmad":
        out = "-ffp-contract=fast" if bare.lower() == "true" else "-ffp-contract=off"
        return _Flag((out,), _INFO, f"{name}={bare} mapped to {out}")
    if kind == "prec":
        return _Flag((), _INFO, f"{name} dropped: hip-clang rounds division and sqrt correctly by default")
    if kind == "lang":
        return _Flag(("-x", "hip"), None) if bare == "cu" else None
    if kind == "threads":
        return (
            _Flag((), _INFO, "nvcc -t (parallel compilation) dropped")
            if nvcc_ctx and bare.isdigit()
            else None
        )
    return None


def _lib_flag(flag: str, opts: BuildOptions) -> _Flag | None:
    m = _LIB_FLAG.match(flag)
    if not m:
        return None
    key = _lib_key(m.group("name"))
    if key in _LIBS:
        return _Flag((f"-l{_lib_target(key, opts).split('::')[1]}",), None)
    return _Flag(None, _WARN, f"library {flag} has no HIP counterpart; left as is", "port the calls by hand")


class _FlagNote(NamedTuple):
    index: int  # piece the note is about
    severity: Severity
    message: str
    hint: str


def _arch_span(pieces: Sequence[str], i: int) -> int:
    """How many pieces an architecture option at i spans (0: none)."""
    name, eq, _ = pieces[i].partition("=")
    if name in _ARCH_FLAGS and eq:
        return 1
    if pieces[i] in _ARCH_FLAGS and i + 1 < len(pieces) and _ARCH_VALUE.match(pieces[i + 1]):
        return 2
    return 0


def _translate_flags(
    pieces: Sequence[str], opts: BuildOptions, nvcc_ctx: bool
) -> tuple[dict[int, tuple[str, ...]], list[_FlagNote]]:
    """Map nvcc flags in one group (a Makefile line, a CMake command) to hipcc flags.

    Returns piece index -> replacement flags (empty: delete) and notes. All architecture options of
    the group collapse into one --offload-arch per configured target, never duplicated.
    """
    new: dict[int, tuple[str, ...]] = {}
    notes: list[_FlagNote] = []
    have = {p.split("=", 1)[1] for p in pieces if p.startswith("--offload-arch=")}
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
        name, eq, value = p.partition("=")
        effect, span = _SINGLE_FLAGS.get(p) or _lib_flag(p, opts), 1
        if p == "-G" or p == "--device-debug":
            out = () if "-g" in pieces else ("-g",)  # -g already there: no duplicate
            effect = _Flag(out, _INFO, "nvcc -G mapped to -g (device debug info)") if nvcc_ctx else None
        elif effect is None and name in _VALUE_FLAGS:
            if eq:
                effect = _value_flag(_VALUE_FLAGS[name], name, value, nvcc_ctx)
            elif i + 1 < len(pieces):
                effect, span = _value_flag(_VALUE_FLAGS[name], name, pieces[i + 1], nvcc_ctx), 2
        if effect is None:
            i += 1
            continue
        if effect.out is not None:
            new[i] = effect.out
            new.update({k: () for k in range(i + 1, i + span)})
        if effect.severity is not None:
            notes.append(_FlagNote(i, effect.severity, effect.message, effect.hint))
        i += span
    if first_arch is not None:
        new[first_arch] = tuple(f"--offload-arch={a}" for a in opts.offload_arch if a not in have)
    return new, notes


# --------------------------------------------------------------------------------------------------
# Source renames
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Renames:
    table: Mapping[str, str]  # latin-1 views of the names
    uniform_ext: str | None  # ".hip" when every renamed .cu file gets that extension, else None

    @classmethod
    def of(cls, rename: Mapping[str, str]) -> _Renames:
        table = {
            k.encode().decode("latin-1").replace("\\", "/"): v.encode().decode("latin-1").replace("\\", "/")
            for k, v in rename.items()
        }
        exts = {_ext(v) for k, v in table.items() if k.endswith(".cu")}
        return cls(MappingProxyType(table), exts.pop() if len(exts) == 1 else None)

    def lookup(self, item: str) -> str | None:
        """New spelling of a source name as written (only the file name part changes)."""
        for old, new in self.table.items():
            if item == old or item.endswith("/" + old) or old.endswith("/" + item):
                base_old, base_new = old.rsplit("/", 1)[-1], new.rsplit("/", 1)[-1]
                if item.endswith(base_old):
                    return item[: len(item) - len(base_old)] + base_new
        return None


def _ext(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base[base.rfind(".") :] if "." in base else ""


# --------------------------------------------------------------------------------------------------
# Makefiles
# --------------------------------------------------------------------------------------------------


class _Piece(NamedTuple):
    start: int  # absolute byte offsets of the text
    end: int
    text: str


class _Phys(NamedTuple):
    start: int
    end: int  # content end: before a continuation backslash and before the line break
    cont: bool  # ends with a continuation backslash


class _MakeLine(NamedTuple):
    phys: tuple[_Phys, ...]
    recipe: bool
    words: tuple[_Piece, ...]  # words outside comments (trailing unbalanced ')' trimmed)
    comment_only: bool


_MAKE_ASSIGN = re.compile(
    r"[ \t]*(?:(?:export|override|private)[ \t]+)*(?P<name>[A-Za-z0-9_.-]+)[ \t]*"
    r"(?P<op>:::=|::=|:=|\?=|\+=|!=|=)"
)
_MAKE_DIRECTIVE = re.compile(
    r"[ \t]*(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|export|"
    r"unexport|vpath|override)\b"
)
_PATH_VARS_RE = "|".join(_CUDA_PATH_VARS)
_MAKE_WORD = re.compile(
    r"(?P<path>(?:\$\((?P<pv>" + _PATH_VARS_RE + r")\)|\$\{(?P<bv>" + _PATH_VARS_RE + r")\}"
    r"|(?<![/.])/usr/local/cuda(?:-[0-9][0-9.]*)?(?![\w.-])|(?<![/.])/opt/cuda(?![\w.-]))"
    r"(?P<sub>/[\w.+-]+(?:/nvcc(?![\w.-]))?)?)"
    r"|(?P<var>(?<![\w])(?:" + _PATH_VARS_RE + r")(?![\w]))"
    r"|(?P<nvcc>(?:^|(?<=[\s=@'\"(,;]))(?:[^\s'\"(),;]*/)?nvcc(?![\w.-]))"
)
_RESIDUE = re.compile(r"[A-Za-z0-9_]*(?:[Cc][Uu][Dd][Aa]|[Nn][Vv][Cc][Cc])[A-Za-z0-9_]*")
_FILE_WORD = re.compile(r"[\w./$(){}-]+\.(?:cu|cuh|o|obj|cpp|cxx|cc|c|h|hpp|hip|a|so)$")
_CU_PATTERN = re.compile(r"(?:(?<=[%*:])|^)\.cu(?=$|[=.:)\s,])")


def _make_lines(src: _Src) -> list[_MakeLine]:
    text, out = src.text, []
    in_rule = False
    i = 0
    n_lines = len(src.line_starts)
    while i < n_lines and src.line_starts[i] < len(text):
        phys: list[_Phys] = []
        while True:
            ls, ce, _ = src.line_span(src.line_starts[i])
            body = text[ls:ce]
            slashes = len(body) - len(body.rstrip("\\"))
            cont = slashes % 2 == 1
            phys.append(_Phys(ls, ce - 1 if cont else ce, cont))
            i += 1
            if not cont or i >= n_lines or src.line_starts[i] >= len(text):
                break
        first = text[phys[0].start : phys[0].end]
        recipe = in_rule and first.startswith("\t")
        stripped = first.strip()
        if not recipe and stripped and not stripped.startswith("#"):
            # a rule line starts recipe context; any other non-blank line ends it
            in_rule = not _MAKE_ASSIGN.match(first) and not _MAKE_DIRECTIVE.match(first) and ":" in first
        words = _make_words(text, phys, recipe)
        out.append(_MakeLine(tuple(phys), recipe, tuple(words), stripped.startswith("#") and not recipe))
    return out


def _make_words(text: str, phys: Sequence[_Phys], recipe: bool) -> list[_Piece]:
    """Words outside comments; quotes keep blanks inside a word; unbalanced ')' are not part of it."""
    words: list[_Piece] = []
    for line in phys:
        j = line.start
        while j < line.end:
            c = text[j]
            if c in " \t":
                j += 1
                continue
            if c == "#" and (not recipe or j == line.start or text[j - 1] in " \t"):
                return words  # a comment runs to the end of the logical line
            k = j
            while k < line.end and text[k] not in " \t":
                if text[k] in "\"'":
                    close = text.find(text[k], k + 1, line.end)
                    k = close + 1 if close > 0 else line.end
                    continue
                if text[k] == "#" and not recipe and text[k - 1] != "\\":
                    break
                if text[k] == "\\":
                    k += 1
                k += 1
            word = text[j:k]
            while word.endswith((")", "}")) and word.count("(") + word.count("{") < word.count(
                ")"
            ) + word.count("}"):
                word = word[:-1]
            if word:
                words.append(_Piece(j, j + len(word), word))
            if k < line.end and text[k] == "#":
                return words
            j = k
    return words


class _WordChange(NamedTuple):
    text: str
    notes: tuple[_Note, ...]
    rocm_used: bool


def _make_word(word: _Piece, renames: _Renames) -> _WordChange:
    """Per-word rewrites: toolkit paths -> $(ROCM_PATH), nvcc -> hipcc, renamed sources."""
    renamed = renames.lookup(word.text)
    if renamed is not None:
        return _WordChange(renamed, (), False)
    notes: list[_Note] = []
    used = False

    def sub(m: re.Match[str]) -> str:
        nonlocal used
        at, end = word.start + m.start(), word.start + m.end()
        if m.group("path"):
            used = True
            base = "${ROCM_PATH}" if m.group("bv") else "$(ROCM_PATH)"
            rest = m.group("sub") or ""
            if rest.endswith("/nvcc"):
                return base + "/bin/hipcc"
            if rest == "/lib64":
                return base + "/lib"
            if rest and rest not in ("/include", "/lib", "/bin"):
                notes.append(
                    _Note(at, end, RULE_NOT_UNDERSTOOD, _WARN, f"{m.group(0)}: no counterpart under ROCm")
                )
            return base + rest
        if m.group("var"):
            used = True
            return "ROCM_PATH"
        return "hipcc"

    text = _MAKE_WORD.sub(sub, word.text)
    if renames.uniform_ext:
        text = _CU_PATTERN.sub(renames.uniform_ext, text)
    elif renames.table and _CU_PATTERN.search(text):
        notes.append(
            _Note(
                word.start,
                word.end,
                RULE_NOT_UNDERSTOOD,
                _WARN,
                "pattern over .cu files, but the renamed sources do not share one new extension",
                "update this pattern by hand",
            )
        )
    return _WordChange(text, tuple(notes), used)


def _make_residue(word: _Piece, new_text: str, defined: frozenset[str]) -> list[_Note]:
    if _FILE_WORD.search(new_text):
        return []
    notes = []
    for m in _RESIDUE.finditer(new_text):
        tok = m.group(0)
        if tok in defined or re.fullmatch(r"NVCC\w*", tok):
            continue  # the user's own variable names are kept on purpose
        start, end = (word.start + m.start(), word.start + m.end()) if new_text == word.text else word[:2]
        notes.append(
            _Note(
                start,
                end,
                RULE_NOT_UNDERSTOOD,
                _WARN,
                f"CUDA-specific `{tok}` left as is: not understood",
                "port this part of the build by hand",
            )
        )
    return notes


def _nvcc_context(line: _MakeLine, assign: re.Match[str] | None) -> bool:
    if assign and re.search(r"(?i)nvcc|cuda|gencode|gpu|hip|^cu", assign.group("name")):
        return True
    return any(re.search(r"(?i)(?:^|[/@(])(?:nvcc|hipcc)\b|\$[({]NVCC", w.text) for w in line.words)


def translate_makefile(source: bytes, opts: BuildOptions) -> tuple[bytes, list[Diagnostic]]:
    """Translate a Makefile (or *.mk) from nvcc to hipcc.

    - nvcc as the compiler (`NVCC := nvcc`, `CC=nvcc`, a literal nvcc in a recipe) -> hipcc;
      variable names (NVCC, NVCCFLAGS) are kept so users' command lines keep working.
    - -arch/-gencode/--gpu-architecture/-code -> one --offload-arch per target per line.
    - libraries: -lcudart removed, -lcublas -> -lhipblas (roc: -lrocblas), ... (see _LIBS).
    - toolkit paths ($(CUDA_PATH), /usr/local/cuda, lib64) -> $(ROCM_PATH)-based, with a
      `ROCM_PATH ?= /opt/rocm` line; definitions of CUDA_PATH/CUDA_HOME/... become that line.
    - other nvcc flags: mapped or dropped with HIP402 (see _SINGLE_FLAGS and _VALUE_FLAGS).
    - .cu pattern rules keep working (hipcc compiles .cu as HIP); with rename_sources, names and,
      when every .cu file gets one new extension, %.cu / *.cu / .cu= patterns follow.
    """
    src = _Src.of(source)
    renames = _Renames.of(opts.rename_sources)
    lines = _make_lines(src)
    assigns = [
        None if ln.recipe or ln.comment_only else _MAKE_ASSIGN.match(src.text, ln.phys[0].start)
        for ln in lines
    ]
    defined = frozenset(m.group("name") for m in assigns if m)
    rocm_defined = "ROCM_PATH" in defined
    edits: list[Edit] = []
    notes: list[_Note] = []
    first_rocm_use: _Piece | None = None
    for line, assign in zip(lines, assigns, strict=True):
        if line.comment_only or not line.words:
            continue
        if assign and assign.group("name") in _CUDA_PATH_VARS:
            values = [w for w in line.words if w.start >= assign.end()]
            end = values[-1].end if values else assign.end()
            edits.append(_edit(assign.start("name"), end, f"ROCM_PATH ?= {_ROCM_DEFAULT}"))
            notes.append(
                _Note(
                    assign.start("name"),
                    assign.end("name"),
                    RULE_NVCC_FLAG,
                    _INFO,
                    f"{assign.group('name')} (CUDA toolkit location) replaced by "
                    f"ROCM_PATH ?= {_ROCM_DEFAULT}",
                    "override it with `make ROCM_PATH=...`",
                )
            )
            rocm_defined = True
            continue
        words = list(line.words)
        if assign is not None:  # only the value is translated; `CC=nvcc` is one word, split it
            cut = assign.end()
            words = [
                w if w.start >= cut else _Piece(cut, w.end, w.text[cut - w.start :])
                for w in words
                if w.end > cut
            ]
        new, flag_notes = _translate_flags([w.text for w in words], opts, _nvcc_context(line, assign))
        notes.extend(
            _Note(
                words[fn.index].start, words[fn.index].end, RULE_NVCC_FLAG, fn.severity, fn.message, fn.hint
            )
            for fn in flag_notes
        )
        deletions: list[tuple[int, int]] = []
        for k, word in enumerate(words):
            if k in new:
                if new[k]:
                    if " ".join(new[k]) != word.text:
                        edits.append(_edit(word.start, word.end, " ".join(new[k])))
                else:
                    deletions.append((word.start, word.end))
                continue
            change = _make_word(word, renames)
            notes.extend(change.notes)
            if change.rocm_used and first_rocm_use is None:
                first_rocm_use = word
            if change.text != word.text:
                edits.append(_edit(word.start, word.end, change.text))
            notes.extend(_make_residue(word, change.text, defined))
        edits.extend(_make_deletions(src.text, line, deletions))
    if first_rocm_use is not None and not rocm_defined:
        at = next((ln.phys[0].start for ln in lines if ln.words and not ln.comment_only), 0)
        edits.append(_edit(at, at, f"ROCM_PATH ?= {_ROCM_DEFAULT}{src.nl}"))
        notes.append(
            _Note(
                first_rocm_use.start,
                first_rocm_use.end,
                RULE_NVCC_FLAG,
                _INFO,
                f"CUDA toolkit paths replaced by $(ROCM_PATH); added `ROCM_PATH ?= {_ROCM_DEFAULT}`",
                "override it with `make ROCM_PATH=...` (Debian/Ubuntu packages: ROCM_PATH=/usr)",
            )
        )
    return _finish(src, edits, notes)


def _make_deletions(text: str, line: _MakeLine, spans: Sequence[tuple[int, int]]) -> list[Edit]:
    """Delete words of one logical line; continuation lines left empty disappear with their backslash."""
    if not spans:
        return []
    per_line: list[tuple[list[tuple[int, int]], bool]] = []
    for ph in line.phys:
        mine = [(s, e) for s, e in spans if ph.start <= s < ph.end]
        per_line.append(_line_deletions(text, mine, ph.start, ph.end) if mine else ([], False))
    # the first line is never dropped: it carries the recipe tab or the assignment
    emptied = [k > 0 and bool(d) and empty for k, (d, empty) in enumerate(per_line)]
    last_kept = max(k for k, e in enumerate(emptied) if not e)
    edits: list[Edit] = []
    for k, ph in enumerate(line.phys):
        if k == last_kept and k < len(line.phys) - 1 and all(emptied[k + 1 :]):
            # the tail of the logical line vanished: end it here, without the backslash
            cut = ph.end
            while cut > ph.start and text[cut - 1] in " \t":
                cut -= 1
            deleted = per_line[k][0]
            edits.extend(_edit(s, e, "") for s, e in deleted if e <= cut)
            cut = min([cut, *(s for s, e in deleted if e > cut)])
            edits.append(_edit(cut, line.phys[-1].end, ""))
            break
        if emptied[k]:
            edits.append(_edit(ph.start, line.phys[k + 1].start if k + 1 < len(line.phys) else ph.end, ""))
        else:
            edits.extend(_edit(s, e, "") for s, e in per_line[k][0])
    return edits


# --------------------------------------------------------------------------------------------------
# CMake
# --------------------------------------------------------------------------------------------------


class _Arg(NamedTuple):
    start: int
    end: int
    kind: str  # "u" unquoted, "q" quoted, "b" bracket
    text: str  # raw, with quotes or brackets


class _Cmd(NamedTuple):
    name: str
    start: int
    name_end: int
    rparen: int  # offset of the closing ')'
    args: tuple[_Arg, ...]

    @property
    def key(self) -> str:
        return self.name.lower()

    def texts(self) -> list[str]:
        return [a.text for a in self.args]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET = re.compile(r"\[(=*)\[")


def _skip_comment(text: str, i: int) -> int:
    m = _BRACKET.match(text, i + 1)
    if m:
        close = text.find("]" + m.group(1) + "]", m.end())
        return len(text) if close < 0 else close + len(m.group(1)) + 2
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl


def _parse_args(text: str, i: int) -> tuple[list[_Arg], int | None]:
    """Arguments from just after '(' to the matching ')' (None: unterminated)."""
    args: list[_Arg] = []
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _skip_comment(text, i)
        elif c == "(":
            depth, i = depth + 1, i + 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return args, i
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return args, None
            args.append(_Arg(i, j + 1, "q", text[i : j + 1]))
            i = j + 1
        elif c == "[" and (m := _BRACKET.match(text, i)):
            close = text.find("]" + m.group(1) + "]", m.end())
            if close < 0:
                return args, None
            end = close + len(m.group(1)) + 2
            args.append(_Arg(i, end, "b", text[i:end]))
            i = end
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n()#"':
                j += 2 if text[j] == "\\" else 1
                if j < n and text[j] == '"':  # legacy unquoted argument with an embedded quote: -DX="a b"
                    close = text.find('"', j + 1)
                    j = n if close < 0 else close + 1
            args.append(_Arg(i, j, "u", text[i:j]))
            i = j
    return args, None


def _cmake_parse(text: str) -> tuple[list[_Cmd], list[_Note]]:
    cmds: list[_Cmd] = []
    notes: list[_Note] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            i = _skip_comment(text, i)
            continue
        m = _IDENT.match(text, i)
        if m:
            j = m.end()
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "(":
                args, rparen = _parse_args(text, j + 1)
                if rparen is None:
                    notes.append(
                        _Note(m.start(), m.end(), RULE_NOT_UNDERSTOOD, _WARN, "unterminated CMake command")
                    )
                    break
                cmds.append(_Cmd(m.group(), m.start(), m.end(), rparen, tuple(args)))
                i = rparen + 1
                continue
        eol = text.find("\n", i)
        eol = n if eol < 0 else eol
        notes.append(_Note(i, eol, RULE_NOT_UNDERSTOOD, _WARN, "CMake syntax not understood; left as is"))
        i = eol
    return cmds, notes


_CM_GENERIC = re.compile(
    r"(?P<cvar>(?<![A-Za-z0-9_])CMAKE_CUDA_(?:STANDARD_REQUIRED|STANDARD|EXTENSIONS|FLAGS(?:_[A-Z]+)?"
    r"|COMPILER_LAUNCHER|COMPILER|ARCHITECTURES)(?![A-Za-z0-9_]))"
    r"|(?P<prop>(?<![A-Za-z0-9_])CUDA_(?:ARCHITECTURES|STANDARD_REQUIRED|STANDARD|EXTENSIONS)(?![A-Za-z0-9_]))"
    r"|(?P<ref>\$\{(?P<refname>" + "|".join(_FINDCUDA_LIB_VARS) + r")\})"
    r"|(?P<ident>(?<![A-Za-z0-9_])(?:" + "|".join(_CMAKE_IDENTS) + r")(?![A-Za-z0-9_]))"
    r"|(?P<tgt>(?<![A-Za-z0-9_:])CUDA::(?P<tname>[A-Za-z0-9_]+))"
    r"|(?P<lang>\$<(?:COMPILE|LINK)_LANG(?P<andid>_AND_ID)?(?:UAGE)?:)(?P<langs>[^>]*)"
    r"|(?P<feat>(?<![A-Za-z0-9_])cuda_std_(?P<std>\d+)(?![A-Za-z0-9_]))"
)
_CUDA_TARGET = re.compile(r"(?<![A-Za-z0-9_:])CUDA::(\w+)")
_WORD_CUDA = re.compile(r"(?<![A-Za-z0-9_])CUDA(?![A-Za-z0-9_])")
_ARCH_ITEM = re.compile(r"(?:\d+[a-z]?(?:-real|-virtual)?|native|all|all-major|sm_\w+|compute_\w+)")
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
# CUDA-namespace names: never treated as the user's own names
_CUDA_OWNED = re.compile(
    r"CMAKE_CUDA_|CUDA_(?:NVCC|HOST|PROPAGATE|SEPARABLE|VERBOSE|64_BIT|ATTACH|BUILD|GENERATED|USE_STATIC|"
    r"TOOLKIT|SDK|LINK|RESOLVE|INCLUDE|LIBRARIES|FOUND|VERSION|ARCHITECTURES|STANDARD|EXTENSIONS|cu)|CUDAToolkit"
)
_RDC_COMPILE = "$<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>"
_RDC_LINK = '"$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>"'
_RDC_CMAKE_NOTE = (
    "separable compilation mapped to -fgpu-rdc (CMake's HIP language has no separable-compilation property)"
)
_RDC_CMAKE_HINT = "targets that link this code must be linked by the HIP compiler (clang++ with --hip-link)"


@dataclass(frozen=True)
class _CMakeFacts:
    opts: BuildOptions
    renames: _Renames
    hip_enabled: bool  # project()/enable_language() already name CUDA or HIP
    packages: tuple[str, ...]  # hip library packages the file's targets need, in first-use order
    found: frozenset[str]  # packages the file already finds (lower case)
    user_names: frozenset[str]  # the user's own variables and targets: not reported when CUDA-ish


@dataclass
class _Plan:
    """What to do with one command; a local builder, filled by one handler."""

    rename: str | None = None  # new command name
    args: dict[int, str | None] = field(default_factory=dict)  # arg index -> new raw text (None deletes)
    whole: str | None = None  # new text for the whole command ("" deletes it)
    after: list[str] = field(default_factory=list)  # commands added on new lines after it
    notes: list[_Note] = field(default_factory=list)
    skip: set[int] = field(default_factory=set)  # args left alone: no rewrite, no residue report
    handled_name: bool = False


def _q(item: str) -> str:
    return f'"{item}"' if re.search(r"[\s;()#]", item) else item


def _inner(arg: _Arg) -> tuple[int, str]:
    """Offset of the value inside the raw argument, and the value."""
    if arg.kind == "q":
        return 1, arg.text[1:-1]
    if arg.kind == "b":
        m = _BRACKET.match(arg.text)
        return m.end(), arg.text[m.end() : len(arg.text) - len(m.group(1)) - 2]
    return 0, arg.text


def _cmake_generic(arg: _Arg, facts: _CMakeFacts) -> tuple[str, list[_Note]]:
    """Renames valid in any data argument: variables, properties, targets, genexes, sources."""
    notes: list[_Note] = []

    def sub(m: re.Match[str]) -> str:
        at, end = arg.start + m.start(), arg.start + m.end()
        if m.group("cvar") or m.group("prop"):
            return m.group(0).replace("CUDA", "HIP", 1)
        if m.group("ref"):
            return _lib_target(_FINDCUDA_LIB_VARS[m.group("refname")], facts.opts)
        if m.group("ident"):
            return _CMAKE_IDENTS[m.group("ident")]
        if m.group("tgt"):
            key = _lib_key(m.group("tname"))
            if key is not None:
                return _lib_target(key, facts.opts)
            name = m.group("tname")
            msg = _CUDA_TARGET_NOTES.get(name, f"CUDA::{name} has no HIP counterpart target")
            notes.append(_Note(at, end, RULE_NOT_UNDERSTOOD, _WARN, msg, "link the ROCm library by hand"))
            return m.group(0)
        if m.group("lang"):
            langs = _WORD_CUDA.sub("HIP", m.group("langs"))
            if m.group("andid"):
                langs = langs.replace("NVIDIA", "Clang")
            return m.group("lang") + langs
        return f"hip_std_{m.group('std')}"

    off, value = _inner(arg)
    new_value = _CM_GENERIC.sub(sub, value)
    if arg.kind != "b":
        items = new_value.split(";")
        renamed = [facts.renames.lookup(it) or it for it in items]
        new_value = ";".join(renamed)
    return arg.text[:off] + new_value + arg.text[off + len(value) :], notes


def _cmake_residue(arg: _Arg, new_text: str, facts: _CMakeFacts, known: Sequence[_Note]) -> list[_Note]:
    notes = []
    for m in _RESIDUE.finditer(new_text):
        tok = m.group(0)
        at = arg.start + m.start()
        if tok in facts.user_names or any(n.start <= at < n.end for n in known):
            continue  # the user's own names; or already reported more precisely
        start, end = (
            (arg.start + m.start(), arg.start + m.end()) if new_text == arg.text else (arg.start, arg.end)
        )
        notes.append(
            _Note(
                start,
                end,
                RULE_NOT_UNDERSTOOD,
                _WARN,
                f"CUDA-specific `{tok}` left as is: not understood",
                "port this part of the build by hand",
            )
        )
    return notes


def _arch_value(arg: _Arg, opts: BuildOptions) -> str | None:
    """The offload-arch list in the argument's quoting, or None when the value is not an arch list."""
    off, value = _inner(arg)
    items = [v for v in value.split(";") if v]
    if arg.kind == "b" or not items or not all(_ARCH_ITEM.fullmatch(v) for v in items):
        return None
    archs = ";".join(opts.offload_arch)
    if arg.kind == "u" and len(opts.offload_arch) > 1:
        return f'"{archs}"'  # unquoted, the list would split into several arguments
    return arg.text[:off] + archs + arg.text[off + len(value) :]


def _set_arch_values(cmd: _Cmd, first: int, last: int, plan: _Plan, opts: BuildOptions) -> None:
    """Replace architecture values args[first:last] by the configured AMD targets."""
    values = cmd.args[first:last]
    new = _arch_value(values[0], opts) if len(values) == 1 else None
    if len(values) > 1 and all(_arch_value(v, opts) is not None for v in values):
        new = _arch_value(values[0], opts)
    if new is None:
        if values:
            plan.notes.append(
                _Note(
                    values[0].start,
                    values[-1].end,
                    RULE_NOT_UNDERSTOOD,
                    _WARN,
                    "GPU architecture value not understood; left as is",
                    f"set it to AMD targets such as {';'.join(opts.offload_arch)}",
                )
            )
            plan.skip.update(range(first, last))
        return
    plan.args[first] = new
    plan.args.update({k: None for k in range(first + 1, last)})


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


def _cmake_flags(cmd: _Cmd, idxs: Sequence[int], plan: _Plan, facts: _CMakeFacts) -> list[str]:
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
    new, flag_notes = _translate_flags([p for _, _, p in parts], facts.opts, True)
    for fn in flag_notes:
        k, off, piece = parts[fn.index]
        at = cmd.args[k].start + off
        plan.notes.append(_Note(at, at + len(piece), RULE_NVCC_FLAG, fn.severity, fn.message, fn.hint))
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
        plan.args[k] = _cmake_generic(_Arg(cmd.args[k].start, cmd.args[k].end, "u", rebuilt), facts)[0]
    return left


def _is_on(arg: _Arg | None) -> bool:
    return arg is not None and _inner(arg)[1].upper() in _ON


def _rdc_target_lines(targets: Iterable[str]) -> list[str]:
    return [
        line
        for t in targets
        for line in (
            f"target_compile_options({t} PUBLIC {_RDC_COMPILE})",
            f"target_link_options({t} PUBLIC {_RDC_LINK})",
        )
    ]


def _source_commands(cmd: _Cmd, facts: _CMakeFacts, covered: set[str], plan: _Plan) -> None:
    """Give .cu sources the HIP language (or leave them to renames that make them .hip)."""
    need: list[str] = []
    for arg in cmd.args:
        if arg.kind == "b":
            continue
        for item in _inner(arg)[1].split(";"):
            if not item.endswith(".cu") or item.startswith("$<"):
                continue
            item = facts.renames.lookup(item) or item
            if not item.endswith(".hip") and item not in covered and item not in need:
                need.append(item)
    if need:
        covered.update(need)
        plan.after.append(f"set_source_files_properties({' '.join(map(_q, need))} PROPERTIES LANGUAGE HIP)")


def _plan_set(cmd: _Cmd, facts: _CMakeFacts, covered: set[str], plan: _Plan) -> None:
    texts = cmd.texts()
    var = texts[0] if texts else ""
    stop = next((k for k, t in enumerate(texts) if k > 0 and t in _SET_OPTIONS), len(texts))
    if "CACHE" in texts[1:]:
        plan.skip.update(
            range(texts.index("CACHE", 1) + 2, len(texts))
        )  # CACHE <type> "<doc>": the doc is prose
    if var == "CMAKE_CUDA_ARCHITECTURES":
        _set_arch_values(cmd, 1, stop, plan, facts.opts)
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
            _Note(cmd.start, cmd.rparen + 1, RULE_NVCC_FLAG, _INFO, _RDC_CMAKE_NOTE, _RDC_CMAKE_HINT)
        )
    elif var == "CMAKE_CUDA_COMPILER":
        plan.whole = ""
        plan.notes.append(
            _Note(
                cmd.start,
                cmd.rparen + 1,
                RULE_NVCC_FLAG,
                _WARN,
                "CMAKE_CUDA_COMPILER setting dropped: "
                "CMake's HIP language needs ROCm's clang++, not nvcc or hipcc",
                "pass -DCMAKE_HIP_COMPILER=<rocm>/llvm/bin/clang++ if CMake does not find it",
            )
        )
    elif var in _FINDCUDA_SETTINGS:
        plan.whole = ""
        plan.notes.append(
            _Note(
                cmd.start,
                cmd.rparen + 1,
                RULE_NVCC_FLAG,
                _INFO,
                f"nvcc setting {var} dropped: no HIP counterpart",
            )
        )
    else:
        _source_commands(cmd, facts, covered, plan)


def _join_lines(lines: Sequence[str]) -> str:
    # marker joined later with the file's line break and the command's indent
    return "\n".join(lines)


def _plan_nvcc_flags(cmd: _Cmd, first: int, plan: _Plan, facts: _CMakeFacts) -> None:
    """FindCUDA's CUDA_NVCC_FLAGS list -> HIP compile options for the targets defined after it."""
    idxs = [k for k in range(first, len(cmd.args)) if cmd.args[k].text not in _SET_OPTIONS]
    idxs = [k for k in idxs if not re.fullmatch(r'"?\$\{CUDA_NVCC_FLAGS\}"?', cmd.args[k].text)]
    left = [f for f in _cmake_flags(cmd, idxs, plan, facts) if not re.fullmatch(r"\$\{CUDA_NVCC_FLAGS\}", f)]
    plan.whole = f'add_compile_options("$<$<COMPILE_LANGUAGE:HIP>:{";".join(left)}>")' if left else ""
    plan.notes.append(
        _Note(
            cmd.start,
            cmd.rparen + 1,
            RULE_NVCC_FLAG,
            _INFO,
            "CUDA_NVCC_FLAGS replaced by HIP compile options (they apply to targets defined after this line)",
        )
    )


def _plan_properties(cmd: _Cmd, facts: _CMakeFacts, plan: _Plan) -> None:
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


def _property_note(arg: _Arg, name: str, plan: _Plan) -> None:
    if name == "CUDA_SEPARABLE_COMPILATION":
        plan.notes.append(_Note(arg.start, arg.end, RULE_NVCC_FLAG, _INFO, _RDC_CMAKE_NOTE, _RDC_CMAKE_HINT))
    else:
        plan.notes.append(
            _Note(
                arg.start, arg.end, RULE_NVCC_FLAG, _INFO, f"{name} dropped: no HIP counterpart (not needed)"
            )
        )


def _plan_cuda_add(cmd: _Cmd, facts: _CMakeFacts, covered: set[str], plan: _Plan) -> None:
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


def _plan_glob(cmd: _Cmd, facts: _CMakeFacts, covered: set[str], plan: _Plan) -> None:
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
    cu = [j for j in patterns if _inner(cmd.args[j])[1].endswith(".cu")]
    if not cu:
        return
    ext = facts.renames.uniform_ext
    if ext:
        for j in cu:
            plan.args[j] = cmd.args[j].text.replace(".cu", ext) if cmd.args[j].kind == "u" else None
            if cmd.args[j].kind != "u":
                off, value = _inner(cmd.args[j])
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
        _Note(
            cmd.start,
            cmd.rparen + 1,
            RULE_NOT_UNDERSTOOD,
            _WARN,
            "glob mixes CUDA sources with others: cannot tell which files need LANGUAGE HIP",
            "glob the .cu files into their own variable and set LANGUAGE HIP on it",
        )
    )


def _plan_link(cmd: _Cmd, facts: _CMakeFacts, plan: _Plan) -> None:
    """target_link_libraries / link_libraries: plain CUDA library names and -l flags."""
    first = 1 if cmd.key == "target_link_libraries" else 0
    flags: list[int] = []
    for k in range(first, len(cmd.args)):
        arg = cmd.args[k]
        key = _lib_key(arg.text) if arg.kind == "u" else None
        if arg.text in _LINK_KEYWORDS:
            continue
        if key is not None:
            plan.args[k] = _lib_target(key, facts.opts)
        elif arg.text.startswith(("-", '"-')):
            flags.append(k)
    _cmake_flags(cmd, flags, plan, facts)


def _plan_command(cmd: _Cmd, facts: _CMakeFacts, covered: set[str], state: dict[str, bool]) -> _Plan:
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
        plan.whole = f"target_link_libraries({texts[0]} {_lib_target(lib, opts)})"
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
    elif key in ("target_link_libraries", "link_libraries"):
        _plan_link(cmd, facts, plan)
    elif key in ("set_target_properties", "set_property", "set_source_files_properties"):
        _plan_properties(cmd, facts, plan)
    elif key == "file":
        _plan_glob(cmd, facts, covered, plan)
    elif key.startswith("cuda_"):
        plan.handled_name = True
        plan.skip.update(range(len(cmd.args)))
        plan.notes.append(
            _Note(
                cmd.start,
                cmd.name_end,
                RULE_NOT_UNDERSTOOD,
                _WARN,
                f"FindCUDA command {cmd.name}() has no HIP counterpart; left as is",
                "port this part of the build by hand",
            )
        )
    return plan


def _cmake_facts(cmds: Sequence[_Cmd], opts: BuildOptions) -> tuple[_CMakeFacts, set[str], list[_Note]]:
    """What the whole file tells: enabled languages, needed library packages, covered sources."""
    hip_enabled = False
    packages: dict[str, tuple[int, int]] = {}  # package -> span of its first use
    found: set[str] = set()
    user: set[str] = set()
    covered: set[str] = set()
    has_find_cuda = False
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
                (_FINDCUDA_LIB_VARS[m.group(1)], arg.start + m.start(), arg.start + m.end())
                for m in re.finditer(r"\$\{(\w+)\}", arg.text)
                if m.group(1) in _FINDCUDA_LIB_VARS
            ]
            if key in ("target_link_libraries", "link_libraries") and arg.kind == "u":
                keys.append((arg.text, arg.start, arg.end))
        if key in ("cuda_add_cublas_to_target", "cuda_add_cufft_to_target"):
            keys.append(("cublas" if "cublas" in key else "cufft", cmd.start, cmd.name_end))
        for name, start, end in keys:
            lib = _lib_key(name)
            if lib in _LIBS:
                packages.setdefault(_lib_target(lib, opts).split("::")[1], (start, end))
        if key == "set_source_files_properties" or (key == "set_property" and texts[:1] == ["SOURCE"]):
            covered.update(_sources_with_language(cmd))
    notes = [
        _Note(
            *span,
            RULE_NOT_UNDERSTOOD,
            _WARN,
            f"the HIP target needs find_package({pkg}), and this file finds no CUDA package to replace",
            f"add find_package({pkg} REQUIRED) where the project finds its packages",
        )
        for pkg, span in packages.items()
        if not has_find_cuda and pkg not in found
    ]
    user = {u for u in user if not _CUDA_OWNED.match(u)}
    facts = _CMakeFacts(
        opts,
        _Renames.of(opts.rename_sources),
        hip_enabled,
        tuple(packages),
        frozenset(found),
        frozenset(user),
    )
    return facts, covered, notes


def _sources_with_language(cmd: _Cmd) -> list[str]:
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
    src = _Src.of(source)
    cmds, notes = _cmake_parse(src.text)
    facts, covered, fact_notes = _cmake_facts(cmds, opts)
    notes += fact_notes
    edits: list[Edit] = []
    deletions: list[tuple[int, int]] = []
    state: dict[str, bool] = {}
    for cmd in cmds:
        plan = _plan_command(cmd, facts, covered, state)
        notes += plan.notes
        indent = src.indent_at(cmd.start)
        if plan.whole is not None:
            lines = [*plan.whole.split("\n"), *plan.after] if plan.whole else plan.after
            if lines:
                edits.append(_edit(cmd.start, cmd.rparen + 1, (src.nl + indent).join(lines)))
            else:
                edits.extend(_delete_command(src, cmd))
            continue
        if plan.rename is not None:
            edits.append(_edit(cmd.start, cmd.name_end, plan.rename))
        elif _RESIDUE.search(cmd.name) and not plan.handled_name:
            notes.append(
                _Note(
                    cmd.start,
                    cmd.name_end,
                    RULE_NOT_UNDERSTOOD,
                    _WARN,
                    f"CUDA-specific command {cmd.name}() left as is",
                )
            )
        for k, arg in enumerate(cmd.args):
            if k in plan.args:
                new = plan.args[k]
                if new is None:
                    deletions.append((arg.start, arg.end))
                elif new != arg.text:
                    edits.append(_edit(arg.start, arg.end, new))
                continue
            if k in plan.skip:
                continue
            new_text, arg_notes = _cmake_generic(arg, facts)
            notes += arg_notes
            if new_text != arg.text:
                edits.append(_edit(arg.start, arg.end, new_text))
            notes += _cmake_residue(arg, new_text, facts, arg_notes)
        if plan.after:
            end = src.line_span(cmd.rparen)[1]
            edits.append(_edit(end, end, "".join(src.nl + indent + line for line in plan.after)))
    edits += _cmake_deletions(src, deletions)
    return _finish(src, edits, notes)


def _delete_command(src: _Src, cmd: _Cmd) -> list[Edit]:
    ls = src.line_span(cmd.start)[0]
    _, ce, nxt = src.line_span(cmd.rparen)
    if src.text[ls : cmd.start].strip() == "" and src.text[cmd.rparen + 1 : ce].strip() == "":
        return [_edit(ls, nxt, "")]  # the command had its lines to itself
    return _cmake_deletions(src, [(cmd.start, cmd.rparen + 1)])


def _cmake_deletions(src: _Src, spans: Sequence[tuple[int, int]]) -> list[Edit]:
    by_line: dict[int, list[tuple[int, int]]] = {}
    for s, e in spans:
        by_line.setdefault(src.line_no(s), []).append((s, e))
    edits: list[Edit] = []
    for mine in by_line.values():
        ls, ce, nxt = src.line_span(mine[0][0])
        cut, emptied = _line_deletions(src.text, [(s, min(e, ce)) for s, e in mine], ls, ce)
        if emptied:
            edits.append(_edit(ls, nxt, ""))
        else:
            edits.extend(_edit(s, e, "") for s, e in cut)
    return edits
