"""What every build-file translator shares: options, rule ids, the source view, edits and notes,
source renames, and the pattern of CUDA-looking leftovers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.engine.diagnostics import Diagnostic, Rule, Severity
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.util.build_names import makefile_name
from hipify_py.util.lazyre import lazy

RULE_NOT_UNDERSTOOD = "HIP401"


RULE_NVCC_FLAG = "HIP402"


RULE_ARCH = "HIP404"  # the AMD GPU targets written for CUDA architectures: which, and why


RULE_STD = "HIP405"  # a C++ standard raised to what the target's ROCm library headers require


RULE_HOST = "HIP406"  # host code given the HIP platform, or a CUDA-compiler requirement dropped


WARN = Severity.WARNING


INFO = Severity.INFO


DEFAULT_ARCH = "gfx90a"  # MI200: a documented default, never a CUDA number


DEFAULT_ARCH_REASON = (
    f"the default ({DEFAULT_ARCH}): no --offload-arch given and no AMD GPU found on this machine"
)


@dataclass(frozen=True)
class BuildOptions:
    """How build files are translated: GPU targets, hip* or roc* libraries, renamed sources."""

    offload_arch: tuple[str, ...] = (DEFAULT_ARCH,)  # AMD targets replacing sm_XX / -gencode
    # why those targets (said once per build file that sets architectures, HIP404)
    arch_reason: str = DEFAULT_ARCH_REASON
    # the lowest C++ standard the target's ROCm library headers accept (0: no requirement known),
    # and where that comes from (mappings/cxx-standard-<version>.yaml); lower standards are raised
    min_cxx_std: int = 0
    std_reason: str = ""
    hip_libraries: str = "hip"  # "hip": hipblas, hiprand, ...; "roc": rocblas, rocrand, ...
    # old -> new source file names, when the tree's files are renamed (e.g. kernel.cu -> kernel.hip)
    rename_sources: Mapping[str, str] = field(default_factory=dict)  # why a dict: it is pickled to workers

    def __post_init__(self) -> None:
        if self.hip_libraries not in ("hip", "roc"):
            raise ValueError(f"hip_libraries must be 'hip' or 'roc', not {self.hip_libraries!r}")


def build_file_kind(path: str) -> str | None:
    """ "cmake", "make" or None, from the file name alone."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if makefile_name(name):
        return "make"
    return None


class Note(NamedTuple):
    start: int  # byte offsets in the original source
    end: int
    rule: str
    severity: Severity
    message: str
    hint: str = ""


@dataclass(frozen=True)
class Src:
    raw: bytes
    text: str  # latin-1 view: one char per byte, so str offsets are byte offsets
    line_starts: tuple[int, ...]
    nl: str  # the file's line break, reused for inserted lines

    @classmethod
    def of(cls, raw: bytes) -> Src:
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

    def diagnostic(self, note: Note) -> Diagnostic:
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


def edit(start: int, end: int, text: str) -> Edit:
    # texts are latin-1 views of the source plus ASCII, so this restores the original bytes
    return Edit(start, end, text.encode("latin-1"))


def leftover_note(start: int, end: int, token: str) -> Note:
    """A CUDA-looking token no rule understood: reported, never guessed."""
    return Note(
        start,
        end,
        RULE_NOT_UNDERSTOOD,
        WARN,
        f"CUDA-specific `{token}` left as is: not understood",
        "port this part of the build by hand",
    )


def arch_note(start: int, end: int, opts: BuildOptions) -> Note:
    """Which AMD targets replace the CUDA architectures, and why (kept once per file by finish)."""
    return Note(
        start,
        end,
        RULE_ARCH,
        INFO,
        f"CUDA architectures replaced by AMD GPU target(s) {','.join(opts.offload_arch)}: {opts.arch_reason}",
        "the AMD targets are yours to decide: convert again with --offload-arch gfxNNN[,gfxMMM] "
        "(or the offload-arch config key)",
    )


_STD_YEARS = MappingProxyType(
    {"98": 3, "03": 3, "0x": 11, "11": 11, "1y": 14, "14": 14, "1z": 17, "17": 17, "2a": 20, "20": 20}
    | {"2b": 23, "23": 23, "2c": 26, "26": 26}
)


def raised_std(year: str, opts: BuildOptions) -> str | None:
    """The standard to write instead of c++<year> (e.g. "17"), or None when <year> is enough."""
    have = _STD_YEARS.get(year)
    if have is None or not opts.min_cxx_std or have >= opts.min_cxx_std:
        return None
    return str(opts.min_cxx_std)


def std_note(start: int, end: int, old: str, opts: BuildOptions) -> Note:
    return Note(
        start,
        end,
        RULE_STD,
        INFO,
        f"C++ standard raised from {old} to C++{opts.min_cxx_std}: {opts.std_reason}",
        "C++17 removed a few things (register, dynamic exception specifications, std::auto_ptr)",
    )


def finish(src: Src, edits: Iterable[Edit], notes: Iterable[Note]) -> tuple[bytes, list[Diagnostic]]:
    ordered = sorted(set(notes), key=lambda n: (n.start, n.end, n.rule, n.message))
    arch = [n for n in ordered if n.rule == RULE_ARCH]
    ordered = [n for n in ordered if n.rule != RULE_ARCH or n is arch[0]]  # why: once per file
    return apply_edits(src.raw, edits), [src.diagnostic(n) for n in ordered]


def line_deletions(text: str, spans: Iterable[tuple[int, int]], ls: int, ce: int) -> tuple[list, bool]:
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


@dataclass(frozen=True)
class Renames:
    table: Mapping[str, str]  # latin-1 views of the names
    uniform_ext: str | None  # ".hip" when every renamed .cu file gets that extension, else None

    @classmethod
    def of(cls, rename: Mapping[str, str]) -> Renames:
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


RESIDUE = lazy(r"[A-Za-z0-9_]*(?:[Cc][Uu][Dd][Aa]|[Nn][Vv][Cc][Cc])[A-Za-z0-9_]*")


# The texts of the ids this module emits (collected by scripts/gen_rules.py; see rules/registry.py)
RULE_TEXTS: tuple[Rule, ...] = (
    Rule(
        "HIP401",
        "build-construct-not-understood",
        Severity.WARNING,
        "CUDA build construct not understood: left as is",
        "Port this build setting by hand.",
        "The CMake/Makefile translator reports what it does not understand instead of guessing.",
    ),
    Rule(
        "HIP402",
        "nvcc-flag",
        Severity.WARNING,
        "nvcc-only flag dropped or mapped approximately",
        "Check the hipcc/clang equivalent of this flag.",
        "Some nvcc flags have no exact hip-clang equivalent; they are mapped or dropped and reported.",
    ),
    Rule(
        "HIP404",
        "gpu-targets",
        Severity.INFO,
        "CUDA architectures replaced by AMD GPU targets",
        "Check the AMD targets: convert again with --offload-arch gfxNNN[,gfxMMM] (or the offload-arch "
        "configuration key) to choose them.",
        "CMAKE_CUDA_ARCHITECTURES, the CUDA_ARCHITECTURES property, -arch=sm_XX, -gencode, "
        "--gpu-architecture and make variables holding sm_XX values become CMAKE_HIP_ARCHITECTURES, "
        "HIP_ARCHITECTURES and --offload-arch; a CUDA number is never carried over. The targets are, in "
        "this order: --offload-arch (or the configuration key), the GPUs of the machine "
        "(rocm_agent_enumerator or amdgpu-arch, gfx000 left out), else gfx90a. Each build file that sets "
        "architectures says once which were written and why.",
    ),
    Rule(
        "HIP405",
        "cxx-standard-raised",
        Severity.INFO,
        "C++ standard raised to what the target's ROCm libraries require",
        "Check that the code builds as C++17 (register, dynamic exception specifications and std::auto_ptr "
        "are gone).",
        'ROCm 7\'s rocPRIM, rocThrust and hipCUB stop with `#error "rocPRIM requires at least C++17"`. The '
        "lowest standard each library header of a release compiles with is probed "
        "(scripts/probe_cxx_standard.py -> mappings/cxx-standard-<version>.yaml); a lower -std=c++NN, "
        "CMAKE_CXX_STANDARD, CMAKE_CUDA_STANDARD, CXX_STANDARD/CUDA_STANDARD property or cxx_std_NN compile "
        "feature in a converted build file is raised to it.",
    ),
    Rule(
        "HIP406",
        "host-hip-platform",
        Severity.INFO,
        "Host build settings adapted to HIP",
        "Nothing to do; where your host compiles take their flags from elsewhere (a toolchain file, the "
        "environment), define __HIP_PLATFORM_AMD__ there too.",
        "Host C++ compiled by g++ or $(CXX) that includes HIP headers must define the platform "
        '(-D__HIP_PLATFORM_AMD__; CMake: link hip::host), or hip_runtime.h stops with "Must define exactly '
        'one of __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__". A requirement on CMAKE_CUDA_COMPILER is '
        "dropped: CMake finds ROCm's clang++ for the HIP language itself.",
    ),
)
