"""Error findings in code that only a build option compiles, decided once the whole project is seen.

An error finding is a promise that the build breaks. Code under `#ifdef PTX` (or `#ifdef VERIFY`,
`#ifdef CUDNN_CONV`) is compiled only when something defines PTX: the file, another file of the
project, a build file (`-DPTX`, `add_compile_definitions(PTX)`, `#cmakedefine PTX`) or the command
line. When nothing does, hipcc never sees the code and the finding is a warning that says so.

Per file (in the worker, pure; analysis/defines.py): `option_macros` tells which option macros
each error finding's code needs (its `requires`), `file_defines` which macros the file #defines.
The parent (`Project`) unites the defines of every file of the run (cached results carry both) with
the build files' and settles the findings before they are reported: only severities and messages
change, never the output.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.util.build_names import makefile_name
from hipify_py.util.lazyre import lazy

_DASH_D = lazy(r"(?<![\w-])[-/]D[ \t]*([A-Za-z_]\w*)")
_CMAKE_DEFINITIONS = lazy(
    r"\b(?:add_compile_definitions|target_compile_definitions|add_definitions|COMPILE_DEFINITIONS)"
    r"\b[^)]*",
    re.IGNORECASE,
)
_TEMPLATE_DEFINE = lazy(r"#[ \t]*(?:cmakedefine01|cmakedefine|undef)[ \t]+(\w+)|AC_DEFINE\w*\(\[?(\w+)")
_WORD = lazy(r"[A-Za-z_]\w*")
BUILD_NAMES = (
    "CMakeLists.txt",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "compile_commands.json",
    "configure.ac",
    "meson.build",
)
BUILD_SUFFIXES = (".cmake", ".mk", ".make", ".in", ".ac", ".bazel", ".bzl", "meson.build", ".ninja")


def build_defines(text: str, name: str = "", options: str = "") -> dict[str, str]:
    """Macros a build file may define, each with "" (its default build does) or the build option that
    does (`make CUDNN_V8=yes`): `-DNAME` (Makefile, compile_commands.json, CMake, Meson), the names in
    CMake's *_definitions(...), `#cmakedefine NAME` / autoconf `#undef NAME` templates, AC_DEFINE.
    `options`: a meson.build's meson_options.txt (the options' defaults)."""
    if makefile_name(name):
        return makefile_defines(text)
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return cmake_defines(text)
    if name == "meson.build":
        return meson_defines(text, options)
    found = set(_DASH_D.findall(text))
    for m in _CMAKE_DEFINITIONS.finditer(text):
        found.update(_WORD.findall(m.group(0)))
    for m in _TEMPLATE_DEFINE.finditer(text):
        found.add(m.group(1) or m.group(2))
    return dict.fromkeys(found, "")


_MESON_STEP = lazy(r"^[ \t]*(if|elif|else|endif)\b([^\n]*)", re.MULTILINE)
_MESON_OPTION = lazy(r"get_option\s*\(\s*'([\w.-]+)'\s*\)")
_MESON_DEFAULT = lazy(r"option\s*\(\s*'([\w.-]+)'[^)]*?\bvalue\s*:\s*(true|false)\b", re.DOTALL)


def meson_defines(text: str, options: str = "") -> dict[str, str]:
    """-D flags of a meson.build; those only under `if get_option('cudnn')` where meson_options.txt
    (`options`) leaves that boolean option false by default carry it: a build option (lc0's USE_CUDNN).
    A condition with `or`/`not`, or on anything else, is unknown: what it holds counts as defined."""
    off = {m.group(1) for m in _MESON_DEFAULT.finditer(options) if m.group(2) == "false"}
    out: dict[str, str] = {}
    stack: list[str] = []  # per open `if`: the option that leaves its current branch off, or ""
    at = 0
    for m in [*_MESON_STEP.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        why = next((w for w in stack if w), "")
        for macro in _DASH_D.findall(_meson_code(text[at:end])):
            if out.get(macro) != "":
                out[macro] = why
        if m is None:
            break
        at = m.end()
        kind, cond = m.group(1), m.group(2).split("#", 1)[0]
        if kind == "if":
            stack.append(_meson_off(cond, off))
        elif kind in ("elif", "else") and stack:
            stack[-1] = _meson_off(cond, off) if kind == "elif" else ""
        elif kind == "endif" and stack:
            stack.pop()
    return out


def _meson_code(text: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def _meson_off(condition: str, off: set[str]) -> str:
    words = condition.replace("(", " ").replace(")", " ").split()
    if "or" in words or "not" in words:
        return ""
    return next((f"meson option {o}" for o in _MESON_OPTION.findall(condition) if o in off), "")


# the CUDA build's own switch (WITH_CUDA, Kokkos_ENABLE_CUDA, `ifeq ($(USE_CUDA),1)`), not CUDA_ARCH
_CUDA_OPTION = lazy(r"\b\w*CUDA\b", re.IGNORECASE)
_CMAKE_COMMENT = lazy(r"#(?!\[)[^\n]*")
_CMAKE_OPTION = lazy(r"\boption\s*\(\s*(\w+)\s+\"[^\"]*\"\s*(\w+)?\s*\)", re.IGNORECASE)
_CMAKE_STEP = lazy(
    r"\b(?P<kw>if|elseif|else|endif)\s*\((?P<cond>(?:[^()]|\([^()]*\))*)\)"
    r"|(?<![\w-])[-/]D[ \t]*(?P<dash>[A-Za-z_]\w*)"
    r"|(?P<defs>\b(?:add_compile_definitions|target_compile_definitions|COMPILE_DEFINITIONS)\b[^)]*)"
    r"|(?P<tmpl>#[ \t]*(?:cmakedefine01|cmakedefine)[ \t]+\w+)",
    re.IGNORECASE,
)


def cmake_defines(text: str) -> dict[str, str]:
    """build_defines for CMake: a definition inside `if(NAME)` where the same file declares
    `option(NAME "..." OFF)` carries `-DNAME=ON`, a build option off by default (CTranslate2's
    `if(WITH_CUDNN) add_definitions(-DCT2_WITH_CUDNN)`). An option of the CUDA build itself (WITH_CUDA)
    is on in the build being translated; any other condition counts as taken."""
    templates = {m.group(1) or m.group(2) for m in _TEMPLATE_DEFINE.finditer(text)}
    text = _CMAKE_COMMENT.sub("", text)
    off = {
        m.group(1)
        for m in _CMAKE_OPTION.finditer(text)
        if (m.group(2) or "OFF").upper() in ("OFF", "FALSE", "NO", "0")
        and _CUDA_OPTION.search(m.group(1)) is None
    }
    stack: list[str] = []  # per open if(): the option it waits for, or ""
    out: dict[str, str] = dict.fromkeys(templates, "")
    for m in _CMAKE_STEP.finditer(text):
        kw = (m.group("kw") or "").lower()
        if kw == "if":
            stack.append(_cmake_option_condition(m.group("cond"), off))
        elif kw in ("elseif", "else") and stack:
            stack[-1] = ""
        elif kw == "endif" and stack:
            stack.pop()
        elif not kw:
            names = [m.group("dash")] if m.group("dash") else []
            if m.group("defs"):
                names = _DASH_D.findall(m.group("defs")) + _WORD.findall(_DASH_D.sub("", m.group("defs")))[1:]
            why = next((f"-D{o}=ON" for o in stack if o), "")
            for name in names:
                if out.get(name) != "":
                    out[name] = why if name not in out or why == "" else out[name]
    return out


def _cmake_option_condition(cond: str, off: set[str]) -> str:
    """The option an `if(...)` needs on: `NAME`, `${NAME}` or `NAME AND ...` with NAME an option the
    file declares off by default; "" for anything else."""
    words = cond.replace("${", " ").replace("}", " ").split()
    parts = [w for w in words if w.upper() != "AND"]
    if len(words) > 1 and any(w.upper() in ("OR", "NOT") for w in words):
        return ""
    return next((w for w in parts if w in off), "")


_MAKE_ASSIGN = lazy(r"(?:override\s+|export\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:::=|::=|:=|\+=|!=|=)\s*(.*)")
_MAKE_CONDITION = lazy(r"(ifeq|ifneq|ifdef|ifndef)\b\s*(.*)")
_MAKE_REF = lazy(r"\$[({]([^()${}]*)[)}]|\$[({]")


def makefile_defines(text: str) -> dict[str, str]:
    """-D flags of a Makefile; those only in a conditional its own defaults leave off (`VERIFY = no` +
    `ifeq ($(VERIFY),yes)` + `CFLAGS += -DVERIFY`) carry the condition: a build option, off by default.
    A variable the Makefile does not set comes from the environment or the command line: unknown."""
    values: dict[str, str | None] = {}
    # open conditionals: [value of the current branch (None: unknown), the condition's text, taken before]
    stack: list[list] = []
    out: dict[str, str] = {}
    for raw in text.replace("\\\n", " ").splitlines():
        line = raw.split("#", 1)[0] if not raw.startswith("\t") else raw
        stripped = line.strip()
        head = stripped.split(None, 1)[0] if stripped else ""
        if head in ("ifeq", "ifneq", "ifdef", "ifndef"):
            value = _make_condition(stripped, values)
            stack.append([value, stripped, value])
            continue
        if head == "else" and stack:
            frame = stack[-1]
            rest = stripped[4:].strip()
            taken = frame[2]
            value = _make_condition(rest, values) if rest else True
            frame[0] = False if taken is True else (None if taken is None or value is None else value)
            frame[1] = rest or f"else of {frame[1]}"
            frame[2] = True if taken is True or value is True else (None if None in (taken, value) else False)
            continue
        if head == "endif" and stack:
            stack.pop()
            continue
        live = _all(frame[0] for frame in stack)
        assign = _MAKE_ASSIGN.fullmatch(stripped) if not raw.startswith("\t") else None
        if assign is not None and live is not False:
            var, op, value = assign.groups()
            expanded = _make_expand(value.strip(), values) if live else None
            if op == "+=":
                old = values.get(var, "")
                values[var] = None if old is None or expanded is None else f"{old} {expanded}".strip()
            elif op != "?=" or var not in values:
                values[var] = None if op == "!=" else expanded
        for macro in _DASH_D.findall(line):
            why = "" if live is not False else next(f[1] for f in stack if f[0] is False)
            if out.get(macro) != "":
                out[macro] = why if macro not in out or why == "" else out[macro]
    return out


def _all(values: Iterable[bool | None]) -> bool | None:
    result: bool | None = True
    for v in values:
        if v is False:
            return False
        if v is None:
            result = None
    return result


def _make_expand(text: str, values: dict[str, str | None]) -> str | None:
    """$(VAR)/${VAR} replaced by what the Makefile set; None when anything is unknown (a function, a
    variable from the environment)."""
    unknown = False

    def one(m: re.Match[str]) -> str:
        nonlocal unknown
        value = values.get(m.group(1)) if m.group(1) is not None else None
        if value is None:
            unknown = True
            return ""
        return value

    result = _MAKE_REF.sub(one, text)
    return None if unknown else result


def _make_condition(text: str, values: dict[str, str | None]) -> bool | None:
    m = _MAKE_CONDITION.fullmatch(text)
    if m is None:
        return None
    kind, args = m.groups()
    if kind in ("ifdef", "ifndef"):
        value = values.get(args.strip())
        known = None if args.strip() not in values or value is None else bool(value.strip())
        return known if known is None or kind == "ifdef" else not known
    pair = _make_pair(args.strip())
    if pair is None:
        return None
    a, b = (_make_expand(x, values) for x in pair)
    if a is None or b is None:
        return None
    return (a.strip() == b.strip()) == (kind == "ifeq")


def _make_pair(args: str) -> tuple[str, str] | None:
    """`(a,b)` or `"a" "b"`/`'a' 'b'` -> (a, b)."""
    if args.startswith("(") and args.endswith(")"):
        depth = 0
        for i, c in enumerate(args[1:-1], 1):
            depth += (c in "({") - (c in ")}")
            if c == "," and depth == 0:
                return args[1:i], args[i + 1 : -1]
        return None
    m = re.fullmatch(r"""(["'])(.*?)\1\s+(["'])(.*?)\3""", args)
    return (m.group(2), m.group(4)) if m else None


def is_build_file(name: str) -> bool:
    return name in BUILD_NAMES or name.endswith(BUILD_SUFFIXES) or makefile_name(name)


def build_files(roots: Iterable[Path], skip: Callable[[str], bool] = lambda _: False) -> list[Path]:
    """Build files in the trees being converted, and beside them in their parent folders up to the
    repository root (a CMakeLists.txt one level up may add the -D for a converted `src/`), with the
    CMake modules of those folders' module folders (`cmake/`, `CMake/`, QUICK's `quick-cmake/`)."""
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
            for path in _modules(parent):  # the project's modules: built_from
                found.setdefault(str(path), path)
    return [found[k] for k in sorted(found)]


def built_from(path: Path) -> Path:
    """The folder whose sources a build file builds: its own, but a CMake module in a module folder
    serves the project around it (XGBoost's cmake/Utils.cmake adds -DXGBOOST_USE_CUDA=1 for src/, QUICK's
    quick-cmake/QUICKCudaConfig.cmake -DUSE_LEGACY_ATOMICS)."""
    if _module_folder(path.parent.name) and path.suffix == ".cmake":
        return path.parent.parent
    return path.parent


def _module_folder(name: str) -> bool:
    """A folder of CMake modules by its name: `cmake/`, `CMakeModules/`, `cmake_modules/`, or a project's
    own `<name>-cmake/` (QUICK's quick-cmake/); not any folder whose name holds the word."""
    low = name.lower()
    return low in ("cmake", "cmakemodules", "cmake_modules", "cmake-modules") or low.endswith(
        ("-cmake", "_cmake")
    )


def _modules(parent: Path) -> list[Path]:
    try:
        folders = [d for d in parent.iterdir() if d.is_dir() and _module_folder(d.name)]
    except OSError:
        return []
    return sorted(path for folder in folders for path in folder.glob("*.cmake"))


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


def settle(diagnostics: Sequence[Diagnostic], defined: Mapping[str, str]) -> list[Diagnostic]:
    """Error findings in code that needs a macro the default build does not define become warnings that
    say so. `defined`: macro -> "" (there) or the build option that defines it (off by default)."""
    out = []
    for d in diagnostics:
        missing = [n for n in d.requires if not _present(n, defined)] if d.severity is Severity.ERROR else []
        if missing:
            d = d._replace(severity=Severity.WARNING, message=f"{d.message} ({_why(missing[0], defined)})")
        out.append(d)
    return out


# a project's switch for its CUDA build (`REALM_USE_CUDA`, `USE_CUDA`, `KOKKOS_ENABLE_CUDA`, `HAVE_CUBLAS`):
# on in the CUDA build being translated, whether a generated config header, the command line or a build
# file nobody passed defines it
_CUDA_SWITCH = lazy(
    r"(?:\w+_)?(?:USE|ENABLE|HAVE|WITH|HAS|BUILD)_(?:CUDA|CUBLAS|CUSOLVER|CUSPARSE|CUFFT|CURAND|CUDNN)"
)


def _present(name: str, defined: Mapping[str, str]) -> bool:
    """Defined by the default build; a CUDA switch also when the build names no other option for it
    (`-DWITH_CUDNN=ON` says the CUDA build leaves CT2_WITH_CUDNN off)."""
    why = defined.get(name)
    if why == "":
        return True
    return _CUDA_SWITCH.fullmatch(name) is not None and (why is None or _CUDA_OPTION.search(why) is not None)


def _why(name: str, defined: Mapping[str, str]) -> str:
    why = defined.get(name)
    if why is None:
        return f"only compiled when {name} is defined, which nothing in the project does"
    return f"only compiled when {name} is defined, which the build does only when asked: `{why}`"
