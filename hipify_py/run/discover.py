"""Find the files to convert: walk paths, filter by extension and globs, detect file kinds."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from hipify_py.engine.source import UTF8_BOM
from hipify_py.util.build_names import makefile_name
from hipify_py.util.lazyre import lazy

# C and C++ sources and headers as real projects name them: `.C`/`.H` (AMReX, Chombo and other HPC codes
# spell C++ so), `.c++`/`.h++`, the included implementation files `.inl`, `.ipp`, `.tpp`, `.tcc`, `.icc`,
# `.inc` (Kokkos' desul keeps its CUDA atomics in `.inc` files), and CUDA headers named `.hu` (LightGBM's
# include/LightGBM/cuda/*.hu) or `.cuinc`
SOURCE_EXTENSIONS = (
    *(".cu", ".cuh", ".hu", ".cuinc", ".cpp", ".cc", ".cxx", ".c++", ".C", ".c"),
    *(".h", ".hpp", ".hh", ".hxx", ".h++", ".H", ".inl", ".ipp", ".tpp", ".tcc", ".icc", ".inc"),
)
BUILD_FILE_NAMES = ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile")
BUILD_FILE_EXTENSIONS = (".cmake", ".mk", ".make")
# Directories no user wants converted.
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".tox", ".venv", "node_modules", ".hipify-py-cache"}
)


# A file named without an extension is a C++ header when its first directive, after comments, is one
# a header opens with: libcu++-style projects name their headers so (cuCollections'
# <cuco/detail/__config>, CCCL's <cuda/std/atomic>). Makefiles' `# ...` comments and scripts' `#!` are not.
_HEADER_OPENING = lazy(
    rb"(?:\s|//[^\n]*|/\*.*?\*/)*#[ \t]*(?:pragma[ \t]+once|ifndef[ \t]+\w|if[ \t]*!?[ \t]*defined\b"
    rb"|include[ \t]*[<\"]|define[ \t]+\w)",
    re.S,
)
_SNIFF_BYTES = 8192

# A file with an extension no C++ or CUDA file has (`neutral.k`, which neutral.cu includes; a CMake
# template `kernels.cu.in`), in a folder that holds CUDA files, is converted when its text holds CUDA
# code: a kernel or device qualifier, a launch, or a CUDA header included. Not sniffed: the languages and
# formats that hold CUDA only as text (Python's inline kernels, documentation, notebooks, OpenCL's
# `__global`), HIP's own `.hip`, build files, backups and hidden files (an interrupted run's temp files);
# only a source file's usual size is read.
_CUDA_TEXT = lazy(
    rb"\b__(?:global|device|host|shared|constant|managed|launch_bounds)__\b|<<<[^<\n;]*>>>"
    rb"|^[ \t]*#[ \t]*include[ \t]*[<\"](?:cuda|cub/|thrust/|cublas|cufft|curand|cusparse|cusolver|nccl)",
    re.MULTILINE,
)
_NOT_SNIFFED_LIST = """
    .py .pyx .pxd .pyi .ipynb .rs .go .java .js .ts .jl .lua .rb .pl .pm .r .m .f .f77 .f90 .f95
    .f03 .for .cuf .sh .bash .zsh .csh .fish .bat .cmd .ps1 .md .markdown .rst .txt .tex .bib .html
    .htm .xml .json .yaml .yml .toml .ini .cfg .conf .csv .tsv .log .out .patch .diff .orig .rej
    .bak .old .swp .tmp .hip .cl .ptx .metal .glsl .hlsl .spv .cubin .fatbin .s .asm .ll .bc .o .obj
    .a .so .dll .dylib .lib .exe .bin .dat .pdf .png .jpg .jpeg .gif .svg .ico .zip .gz .tgz .bz2
    .xz .zst .tar .7z .whl .npy .npz .h5 .pt .onnx .pb .vcxproj .sln .filters .props .bazel .bzl .gn
    .gni .am .ac .m4 .lock .sum .mod .cs .swift .kt .scala .hs .ml .el .vim .sql .proto .cmake .mk
    .make
"""
_NOT_SNIFFED = frozenset(_NOT_SNIFFED_LIST.split())
_BUILD_NAME_PREFIXES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists", "Dockerfile")
_SNIFF_MAX = 256 << 10
# why only beside these: kernels kept apart sit with the .cu files that include them, and reading every
# file of an odd extension cost 3 s of IREE's 0.1 s walk (thousands of .mlir and .td files)
_CUDA_SUFFIXES = (".cu", ".cuh", ".cuinc", ".hu")


class Found(NamedTuple):
    path: Path
    root: Path  # the directory given on the command line (or the file's parent for a file)
    kind: str  # "source" or "build"


class Problem(NamedTuple):
    path: Path
    message: str


def file_kind(path: Path, extensions: Sequence[str], build_files: bool) -> str | None:
    name = path.name
    if build_files and (
        name in BUILD_FILE_NAMES or name.endswith(BUILD_FILE_EXTENSIONS) or makefile_name(name)
    ):
        return "build"
    if name.endswith(tuple(extensions)):
        return "source"
    return None


def extensionless_header(path: Path) -> bool:
    """A file with no extension whose text opens like a C++ header (_HEADER_OPENING); binary is not."""
    if "." in path.name:
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return False  # why silent: an unreadable file that is no source is none of the run's business
    if b"\0" in head:
        return False
    return _HEADER_OPENING.match(head.removeprefix(UTF8_BOM)) is not None


def cuda_text(path: Path) -> bool:
    """A file with an extension nothing converts by default whose text holds CUDA code (_CUDA_TEXT)."""
    name = path.name
    suffix = os.path.splitext(name)[1].lower()
    if not suffix or suffix in _NOT_SNIFFED or name.endswith("~") or name.startswith(_BUILD_NAME_PREFIXES):
        return False
    if name.startswith("."):
        return False  # why: hidden files are editors' swap files and this tool's own temp files (TEMP_MARK)
    try:
        with open(path, "rb") as f:
            text = f.read(_SNIFF_MAX)  # why a limit: a data file of some odd extension may be large
    except OSError:
        return False  # why silent: as extensionless_header
    return b"\0" not in text[:_SNIFF_BYTES] and _CUDA_TEXT.search(text) is not None


def _excluded(rel: str, exclude: Sequence[str]) -> bool:
    parts = rel.split("/")
    return any(fnmatch.fnmatch(rel, pat) or any(fnmatch.fnmatch(p, pat) for p in parts) for pat in exclude)


def discover(
    paths: Iterable[Path],
    extensions: Sequence[str] = SOURCE_EXTENSIONS,
    exclude: Sequence[str] = (),
    include: Sequence[str] = (),
    build_files: bool = True,
    ignored: frozenset[Path] = frozenset(),
    gitignore: bool = False,
    force_exclude: bool = False,
) -> tuple[list[Found], list[Problem]]:
    """Files under `paths` (sorted, unique) and problems (missing paths, loops, unreadable dirs).

    With `gitignore`, files git ignores (.gitignore, .git/info/exclude, core.excludesFile) are skipped
    when walking a directory inside a git work tree; a file named explicitly is always taken, and
    matched against `exclude` only with `force_exclude` (pre-commit names every staged file).
    """
    found: dict[Path, Found] = {}
    problems: list[Problem] = []
    for path in paths:
        if not path.exists() and not path.is_symlink():
            problems.append(Problem(path, "no such file or directory"))
            continue
        if path.is_file():
            if force_exclude and exclude and _excluded(_display_path(path), exclude):
                continue
            # A file named explicitly is converted whatever its extension, unless it is binary.
            kind = file_kind(path, extensions, build_files) or "source"
            found.setdefault(path, Found(path, path.parent, kind))
            continue
        if not path.is_dir():
            problems.append(Problem(path, "not a regular file or directory (broken symlink?)"))
            continue
        skip = git_ignored(path) if gitignore else frozenset()
        unknown: list[Path] = []  # files of an extension nothing converts: sniffed where CUDA files are
        cuda_dirs: set[Path] = set()
        for file, problem in _walk(path, problems, skip):
            if problem is not None:
                problems.append(problem)
                continue
            if exclude or include:  # why the test: the relative path costs more than the walk's stat
                rel = file.relative_to(path).as_posix()
                if exclude and _excluded(rel, exclude):
                    continue
                if include and not any(fnmatch.fnmatch(rel, pat) for pat in include):
                    continue
            if ignored and file.resolve() in ignored:
                continue
            kind = file_kind(file, extensions, build_files)
            if kind is None and extensionless_header(file):
                kind = "source"
            if kind is not None:
                found.setdefault(file, Found(file, path, kind))
                if file.name.endswith(_CUDA_SUFFIXES):
                    cuda_dirs.add(file.parent)
            elif "." in file.name:
                unknown.append(file)
        for file in unknown:
            if file.parent in cuda_dirs and cuda_text(file):
                found.setdefault(file, Found(file, path, "source"))
    return sorted(found.values(), key=lambda f: str(f.path)), problems


def _display_path(path: Path) -> str:
    """`path` relative to the working directory when inside it (as pre-commit names files), posix."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, os.getcwd())
    return Path(absolute if rel == ".." or rel.startswith("../") else rel).as_posix()


def git_ignored(directory: Path) -> frozenset[str]:
    """Paths (as os.walk spells them: `directory` joined with the relative path) git ignores below
    `directory`; ignored directories are listed once, without their content.

    One git call per walked directory. Not a git work tree, or no git: nothing is ignored.
    """
    if not _maybe_in_work_tree(directory):  # why: starting git costs more than this walk up the tree
        return frozenset()
    import subprocess  # why here: ~10 ms of import that a run over named files (pre-commit) never needs

    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"],
            cwd=directory,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    if proc.returncode != 0:
        return frozenset()
    top = str(directory)
    names = os.fsdecode(proc.stdout).split("\0")
    return frozenset(os.path.join(top, name.rstrip("/")) for name in names if name)


def _maybe_in_work_tree(directory: Path) -> bool:
    """Could git find a work tree from `directory`: a `.git` in it or above it (as git's own search
    sees the path: symlinks resolved), or GIT_DIR / GIT_WORK_TREE set."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return True
    here = os.path.realpath(directory)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return True
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def _walk(
    top: Path, problems: list[Problem], skip: frozenset[str] = frozenset()
) -> Iterator[tuple[Path, Problem | None]]:
    """A top-down walk (os.walk's order) that follows directory symlinks once and reports loops and
    unreadable dirs.

    `skip`: paths (files or directories, spelled as os.walk joins them) not to yield or descend into.
    why scandir and not os.walk: the entry's type comes with the directory listing, so a regular file
    costs no stat (os.walk's loop then needed an lstat per file to find broken symlinks): 3.0 -> 1.7 ms
    for 400 files, 30 -> 19 ms for HeCBench's 3,099.
    """
    seen: set[tuple[int, int]] = set()
    pending = [os.fspath(top)]
    while pending:
        dirpath = pending.pop()
        try:
            with os.scandir(dirpath) as listing:
                entries = sorted(listing, key=_name)
        except OSError as err:
            problems.append(Problem(Path(err.filename or top), f"cannot read directory: {err.strerror}"))
            continue
        try:
            st = os.stat(dirpath)
        except OSError as err:
            yield Path(dirpath), Problem(Path(dirpath), f"cannot read directory: {err.strerror}")
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            yield Path(dirpath), Problem(Path(dirpath), "symlink loop: directory already visited, skipped")
            continue
        seen.add(key)
        base = Path(dirpath)
        subdirs = []
        for entry in entries:
            if _is_dir(entry):
                if entry.name not in SKIP_DIRS and entry.path not in skip:
                    subdirs.append(entry.path)
                continue
            if skip and entry.path in skip:
                continue
            file = base / entry.name
            if entry.is_symlink() and not os.path.exists(entry.path):
                yield file, Problem(file, "broken symlink, skipped")
                continue
            yield file, None
        pending.extend(reversed(subdirs))  # why reversed: the first subdirectory is walked next


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A directory, or a link to one (os.walk's test: an entry that cannot be stat'ed is a file)."""
    try:
        return entry.is_dir()
    except OSError:
        return False
