#!/usr/bin/env python3
"""Check the mapping tables' HIP version facts against the headers of an installed HIP (no network).

Usage: check_hip_headers.py [--include ROOT] [--library-version LIB=X.Y ...] [--hipcc PATH | --no-hipcc]
                            [--write-facts FILE] [--json FILE]

Every identifier the installed headers declare (functions, types, enumerators, macros, variables) is
collected by a tokeniser pass that evaluates the platform conditionals (AMD on, NVIDIA off) and skips
the NVIDIA-only headers. Each mapping entry of a family whose library is installed is then classified:

  agree-present   declared, and the table says it exists in the installed version
  agree-absent    not declared, and the table says it was added later (HIP103 fires)
  agree-removed   not declared, and the table says it was removed by then (HIP104 fires)
  pessimistic     declared, but the table says it was added later (a needless HIP103)
  stale-removed   declared, but the table says it was removed by then (a needless HIP104)
  dangerous       NOT declared, yet the table says it exists: the tool would rewrite silently
                  to a name the target lacks, and the output would not compile

With hipcc available, names the scan finds absent are confirmed by compiling a probe (a name counts as
absent only when the compiler reports it undeclared in both the host and the device pass).
--write-facts writes the confirmed-absent names as a mappings/hip-headers-*.yaml file, which the tool
reads so that targets at or below the checked version get HIP103 for them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # why: the entries come from the project's own loader

from hipify_py.data.installed import standard_header  # noqa: E402
from hipify_py.data.mappings import Entry, Header, compare_versions, load_mappings  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
from probe_common import include_root, probed_with  # noqa: E402


@dataclass(frozen=True)
class Library:
    key: str
    paths: tuple[str, ...]  # directories or single headers under the include root (new and flat layouts)
    probe: tuple[str, ...]  # headers a probe translation unit includes


LIBRARIES: tuple[Library, ...] = (
    Library(
        "hip",
        ("hip",),
        (
            "hip/hip_runtime.h",
            "hip/hip_complex.h",
            "hip/hip_fp16.h",
            "hip/hip_cooperative_groups.h",
            "hip/hip_ext.h",
            "hip/hip_bfloat16.h",
            # why: since ROCm 6 the GL interop names and the math constants live only in these (a
            # translation includes them for cuda_gl_interop.h and math_constants.h); absent before
            "hip/hip_gl_interop.h",
            "hip/hip_math_constants.h",
        ),
    ),
    Library("hiprtc", ("hip/hiprtc.h",), ("hip/hiprtc.h",)),
    Library(
        "hiprand",
        ("hiprand", "hiprand.h"),
        ("hiprand/hiprand.h", "hiprand/hiprand_kernel.h", "hiprand/hiprand_mtgp32_host.h"),
    ),
    Library("rocrand", ("rocrand", "rocrand.h"), ("rocrand/rocrand.h", "rocrand/rocrand_kernel.h")),
    Library("hipsparse", ("hipsparse", "hipsparse.h"), ("hipsparse/hipsparse.h",)),
    Library("rocsparse", ("rocsparse", "rocsparse.h"), ("rocsparse/rocsparse.h",)),
    Library("hipblas", ("hipblas", "hipblas.h"), ("hipblas/hipblas.h",)),
    Library("hipblaslt", ("hipblaslt",), ("hipblaslt/hipblaslt.h",)),
    Library("rocblas", ("rocblas", "rocblas.h"), ("rocblas/rocblas.h",)),
    Library("hipfft", ("hipfft", "hipfft.h"), ("hipfft/hipfft.h", "hipfft/hipfftXt.h")),
    Library("hipsolver", ("hipsolver", "hipsolver.h"), ("hipsolver/hipsolver.h",)),
    Library("rocsolver", ("rocsolver", "rocsolver.h"), ("rocsolver/rocsolver.h",)),
    Library("hipcub", ("hipcub",), ("hipcub/hipcub.hpp",)),
    Library("miopen", ("miopen",), ("miopen/miopen.h",)),
)
LIBRARY = {lib.key: lib for lib in LIBRARIES}
# why: cuBLASLt rows live in the cublas family, but their HIP names come from hipBLASLt, a package of
# its own (a ROCm install may have hipBLAS without it): they are checked only where it is installed
_HIPBLASLT = re.compile(r"hipblaslt", re.I)


def library_of(library: str | None, name: str) -> str | None:
    """The library that declares `name` (a hip/roc name or header of a family whose library is `library`)."""
    return "hipblaslt" if library == "hipblas" and _HIPBLASLT.match(name) else library


# family -> (library of the hip column, library of the roc column); hipDNN has no package anywhere
FAMILY_LIBRARIES: Mapping[str, tuple[str | None, str | None]] = {
    "runtime": ("hip", None),
    "driver": ("hip", None),
    "device": ("hip", None),
    "complex": ("hip", None),
    "rtc": ("hiprtc", None),
    "curand": ("hiprand", "rocrand"),
    "cusparse": ("hipsparse", "rocsparse"),
    "cublas": ("hipblas", "rocblas"),
    "cufft": ("hipfft", None),
    "cusolver": ("hipsolver", "rocsolver"),
    "cub": ("hipcub", None),
    "cudnn": (None, "miopen"),
}
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cuh", ".inc", ".inl")
# why: these files serve the NVIDIA platform only; on AMD they are never included
NVIDIA_ONLY = re.compile(r"(^|/)(nvidia_detail|nvcc_detail)/|_nvcc\.h$|_nvidia\.h$")
CLASSES = ("agree-present", "agree-absent", "agree-removed", "pessimistic", "stale-removed", "dangerous")
IDENT = re.compile(r"[A-Za-z_]\w*\Z")

# -- tokeniser -------------------------------------------------------------------------------------
_STRIP = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
    re.S,
)
_DIRECTIVE = re.compile(r"\s*#\s*(\w+)\s*(.*)")
# Conditions of the AMD platform in C++ (HIP headers are compiled as C++ by hipcc).
PLATFORM_DEFINED = {
    "__HIP_PLATFORM_AMD__": True,
    "__HIP_PLATFORM_HCC__": True,
    "__HIP__": True,
    "__HIPCC__": True,
    "__clang__": True,
    "__cplusplus": True,
    "__HIP_PLATFORM_NVIDIA__": False,
    "__HIP_PLATFORM_NVCC__": False,
    "__CUDACC__": False,
    "__NVCC__": False,
    "__HIP_PLATFORM_SPIRV__": False,
}
# Macros clang itself defines when compiling HIP (no header declares them); part of HIP's names.
COMPILER_MACROS = frozenset({"__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__", "__AMDGCN__", "__clang__"})
_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*(\w+)\s*\)|(\w+))")
_SAFE_EXPR = re.compile(r"[\d\s()!&|<>=+\-*/%]*\Z")


def _strip(text: str) -> str:
    """Comments and literals -> a space (newlines inside block comments kept so lines stay lines)."""
    return _STRIP.sub(lambda m: "\n" * m.group().count("\n") or " ", text)


def evaluate_condition(expr: str) -> bool | None:
    """True/False when the platform macros decide `#if expr`, None when it depends on anything else."""

    def known(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return "@" if name not in PLATFORM_DEFINED else str(int(PLATFORM_DEFINED[name]))

    text = _DEFINED.sub(known, expr).strip()
    text = re.sub(r"\b__HIP_PLATFORM_(AMD|HCC)__\b", "1", text)  # also used as a value: #if __HIP_..._AMD__
    if "@" in text or not _SAFE_EXPR.match(text) or not text:
        return _short_circuit(text)
    py = text.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        return bool(eval(py, {"__builtins__": {}}))  # digits and operators only (checked above)
    except (SyntaxError, TypeError, ZeroDivisionError, ValueError):
        return None


def _short_circuit(text: str) -> bool | None:
    """`0 && @` is False and `1 || @` is True whatever @ is; otherwise undecided."""
    parts = [p.strip() for p in text.split("||")] if "&&" not in text else []
    if parts and any(p in ("1", "(1)") for p in parts):
        return True
    parts = [p.strip() for p in text.split("&&")] if "||" not in text else []
    if parts and any(p in ("0", "(0)", "!1") for p in parts):
        return False
    return None


def active_lines(text: str) -> Iterator[tuple[str, str]]:
    """("code", line), ("macro", name) or ("function-macro", definition) for what the AMD platform compiles.

    Conditions the platform macros cannot decide (header guards, __HIP_DEVICE_COMPILE__, ...) keep
    every branch: a name declared in any such branch counts as present.
    """
    text = _strip(text).replace("\\\n", " ")
    # stack of (this branch active, some earlier branch was definitely taken, parent active)
    stack: list[tuple[bool, bool, bool]] = []
    active = True
    for line in text.split("\n"):
        m = _DIRECTIVE.match(line)
        if m is None:
            if active:
                yield "code", line
            continue
        word, rest = m.group(1), m.group(2).strip()
        if word in ("if", "ifdef", "ifndef"):
            cond = (
                evaluate_condition(rest)
                if word == "if"
                else evaluate_condition(("" if word == "ifdef" else "!") + f"defined({rest.split()[0]})")
                if rest
                else None
            )
            stack.append((active and cond is not False, cond is True, active))
            active = active and cond is not False
        elif word == "elif" and stack:
            _, taken, parent = stack[-1]
            cond = None if taken else evaluate_condition(rest)
            this = parent and not taken and cond is not False
            stack[-1] = (this, taken or cond is True, parent)
            active = this
        elif word == "else" and stack:
            _, taken, parent = stack[-1]
            stack[-1] = (parent and not taken, True, parent)
            active = parent and not taken
        elif word == "endif" and stack:
            active = stack.pop()[2]
        elif word == "define" and active:
            name = re.match(r"\w+", rest)
            if name:
                yield "macro", name.group()
                if rest[name.end() : name.end() + 1] == "(":
                    yield "function-macro", rest  # kept for expanding its uses (declaring macros)


# -- declarations ----------------------------------------------------------------------------------
_KEYWORDS = frozenset(
    {
        *("return", "else", "case", "new", "delete", "throw", "sizeof", "alignof", "decltype", "typeid"),
        *("goto", "co_return", "co_yield", "operator", "if", "while", "for", "switch", "do"),
        *("static_assert", "noexcept"),
    }
)
_TOKENS = re.compile(r"[A-Za-z_]\w*|::|->|\.\.\.|\d[\w.']*|\S")
_RECORD = re.compile(
    r"\b(?:struct|class|union|enum|namespace)\s+(?:class\s+|struct\s+)?(?:__\w+\s*(?:\(\(.*?\)\))?\s*)*([A-Za-z_]\w*)"
)
_USING = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=")
_ENUM_BODY = re.compile(r"\benum\b[^;{}()]*\{([^{}]*)\}")
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)|__declspec\s*\(.*?\)|\[\[.*?\]\]")


def declared_names(code: str) -> set[str]:
    """Names the comment-free, active code declares: records, enumerators, typedefs, functions, variables."""
    code = _ATTRIBUTE.sub(" ", code)
    names = {m.group(1) for m in _RECORD.finditer(code)}
    names.update(m.group(1) for m in _USING.finditer(code))
    for body in _ENUM_BODY.finditer(code):
        for item in body.group(1).split(","):
            first = re.match(r"\s*([A-Za-z_]\w*)", item)
            if first:
                names.add(first.group(1))
    tokens = _TOKENS.findall(code)
    names.update(_typedef_names(tokens))
    # `type name (` / `type name ;` / `type name =` / `type name [`: a declarator after a type-ish token
    for i in range(1, len(tokens) - 1):
        tok, prev, nxt = tokens[i], tokens[i - 1], tokens[i + 1]
        declarator = nxt in ("(", ";", "=", "[", "{") and _is_ident(tok) and tok not in _KEYWORDS
        if declarator and ((_is_ident(prev) and prev not in _KEYWORDS) or prev in ("*", "&", ">", "&&")):
            names.add(tok)
    return names


def _is_ident(token: str) -> bool:
    return token[:1].isalpha() or token[:1] == "_"


def _typedef_names(tokens: Sequence[str]) -> Iterator[str]:
    """The declarators of `typedef ... ;` at bracket depth 0 (incl. `(*name)(...)` function pointers)."""
    i = 0
    while i < len(tokens):
        if tokens[i] != "typedef":
            i += 1
            continue
        depth, last, j = 0, None, i + 1
        while j < len(tokens) and not (tokens[j] == ";" and depth == 0):
            tok = tokens[j]
            if tok in ("{", "(", "["):
                if tok == "(" and j + 2 < len(tokens) and tokens[j + 1] == "*" and _is_ident(tokens[j + 2]):
                    yield tokens[j + 2]  # function pointer typedef
                depth += 1
            elif tok in ("}", ")", "]"):
                depth -= 1
            elif depth == 0 and _is_ident(tok):
                last = tok
            elif depth == 0 and tok == "," and last:
                yield last
            j += 1
        if last:
            yield last
        i = j + 1


@dataclass
class Scan:
    declared: set[str] = field(default_factory=set)
    mentioned: set[str] = field(default_factory=set)  # every identifier in active code (for hints)
    files: int = 0


def header_files(root: Path, library: Library) -> list[Path]:
    found: list[Path] = []
    for rel in library.paths:
        path = root / rel
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(p for p in sorted(path.rglob("*")) if p.suffix in HEADER_SUFFIXES and p.is_file())
    return [p for p in found if not NVIDIA_ONLY.search(p.relative_to(root).as_posix())]


# why: rocRAND's precomputed tables are ~35 MB of numbers; a run of literals declares nothing. Why no
# possessive quantifiers: Python 3.10 has none; the pieces match disjoint characters, so giving some back
# never makes another match (the same spans on ROCm 7.2's rocRAND and HIP headers)
_NUMBER_RUN = re.compile(r"(?:\b\d[\w.']*\s*,[\s-]*){16,}")
_FUNCTION_MACRO = re.compile(r"(\w+)\(([^)]*)\)\s*(.*)", re.S)


def expand_macro_uses(code: str, macros: Mapping[str, tuple[list[str], str]]) -> str:
    """One level of expansion of the file's function-like macros (e.g. hipRAND's DEFINE_HIPRAND_STATE
    declares its state types only through `##`), appended as extra code for the declaration pass."""
    if not macros:
        return ""
    expansions: list[str] = []
    for m in re.finditer(r"\b(" + "|".join(map(re.escape, macros)) + r")\s*\(", code):
        args = _call_arguments(code, m.end())
        params, body = macros[m.group(1)]
        if args is None or len(args) != len(params):
            continue
        for param, arg in zip(params, args, strict=True):
            body = re.sub(rf"\b{re.escape(param)}\b", arg.strip(), body)
        expansions.append(re.sub(r"\s*##\s*", "", body))
    return "\n".join(expansions)


def _call_arguments(code: str, start: int) -> list[str] | None:
    depth, args, begin = 1, [], start
    for i in range(start, min(len(code), start + 2000)):
        ch = code[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append(code[begin:i])
                return args
        elif ch == "," and depth == 1:
            args.append(code[begin:i])
            begin = i + 1
    return None


def scan_files(files: Iterable[Path]) -> Scan:
    scan = Scan()
    for path in files:
        code: list[str] = []
        macros: dict[str, tuple[list[str], str]] = {}
        for kind, text in active_lines(path.read_text(encoding="utf-8", errors="replace")):
            if kind == "code":
                code.append(text)
            elif kind == "macro":
                scan.declared.add(text)
            elif (m := _FUNCTION_MACRO.match(text)) and "..." not in m.group(2):
                macros[m.group(1)] = ([p.strip() for p in m.group(2).split(",") if p.strip()], m.group(3))
        text = _NUMBER_RUN.sub("0, ", "\n".join(code))
        text += "\n" + expand_macro_uses(text, macros)
        scan.declared |= declared_names(text)
        scan.mentioned.update(re.findall(r"\b[A-Za-z_]\w*", text))
        scan.files += 1
    return scan


# -- versions --------------------------------------------------------------------------------------
def hip_version(root: Path) -> str:
    """'5.2' from hip/hip_version.h (HIP_VERSION_PATCH is a build number, not a release)."""
    text = (root / "hip" / "hip_version.h").read_text(encoding="utf-8", errors="replace")
    major = re.search(r"#\s*define\s+HIP_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"#\s*define\s+HIP_VERSION_MINOR\s+(\d+)", text)
    if not (major and minor):
        raise ValueError(f"{root}/hip/hip_version.h: no HIP_VERSION_MAJOR/MINOR")
    return f"{major.group(1)}.{minor.group(1)}"


def installed_libraries(root: Path) -> list[str]:
    return [lib.key for lib in LIBRARIES if any((root / rel).exists() for rel in lib.paths)]


# -- classification --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Check:
    family: str
    side: str  # "hip" or "roc"
    library: str
    cuda: str
    name: str
    added: str
    removed: str
    klass: str


def classify(present: bool, added: str, removed: str, version: str) -> str:
    gone = bool(removed) and compare_versions(removed, version) <= 0
    later = bool(added) and compare_versions(added, version) > 0
    if present:
        return "stale-removed" if gone else "pessimistic" if later else "agree-present"
    return "agree-removed" if gone else "agree-absent" if later else "dangerous"


def is_present(name: str, declared: set[str]) -> bool:
    """Qualified names (rocrand_device::mtgp32_engine) need every component declared."""
    return all(part in declared for part in name.split("::"))


def check_entries(
    families: Mapping[str, Sequence[Entry]],
    present: Callable[[str, str], bool],
    versions: Mapping[str, str],
) -> list[Check]:
    """One Check per (entry, side) whose library is installed (a key of `versions`).

    `present(library, name)` says whether the install declares the name.
    """
    checks: list[Check] = []
    for family in sorted(families):
        hip_lib, roc_lib = FAMILY_LIBRARIES.get(family, (None, None))
        for entry in families[family]:
            sides = (
                ("hip", hip_lib, entry.hip, entry.hip_added, entry.hip_removed),
                ("roc", roc_lib, entry.roc, entry.roc_added, entry.roc_removed),
            )
            for side, lib, name, added, removed in sides:
                lib = library_of(lib, name or "")
                if not (lib and name and lib in versions) or not all(map(IDENT.match, name.split("::"))):
                    continue  # not installed, no counterpart, or not a name (driver's `void*`)
                klass = classify(present(lib, name), added, removed, versions[lib])
                checks.append(Check(family, side, lib, entry.cuda, name, added, removed, klass))
    return checks


def dated_late(
    families: Mapping[str, Sequence[Entry]], scans: Mapping[str, Scan], versions: Mapping[str, str]
) -> dict[str, set[str]]:
    """Per installed library: HIP names of every family that the tables date after the library's
    version but that the library's own headers declare (HIP's headers first)."""
    out: dict[str, set[str]] = {lib: set() for lib in versions}
    order = sorted(versions, key=lambda lib: (lib != "hip", lib))
    for family in sorted(families):
        for entry in families[family]:
            name, added = entry.hip, entry.hip_added
            if not name or not added or not all(map(IDENT.match, name.split("::"))):
                continue
            for lib in order:
                if is_present(name, scans[lib].declared | (COMPILER_MACROS if lib == "hip" else set())):
                    if compare_versions(added, versions[lib]) > 0:
                        out[lib].add(name)
                    break
    return out


def check_headers(headers: Iterable[Header], root: Path, versions: Mapping[str, str]) -> list[Check]:
    """headers.yaml rows of installed libraries: is the include the tool writes really there?"""
    checks: list[Check] = []
    for header in sorted(headers, key=lambda h: h.cuda):
        hip_lib, roc_lib = FAMILY_LIBRARIES.get(header.family, (None, None))
        for side, lib, name in (("hip", hip_lib, header.hip), ("roc", roc_lib, header.roc)):
            lib = library_of(lib, name or "")
            if lib and name and lib in versions and not standard_header(name):  # <atomic>: C++'s own
                klass = classify(
                    (root / name).is_file(), header.hip_added if side == "hip" else "", "", versions[lib]
                )
                checks.append(Check("headers", side, lib, header.cuda, name, header.hip_added, "", klass))
    return checks


def counts_by_family(checks: Iterable[Check]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for c in checks:
        out.setdefault(f"{c.family}/{c.side}", Counter())[c.klass] += 1
    return out


# -- hipcc confirmation ----------------------------------------------------------------------------
_UNDECLARED = re.compile(
    r"use of undeclared identifier '([\w:]+)'|no (?:type|member) named '(\w+)' in namespace"
)


def probe_source(names: Iterable[str], headers: Iterable[str]) -> str:
    """A translation unit that mentions each name once; macros are tested with #if defined."""
    lines = [f"#include <{h}>" for h in headers]
    lines.append("__host__ __device__ void hipify_py_probe() {")
    for name in sorted(set(names)):
        top = name.split("::")[0]
        lines += [f"#if !defined({top})", f"  {name};", "#endif"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def undeclared_by_hipcc(hipcc: str, root: Path, names: Sequence[str], headers: Sequence[str]) -> set[str]:
    """Names the compiler reports undeclared in both the host and the device pass."""
    if not names:
        return set()
    try:
        own: Path | None = include_root(hipcc).resolve()
    except SystemExit:
        own = None
    with tempfile.TemporaryDirectory(prefix="hip-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text(probe_source(names, headers), encoding="utf-8")
        env = dict(os.environ, HIP_PLATFORM="amd")
        per_pass: list[set[str]] = []
        for only in ("--cuda-host-only", "--cuda-device-only"):
            cmd = [hipcc, "--offload-arch=gfx90a", only, "-fsyntax-only", "-w", "-ferror-limit=0"]
            # why: -I (not -isystem) so /usr/include keeps its place for libstdc++'s #include_next;
            # none when root is hipcc's own (a chroot toolchain's headers are its /usr/include)
            cmd += [] if root.resolve() in (Path("/usr/include"), own) else ["-I", str(root)]
            cmd += ["-x", "hip", str(src)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            found = undeclared_names(proc.stderr)
            if proc.returncode != 0 and not found:
                raise RuntimeError(f"probe failed for another reason:\n{proc.stderr[-3000:]}")
            per_pass.append(found)
    wanted = set(names)
    return {n for n in wanted if is_undeclared(n, per_pass[0]) and is_undeclared(n, per_pass[1])}


def undeclared_names(stderr: str) -> set[str]:
    return {a or b for a, b in _UNDECLARED.findall(stderr)}


def is_undeclared(name: str, reported: set[str]) -> bool:
    return name in reported or any(part in reported for part in name.split("::"))


# -- facts file ------------------------------------------------------------------------------------
FACTS_HEADER = """\
# Generated by scripts/check_hip_headers.py -- do not edit. Made with:
#   {command}
# HIP names the mapping tables list that the installed headers do NOT declare ({how}).
# The tool reads this file: a target --hip-version at or below a library's `version` gets HIP103 for
# these names even where the reference tables date them earlier (the tables themselves stay as they are).
# `present`: names the tables date after `version` that these headers DO declare: a target at or above
# `version` gets no HIP103 for them (HIP_R_32F is in HIP 5.2's library_types.h; the tables say 5.7).
"""


def facts_yaml(
    source: str,
    versions: Mapping[str, str],
    absent: Mapping[str, set[str]],
    confirmed: bool,
    command: str,
    present: Mapping[str, set[str]] | None = None,
) -> str:
    how = "scanned, and confirmed undeclared by hipcc" if confirmed else "scanned only"
    out = [FACTS_HEADER.format(how=how, command=command), f"source: {json.dumps(source)}", "hip_headers:"]
    for lib in sorted(absent):
        out.append(f"- library: {lib}")
        out.append(f"  version: '{versions[lib]}'")
        for key, names in (
            ("absent", sorted(absent[lib])),
            ("present", sorted((present or {}).get(lib, ()))),
        ):
            if key == "present" and not names:
                continue
            out.append(f"  {key}:" + (" []" if not names else ""))
            out.extend(f"  - {name}" for name in names)
    return "\n".join(out) + "\n"


# -- main ------------------------------------------------------------------------------------------
@dataclass
class Result:
    hip_version: str
    versions: dict[str, str]
    checks: list[Check]
    scans: dict[str, Scan]
    compiler: bool = False  # presence decided by hipcc (else by the scan alone)
    scan_missed: set[str] = field(default_factory=set)  # scan: absent, hipcc: declared
    scan_invented: set[str] = field(default_factory=set)  # scan: declared, hipcc: undeclared
    header_checks: list[Check] = field(default_factory=list)  # headers.yaml targets: files present?
    # library -> names the tables date after the install that its headers declare (any family: HIP_R_32F
    # is cuBLAS's row but hip/library_types.h's name); a needless HIP103 without the `present` fact
    dated_late: dict[str, set[str]] = field(default_factory=dict)


def run_check(
    root: Path,
    library_versions: Mapping[str, str] | None = None,
    hipcc: str | None = None,
    families: Mapping[str, Sequence[Entry]] | None = None,
    headers: Sequence[Header] | None = None,
) -> Result:
    """`families` and `headers` replace the project's tables (tests); given families alone, no headers."""
    if not (root / "hip" / "hip_version.h").is_file():
        raise FileNotFoundError(f"{root}: no hip/hip_version.h (not a HIP include root)")
    version = hip_version(root)
    installed = installed_libraries(root)
    versions = {lib: (library_versions or {}).get(lib, version) for lib in installed}
    scans = {lib: scan_files(header_files(root, LIBRARY[lib])) for lib in installed}
    # why: every HIP library header includes hip_runtime, so HIP's own names are visible to it
    declared = {lib: scans[lib].declared | scans["hip"].declared | COMPILER_MACROS for lib in installed}
    if families is None:
        tables = load_mappings()
        families, headers = tables.families, list(tables.headers.values()) if headers is None else headers
    header_checks = check_headers(headers or (), root, versions)
    checks = check_entries(families, lambda lib, name: is_present(name, declared[lib]), versions)
    late = dated_late(families, scans, versions)
    if not hipcc:
        return Result(version, versions, checks, scans, header_checks=header_checks, dated_late=late)
    names = sorted({c.name for c in checks} | {n for names in late.values() for n in names})
    headers = [h for lib in installed for h in LIBRARY[lib].probe if (root / h).is_file()]
    undeclared = undeclared_by_hipcc(hipcc, root, names, headers)
    truth = check_entries(families, lambda lib, name: name not in undeclared, versions)
    scan_absent = {c.name for c in checks if c.klass in ABSENT_CLASSES}
    missed, invented = scan_absent - undeclared, undeclared - scan_absent
    late = {lib: {n for n in found if n not in undeclared} for lib, found in late.items()}
    return Result(version, versions, truth, scans, True, missed, invented, header_checks, late)


ABSENT_CLASSES = frozenset({"agree-absent", "agree-removed", "dangerous"})


def absent_by_library(checks: Iterable[Check]) -> dict[str, set[str]]:
    """Absent names per library, minus those the table already marks removed (HIP104 covers them)."""
    out: dict[str, set[str]] = {}
    for c in checks:
        out.setdefault(c.library, set())
        if c.klass in ("agree-absent", "dangerous"):
            out[c.library].add(c.name)
    return out


def report_text(result: Result) -> str:
    lines = [
        f"HIP {result.hip_version}; libraries: " + ", ".join(f"{k} {v}" for k, v in result.versions.items())
    ]
    lines.append(f"{'family/side':<18}" + "".join(f"{k:>15}" for k in CLASSES))
    for fam, counts in sorted(counts_by_family([*result.checks, *result.header_checks]).items()):
        lines.append(f"{fam:<18}" + "".join(f"{counts.get(k, 0):>15}" for k in CLASSES))
    if result.compiler:
        lines.append(
            f"presence decided by hipcc; the scan missed {len(result.scan_missed)}, "
            f"invented {len(result.scan_invented)}"
        )
        for label, names in (("missed", result.scan_missed), ("invented", result.scan_invented)):
            lines.extend(f"  scan {label}: {name}" for name in sorted(names))
    dangerous = [c for c in [*result.checks, *result.header_checks] if c.klass == "dangerous"]
    lines.append(f"dangerous ({len(dangerous)}): absent, yet the table says available by then")
    for c in dangerous:
        hint = " (mentioned in headers)" if c.name in result.scans[c.library].mentioned else ""
        lines.append(f"  {c.family:<9} {c.cuda} -> {c.name} (added {c.added or '?'}){hint}")
    late = sorted((lib, name) for lib, names in result.dated_late.items() for name in names)
    lines.append(f"dated late ({len(late)}): declared here, yet the tables date them after this version")
    lines.extend(f"  {lib:<9} {name}" for lib, name in late)
    return "\n".join(lines)


def coverage_text(result: Result, absent_in: Mapping[str, str]) -> str:
    """How many dangerous rows the shipped hip-headers-*.yaml facts turn into HIP103 warnings
    when --hip-version is the installed version."""
    dangerous = [c for c in result.checks if c.klass == "dangerous"]
    known = [
        c for c in dangerous if compare_versions(absent_in.get(c.name, ""), result.versions[c.library]) >= 0
    ]
    return (
        f"dangerous rows the tool already warns about (hip-headers-*.yaml): {len(known)} of {len(dangerous)}"
    )


def _library_version(text: str) -> tuple[str, str]:
    lib, sep, version = text.partition("=")
    if not sep or lib not in LIBRARY or not version:
        raise argparse.ArgumentTypeError(f"expected LIB=X.Y with LIB in {sorted(LIBRARY)}: {text!r}")
    return lib, version


def main(argv: Sequence[str] | None = None, families: Mapping[str, Sequence[Entry]] | None = None) -> int:
    """`families` replaces the project's tables (tests)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--include",
        type=Path,
        help="HIP include root (default: --hipcc's <prefix>/include, else /usr/include)",
    )
    parser.add_argument(
        "--library-version",
        type=_library_version,
        action="append",
        default=[],
        metavar="LIB=X.Y",
        help="ROCm release of a library's headers when it differs from HIP's (e.g. hipsparse=5.3)",
    )
    parser.add_argument("--hipcc", help="confirm absent names with this hipcc (default: hipcc on PATH)")
    parser.add_argument("--no-hipcc", action="store_true", help="scan only; do not compile probes")
    parser.add_argument("--write-facts", type=Path, metavar="FILE", help="write the absent names as YAML")
    parser.add_argument("--source", default="", help="description of the install for the facts file")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every classification as JSON")
    argv_list = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv_list)
    hipcc = None if args.no_hipcc else (args.hipcc or shutil.which("hipcc"))
    if args.include is None:
        args.include = include_root(args.hipcc) if args.hipcc else Path("/usr/include")
    result = run_check(args.include, dict(args.library_version), hipcc, families)
    print(report_text(result))
    if families is None:
        print(coverage_text(result, load_mappings().absent_in))
    if args.write_facts:
        source = args.source or (
            probed_with(hipcc) if hipcc else f"{args.include} (HIP {result.hip_version})"
        )
        command = " ".join(["scripts/check_hip_headers.py", *(shlex.quote(a) for a in argv_list)])
        absent = absent_by_library(result.checks)
        text = facts_yaml(source, result.versions, absent, result.compiler, command, result.dated_late)
        args.write_facts.write_text(text, encoding="utf-8")
    if args.json:
        rows = [c.__dict__ for c in [*result.checks, *result.header_checks]]
        args.json.write_text(json.dumps({"versions": result.versions, "checks": rows}, indent=1) + "\n")
    return 1 if any(c.klass == "dangerous" for c in [*result.checks, *result.header_checks]) else 0


if __name__ == "__main__":
    sys.exit(main())
