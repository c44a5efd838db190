#!/usr/bin/env python3
"""Real CUDA projects on every target HIP: how many translation units compile after translation.

    python3 benchmarks/realprojects.py [--corpus benchmarks/realprojects.yaml] [--mirrors /work/.mirror]
        [--code CHECKOUT] [--perl HIPIFY_PERL] [--targets 6.4,7.2,5.2] [--only P1,P2] [-j 2]
        [--work DIR] [--json OUT] [--label NAME]

benchmarks/realprojects.yaml lists the projects (repository, commit, the TUs as the project builds them,
their flags, the authors' own HIP version of each TU where one exists, and the TUs left out with why).
The sources are never committed: each project is read from a bare git mirror
(MIRRORS/<owner>+<name>/repo, as the search tool's fetch makes them) at the pinned commit, with its
`overlays:` (other repositories, e.g. submodules at the pinned commits) extracted into the tree and its
`files:` (small headers of our own in place of those a configure step generates) written in.

For each target (the host's hipcc for 5.2; the prefix scripts/provision_rocm.py made, first on PATH,
for 6.4 and 7.2: that release is the installed HIP the translation sees, no --hip-version given):
  1. reference: the authors' HIP TU is compiled from the pristine tree with the HIP build's flags
     (and again with -std=c++17 where that build sets an older standard); a TU whose reference compiles
     either way is "reachable";
  2. hipify-py (the checkout --code) converts a copy of the project in place (`convert -q --in-place
     --no-build-files --report`); every TU is compiled as the CUDA build compiles it and, where that
     build sets a standard below C++17 (rocPRIM 7 needs 17) and that compile fails, with -std=c++17 too;
     It is compiled a third time with the flags the converted build passes, where they differ: the
     CUDA build's flags put through hipify-py's own build-file conversion for that target (the checkout's
     buildfiles.nvcc_flags; on 7.2 it raises -std below C++17 to 17, HIP405), as a user who converts the
     build files with the sources gets them;
  3. hipify-perl (--perl; translated once, it does not depend on the target) the same way (it converts
     no build files: no third compile).
Each compile is `HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -w -c -o /dev/null <flags> -x hip TU`;
a .c TU is C, as its build compiles it: `hipcc -c -w -D__HIP_PLATFORM_AMD__ <flags> -x c TU`, unless the
project or the TU says `language: cuda` (its build compiles the .c files as CUDA: hypre).

A failure whose first error is a missing header of a ROCm library the install lacks (hipBLASLt, RCCL,
roctx, ROCm SMI, ...) is "environment": counted apart, neither compiling nor failing. Compile results
are cached in WORK/cache, keyed by the sha256 of the TU's text, the project's files the translation
changed (its translated headers), the compiler's version and the flags: re-measuring after a change to
the translator recompiles only what the change touched.

Prints a Markdown table; --json writes every TU's result per target (first error line, and for
hipify-py whether an error finding sits in the failing file).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOOLCHAINS = Path(os.environ.get("HIPIFY_PY_TOOLCHAINS") or "/var/cache/hipify-py/toolchains")
HOST_HIPCC = "/usr/bin/hipcc"
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c++", ".C", ".c")
SOURCE_SUFFIXES = (
    *TU_SUFFIXES,
    *(".cuh", ".h", ".hpp", ".hh", ".hxx", ".h++", ".H", ".inl", ".ipp", ".tpp", ".inc"),
)
TOOLS = ("hipify-py", "hipify-perl")
MISSING_HEADER_RE = re.compile(r"'([^']+)' file not found")
# ROCm packages a translation may need that the mapping tables may not list (yet): missing = environment
EXTRA_LIBRARY_HEADERS = frozenset(
    {
        "rccl/",
        "rccl.h",
        "roctracer/",
        "roctx.h",
        "rocprofiler-sdk-roctx/",
        "rocprofiler.h",  # rocprofiler v1 (the HIP build passes -I.../include/rocprofiler)
        "rocprofiler/",
        "rocm_smi/",
        "amd_smi/",
        "hipblaslt/",
        "hipblaslt.h",
        "hipsparselt/",
        "hipsparselt.h",
        "rocwmma/",
        "hiprand/",
        "rocrand/",
        "hipcub/",
        "rocprim/",
        "thrust/",
        "hipblas/",
        "hipblas.h",
        "rocblas/",
        "hipfft/",
        "hipsparse/",
        "hipsolver/",
        "omp.h",  # -fopenmp: the compiler's OpenMP headers (libomp-dev), not in every toolchain
    }
)


# ---------------------------------------------------------------- the corpus file


@dataclass(frozen=True)
class Unit:
    cuda: str  # the CUDA TU, relative to the repository root
    hip: str | None  # the authors' HIP version of it (same repository), if any
    flags: tuple[str, ...]  # the CUDA build's flags, -std included
    ref_flags: tuple[str, ...]  # the HIP build's flags for `hip`, -std included
    # a .c TU the build compiles as CUDA (CMake LANGUAGE CUDA, `language: cuda`), and its HIP version
    # as HIP: both compiled as HIP C++ here; other .c TUs are C
    c_as_gpu: bool = False

    def as_c(self, path: str) -> bool:
        return path.endswith(".c") and not self.c_as_gpu


@dataclass(frozen=True)
class Project:
    name: str
    repo: str  # owner/name on GitHub
    commit: str
    translate: tuple[str, ...]  # folders (or files) both tools convert, relative to the root
    units: tuple[Unit, ...]
    excluded: tuple[tuple[str, str], ...] = ()  # (TU, why it is left out)
    note: str = ""
    # (repo, commit, folder): another repository extracted into the tree at folder, for a HIP
    # version the authors keep in a repository of its own (rocThrust's port of Thrust's examples)
    overlays: tuple[tuple[str, str, str], ...] = ()
    # (path, text): a small file of our own written into the tree, for a header the project's
    # configure step generates (blaspp's blas/defines.h from defines.h.in): never third-party text
    files: tuple[tuple[str, str], ...] = ()

    def mirror(self, mirrors: Path) -> Path:
        return mirrors / self.repo.replace("/", "+") / "repo"


def _flags(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(w for v in value for w in v.split())
    raise ValueError(f"{where}: flags must be a string or a list of strings")


def with_std(flags: Sequence[str], std: str | None) -> tuple[str, ...]:
    """`flags` with its -std= replaced by `std` (added when absent; kept as is when std is None)."""
    if std is None:
        return tuple(flags)
    rest = [f for f in flags if not f.startswith(("-std=", "--std="))]
    return (f"-std={std}", *rest)


def std_of(flags: Sequence[str]) -> str:
    """The standard `flags` set (the last -std wins); nvcc's default, C++17, when none."""
    found = [f.split("=", 1)[1] for f in flags if f.startswith(("-std=", "--std="))]
    return found[-1] if found else "c++17"


def below_cxx17(std: str) -> bool:
    """c++98/03/0x/11/1y/14 (and gnu++ spellings): older than what rocPRIM 7 requires."""
    m = re.fullmatch(r"(?:c|gnu)\+\+(\w+)", std)
    return bool(m) and m.group(1) in ("98", "03", "0x", "11", "1y", "14")


def parse_corpus(data: Mapping[str, Any]) -> list[Project]:
    """The projects of realprojects.yaml (see the comment at its top for the format)."""
    projects = []
    for entry in data.get("projects", []):
        name = entry["name"]
        base = _flags(entry.get("flags"), name)
        ref_base = _flags(entry.get("ref_flags", entry.get("flags")), name)
        std, ref_std = entry.get("std"), entry.get("ref_std", entry.get("std"))
        units = []
        for tu in entry.get("tus", []):
            if isinstance(tu, str):
                tu = {"cuda": tu}
            elif "cuda" not in tu:  # `cuda/path.cu: hip/path.cc` shorthand
                ((cuda, hip),) = tu.items()
                tu = {"cuda": cuda, "hip": hip}
            flags = with_std((*base, *_flags(tu.get("flags"), tu["cuda"])), tu.get("std", std))
            ref = with_std((*ref_base, *_flags(tu.get("ref_flags"), tu["cuda"])), tu.get("ref_std", ref_std))
            gpu = tu.get("language", entry.get("language")) == "cuda"
            units.append(Unit(tu["cuda"], tu.get("hip"), flags, ref, gpu))
        cudas = [u.cuda for u in units]
        if len(set(cudas)) != len(cudas):
            raise ValueError(f"{name}: a TU is listed twice")
        excluded = tuple((e["path"], e["reason"]) for e in entry.get("excluded", []))
        translate = entry.get("translate") or sorted({str(Path(u.cuda).parent) for u in units})
        projects.append(
            Project(
                name,
                entry["repo"],
                str(entry["commit"]),
                tuple(translate),
                tuple(units),
                excluded,
                entry.get("note", ""),
                tuple((o["repo"], str(o["commit"]), o["path"]) for o in entry.get("overlays", [])),
                tuple((f["path"], f["text"]) for f in entry.get("files", [])),
            )
        )
    names = [p.name for p in projects]
    if len(set(names)) != len(names):
        raise ValueError("a project name is used twice")
    return projects


def load_corpus(path: Path) -> list[Project]:
    return parse_corpus(yaml.safe_load(path.read_text()) or {})


# ---------------------------------------------------------------- compile results


@dataclass
class Result:
    """One compile of one TU."""

    status: str  # ok | fail | environment | timeout
    first_error: str = ""
    stderr: str = ""
    deps: list[str] = field(default_factory=list)


def classify_compile(
    returncode: int, stderr: str, library_headers: frozenset[str], roots: Sequence[Path] = ()
) -> tuple[str, str]:
    """(status, first error line) of one compile: a first error naming a missing header of a ROCm
    library that is not installed at all (no form of it under `roots`, the toolchain's include
    folders) is the environment's, not the translation's. A header the installed library lacks (the
    flat hipblas.h ROCm 7 dropped) is the translation's."""
    if returncode == 0:
        return "ok", ""
    lines = [ln for ln in stderr.splitlines() if re.search(r"\b(?:fatal )?error\b", ln)]
    first = lines[0].strip() if lines else stderr.strip()[:300]
    if "timed out" in first and returncode == -1:
        return "timeout", first
    m = MISSING_HEADER_RE.search(first)
    if m and is_library_header(m[1], library_headers) and not installed(m[1], roots):
        return "environment", first
    return "fail", first


def installed(header: str, roots: Sequence[Path]) -> bool:
    """Some form of the library of `header` is under one of `roots`: the header, or the folder named
    after its first component (hipblas.h, hipblas/hipblas.h -> hipblas/)."""
    stem = re.sub(r"\.(?:h|hpp|hh)$", "", header.split("/", 1)[0])
    return any((r / header).exists() or (r / stem).is_dir() for r in roots)


def include_roots(hipcc: str) -> list[Path]:
    """The system include folders of a toolchain (the chroot's for 6.4/7.2, the host's for 5.2)."""
    p = Path(hipcc)
    base = (
        TOOLCHAINS / f"rocm-{p.parent.parent.name[len('hip-') :]}"
        if p.parent.parent.name.startswith("hip-")
        else Path("/")
    )
    return [r for r in (base / "usr" / "include", base / "opt" / "rocm" / "include") if r.is_dir()]


def is_library_header(path: str, headers: frozenset[str]) -> bool:
    head, sep, _ = path.partition("/")
    return path in headers or (bool(sep) and f"{head}/" in headers)


def cache_key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        data = p.encode() if isinstance(p, str) else p
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


# ---------------------------------------------------------------- trees


def extract(project: Project, mirrors: Path, dest: Path) -> Path:
    """The pristine tree of `project` at its commit, its overlays in their folders (kept in WORK/src
    and reused)."""
    stamp = "".join(f"+{Path(folder).name}-{commit[:8]}" for _, commit, folder in project.overlays)
    if project.files:
        stamp += "+files-" + files_key(project)[:8]
    out = dest / f"{project.name}-{project.commit[:12]}{stamp}"
    if (out / ".complete").is_file():
        return out
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    parts = [(project.repo, project.commit, out)]
    parts += [(repo, commit, out / folder) for repo, commit, folder in project.overlays]
    for repo, commit, into in parts:
        mirror = mirrors / repo.replace("/", "+") / "repo"
        if not mirror.is_dir():
            raise SystemExit(f"{project.name}: no mirror at {mirror} (fetch github:{repo})")
        write_commit(mirror, commit, into)
    for rel, text in project.files:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    (out / ".complete").write_text(project.commit + "\n")
    return out


def write_commit(mirror: Path, commit: str, out: Path) -> None:
    """Every file of `commit` of the bare repository `mirror`, written under `out`."""
    # not `git archive`: a mirror may lack its largest blobs (PDFs, data), which archive refuses
    listing = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.decode()
    blobs = []
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode != "120000":  # symlinks left out
            blobs.append((oid, path))
    batch = subprocess.run(
        ["git", "-C", str(mirror), "cat-file", "--batch"],
        input="".join(f"{oid}\n" for oid, _ in blobs).encode(),
        capture_output=True,
        check=True,
    ).stdout
    pos = 0
    for _, path in blobs:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        pos = header_end + 1
        if len(header) < 3 or header[1] != b"blob":  # "<oid> missing"
            continue
        size = int(header[2])
        dest_file = out / path
        dest_file.parent.mkdir(parents=True, exist_ok=True)
        dest_file.write_bytes(batch[pos : pos + size])
        pos += size + 1


def copy_tree(src: Path, dest: Path) -> None:
    """Copy without permissions (the copy is converted in place) and without the marker."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(
        src, dest, symlinks=True, copy_function=shutil.copyfile, ignore=shutil.ignore_patterns(".complete")
    )
    for folder, _, _ in os.walk(dest):
        os.chmod(folder, 0o755)


def sources_under(
    root: Path, paths: Iterable[str], suffixes: tuple[str, ...] | None = SOURCE_SUFFIXES
) -> list[Path]:
    """The files under `paths` with one of `suffixes` (None: every file)."""
    out: list[Path] = []
    for rel in paths:
        p = root / rel
        if p.is_file():
            out.append(p)
            continue
        for folder, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            out += [Path(folder, f) for f in sorted(files) if suffixes is None or f.endswith(suffixes)]
    return out


def changed_files(pristine: Path, tree: Path, paths: Iterable[str]) -> dict[str, str]:
    """Files of `paths` the translation changed: relative path -> sha256 of the translated text. Every
    file is compared, whatever its name: the translator decides which it converts (`.hu` headers)."""
    out = {}
    for p in sources_under(tree, paths, None):
        rel = p.relative_to(tree).as_posix()
        data = p.read_bytes()
        try:
            before = (pristine / rel).read_bytes()
        except OSError:
            before = b""
        if data != before:
            out[rel] = hashlib.sha256(data).hexdigest()
    return out


def run_perl(perl: Path, tree: Path, paths: Iterable[str]) -> None:
    """hipify-perl -inplace over every source file (it backs each up as FILE.prehip: removed after).
    A path with white space in it (`day 01/vectAdd.cu`) is converted through stdout instead: -inplace
    backs it up with an unquoted `cp` that fails and leaves the file unconverted."""
    files = []
    for path in sources_under(tree, paths):
        if any(c.isspace() for c in str(path)):
            cmd = ["perl", str(perl), "-quiet-warnings", str(path)]
            done = subprocess.run(cmd, cwd=tree, capture_output=True, check=False)
            if done.returncode == 0 and done.stdout:
                path.write_bytes(done.stdout)
        else:
            files.append(str(path))
    for i in range(0, len(files), 200):
        subprocess.run(
            ["perl", str(perl), "-inplace", "-quiet-warnings", *files[i : i + 200]],
            cwd=tree,
            capture_output=True,
            check=False,
        )
    for p in tree.rglob("*.prehip"):
        p.unlink()


# ---------------------------------------------------------------- targets


def hipcc_of(version: str) -> str | None:
    if version == "5.2":
        return HOST_HIPCC if Path(HOST_HIPCC).is_file() else None
    p = TOOLCHAINS / f"hip-{version}" / "bin" / "hipcc"
    return str(p) if p.is_file() else None


def target_env(version: str) -> dict[str, str]:
    """A machine where `version` is the installed HIP: its hipcc first on PATH, no ROCM_PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("ROCM_PATH", "HIPCC", "HIP_PATH")}
    hipcc = hipcc_of(version)
    if hipcc and version != "5.2":
        env["PATH"] = f"{Path(hipcc).parent}{os.pathsep}{env.get('PATH', '')}"
        env["HIPCC"] = hipcc
    return env


# ---------------------------------------------------------------- the run


def abs_flags(flags: Sequence[str], root: Path) -> tuple[str, ...]:
    """-I relative to the repository root -> absolute (the compile runs in the TU's folder)."""
    out = []
    for f in flags:
        if f.startswith("-I") and len(f) > 2 and not f[2:].startswith("/"):
            out.append(f"-I{root / f[2:]}")
        else:
            out.append(f)
    return tuple(out)


class Compiles:
    """Compiles with the cache in WORK/cache (one JSON file a key)."""

    def __init__(self, work: Path, library_headers: frozenset[str], timeout: float) -> None:
        self.dir = work / "cache"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.headers = library_headers
        self.timeout = timeout
        self.hits = self.misses = 0
        self.versions: dict[str, str] = {}
        self._roots: dict[str, list[Path]] = {}

    def roots(self, hipcc: str) -> list[Path]:
        if hipcc not in self._roots:
            self._roots[hipcc] = include_roots(hipcc)
        return self._roots[hipcc]

    def version(self, hipcc: str) -> str:
        if hipcc not in self.versions:
            sys.path.insert(0, str(ROOT))
            from hipify_py.verify import find_hipcc

            self.versions[hipcc] = find_hipcc(hipcc).version
        return self.versions[hipcc]

    def compile(
        self, hipcc: str, root: Path, tu: str, flags: Sequence[str], context: str, as_c: bool | None = None
    ) -> Result:
        """`as_c`: compile as C (default: a .c TU is C)."""
        from hipify_py.verify import CompileJob, Compiler, compile_tu

        src = root / tu
        args = abs_flags(flags, root)
        try:
            text = src.read_bytes()
        except OSError:
            return Result("fail", f"{tu}: no such file")
        as_c = tu.endswith(".c") if as_c is None else as_c
        key = cache_key(text, context, self.version(hipcc), "\0".join(args), tu, "-x c" if as_c else "")
        hit = self.dir / f"{key}.json"
        if hit.is_file():
            res = Result(**json.loads(hit.read_text()))
            m = MISSING_HEADER_RE.search(res.first_error)
            # the toolchains gain packages: a library missing then may be installed now
            if res.status != "environment" or not m or not installed(m[1], self.roots(hipcc)):
                self.hits += 1
                if res.status in ("fail", "environment"):  # classified as this harness does now
                    res.status = classify_compile(1, res.first_error, self.headers, self.roots(hipcc))[0]
                return res
        self.misses += 1
        job = CompileJob(str(src), cwd=str(src.parent), args=args, codegen=True)
        if as_c:
            out = compile_c(hipcc, job, self.timeout)
        else:
            out = compile_tu(Compiler(hipcc, self.version(hipcc)), job, timeout=self.timeout)
        status, first = classify_compile(out.returncode, out.stderr, self.headers, self.roots(hipcc))
        # the head of stderr: the first error decides
        res = Result(status, first.replace(f"{root}/", ""), out.stderr[:60000], list(out.deps))
        if status != "timeout":
            hit.write_text(json.dumps(res.__dict__))
        return res


def compile_c(hipcc: str, job: Any, timeout: float) -> Any:
    """A .c TU as its build compiles it: C, by the C compiler, with hipconfig's flags for HIP
    (`-D__HIP_PLATFORM_AMD__`, HIP's include dir, which hipcc adds), not as HIP C++."""
    from hipify_py.verify.compiler import CompileOutput, _read_deps, environment

    with tempfile.TemporaryDirectory(prefix="hipify-py-compile-c-") as scratch:
        depfile = os.path.join(scratch, "deps.d")
        cmd = [hipcc, "-c", "-o", os.devnull, "-w", "-D__HIP_PLATFORM_AMD__", *job.args]
        cmd += ["-MD", "-MF", depfile, "-x", "c", job.source]
        env = {**environment(), "TMPDIR": scratch, "HIP_PLATFORM": "amd"}
        try:
            proc = subprocess.run(
                cmd, cwd=job.cwd, env=env, capture_output=True, text=True, errors="replace", timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return CompileOutput(-1, f"error: hipcc timed out after {timeout:.0f} s", ())
        return CompileOutput(proc.returncode, proc.stderr, _read_deps(depfile, job.cwd))


def _pf() -> Any:
    """scripts/predict_failures.py: its report reading and failure classification are reused."""
    if "predict_failures" in sys.modules:
        return sys.modules["predict_failures"]
    spec = importlib.util.spec_from_file_location(
        "predict_failures", ROOT / "scripts" / "predict_failures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["predict_failures"] = module
    spec.loader.exec_module(module)
    return module


def hipify_py(code: Path, tree: Path, paths: Sequence[str], env: dict[str, str], jobs: int) -> dict:
    report = tree / ".hipify-py-report.json"
    cmd = [sys.executable, "-m", "hipify_py", "convert", "-q", "--in-place", "--no-build-files"]
    cmd += ["-j", str(jobs), "--report", str(report), *[p for p in paths if (tree / p).exists()]]
    env = {**env, "PYTHONPATH": os.pathsep.join([str(code), env.get("PYTHONPATH", "")])}
    r = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, env=env)
    if not report.is_file():
        raise SystemExit(f"hipify-py failed in {tree} (exit {r.returncode}):\n{r.stderr[-2000:]}")
    data = json.loads(report.read_text())
    report.unlink()
    return data


# The build-file conversion of the checkout that translates, applied to one flag list per line of
# stdin (JSON) for HIP argv[1]: the flags its converted Makefile/CMake line would pass.
_CONVERT_FLAGS = """
import json, sys
from hipify_py.buildfiles.nvcc_flags import translate_flags
from hipify_py.run.build_targets import build_options
opts = build_options(["gfx90a"], sys.argv[1])
for line in sys.stdin:
    flags = json.loads(line)
    new, _ = translate_flags(flags, opts, True)
    print(json.dumps([f for i, p in enumerate(flags) for f in new.get(i, (p,))]))
"""


def converted_flags(code: Path, version: str, flag_lists: Sequence[Sequence[str]]) -> dict:
    """CUDA build flags -> the flags hipify-py's build-file conversion writes for `version`."""
    unique = sorted({tuple(f) for f in flag_lists})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run(
        [sys.executable, "-c", _CONVERT_FLAGS, version],
        input="".join(json.dumps(list(f)) + "\n" for f in unique),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return {f: tuple(json.loads(line)) for f, line in zip(unique, r.stdout.splitlines(), strict=True)}


def tool_record(
    comp: Compiles,
    hipcc: str,
    tree: Path,
    unit: Unit,
    context: str,
    std17: bool,
    converted: Sequence[str] | None = None,
) -> tuple[dict[str, Any], Result]:
    as_c = unit.as_c(unit.cuda)
    res = comp.compile(hipcc, tree, unit.cuda, unit.flags, context, as_c)
    rec: dict[str, Any] = {"build": res.status}
    if res.first_error:
        rec["first_error"] = res.first_error[:300]
    judged = res  # the compile whose first error finding_record looks at
    if std17 and res.status == "fail":  # what compiles with the build's older standard compiles with 17
        res17 = comp.compile(hipcc, tree, unit.cuda, with_std(unit.flags, "c++17"), context, as_c)
        rec["c++17"] = res17.status
        if res17.status != "ok" and res17.first_error != res.first_error:
            rec["first_error_c++17"] = res17.first_error[:300]
        if res17.status == "fail":  # why: the older standard's first error is rocPRIM 7's C++17 demand
            judged = res17
    if converted is not None and tuple(converted) != tuple(unit.flags):
        resc = comp.compile(hipcc, tree, unit.cuda, converted, context, as_c)
        rec["converted"] = resc.status
        if resc.status != "ok" and resc.first_error != res.first_error:
            rec["first_error_converted"] = resc.first_error[:300]
    return rec, judged


def finding_record(pf: Any, clf: Any, project: str, unit: Unit, res: Result) -> dict[str, Any]:
    """predict_failures' verdict (predicted / silent / false_alarm ...) and whether an error finding
    sits in the file of the first error."""
    errors = pf.parse_errors(res.stderr) if res.stderr else []
    outcome = pf.Outcome(
        res.status == "ok", errors[0] if errors else None, tuple(res.deps), False, res.stderr
    )
    tu = pf.TU(project, str(Path(unit.cuda).parent), Path(unit.cuda).name, ())
    verdict = clf.classify(tu, outcome)
    out: dict[str, Any] = {"verdict": verdict.status}
    if res.status != "ok":
        where = errors[0].where if errors else None
        rel = clf.rel(tu, where.file) if where is not None else None
        out["finding_in_file"] = bool(rel and clf.findings.get(rel))
        if verdict.rules:
            out["rules"] = verdict.rules
    return out


@dataclass(frozen=True)
class Task:
    """One TU on one target: where its trees are and what its cache context is."""

    project: Project
    unit: Unit
    pristine: Path
    tree: Path  # hipify-py's translation
    perl_tree: Path | None  # hipify-perl's
    context: str  # the project's commit and the files the translation changed (besides the TUs)
    perl_context: str
    clf: Any  # predict_failures.Classifier over hipify-py's findings
    converted: Mapping[tuple[str, ...], tuple[str, ...]]  # CUDA build flags -> the converted build's


def measure_unit(comp: Compiles, hipcc: str, task: Task) -> dict[str, Any]:
    unit, p = task.unit, task.project
    rec: dict[str, Any] = {"project": p.name, "tu": unit.cuda, "hip": unit.hip}
    std17 = below_cxx17(std_of(unit.flags))
    if unit.hip:
        ref = comp.compile(
            hipcc, task.pristine, unit.hip, unit.ref_flags, reference_context(p), unit.as_c(unit.hip)
        )
        rec["ref"] = ref.status
        if ref.first_error:
            rec["ref_error"] = ref.first_error[:300]
        if ref.status == "fail" and below_cxx17(std_of(unit.ref_flags)):
            flags17 = with_std(unit.ref_flags, "c++17")
            rec["ref_c++17"] = comp.compile(
                hipcc, task.pristine, unit.hip, flags17, reference_context(p), unit.as_c(unit.hip)
            ).status
    ours, res = tool_record(comp, hipcc, task.tree, unit, task.context, std17, task.converted.get(unit.flags))
    ours.update(finding_record(_pf(), task.clf, p.name, unit, res))
    rec["hipify-py"] = ours
    if task.perl_tree is not None:
        rec["hipify-perl"] = tool_record(comp, hipcc, task.perl_tree, unit, task.perl_context, std17)[0]
    return rec


def reference_context(project: Project) -> str:
    """The cache context of the authors' HIP TUs: the commit and the files written in."""
    return f"reference {project.commit}" + (f" {files_key(project)}" if project.files else "")


def files_key(project: Project) -> str:
    return cache_key(*(f"{path}\0{text}" for path, text in project.files))


def translation_context(project: Project, pristine: Path, tree: Path) -> str:
    """The cache context of a translated project: its commit and every file the translation changed
    except the TUs themselves (their text is part of each key), and the files written in."""
    tus = {u.cuda for u in project.units}
    changed = changed_files(pristine, tree, project.translate)
    parts: list[Any] = [project.commit, {k: v for k, v in changed.items() if k not in tus}]
    if project.files:
        parts.append([list(f) for f in project.files])
    return json.dumps(parts, sort_keys=True)


def measure_target(
    version: str,
    projects: Sequence[Project],
    trees: dict[str, Path],
    perl_trees: dict[str, Path],
    args: argparse.Namespace,
    comp: Compiles,
) -> list[dict[str, Any]]:
    hipcc = hipcc_of(version)
    if hipcc is None:
        print(f"HIP {version}: no hipcc, skipped", file=sys.stderr)
        return []
    pf = _pf()
    env = target_env(version)
    env["HIPIFY_PY_CACHE_DIR"] = str(args.work / f"hipify-py-cache-{version}")
    tasks = []
    converted = converted_flags(args.code, version, [u.flags for p in projects for u in p.units])
    for p in projects:
        pristine = trees[p.name]
        tree = args.work / "hipify-py" / version / p.name
        copy_tree(pristine, tree)
        findings = pf.error_findings(hipify_py(args.code, tree, p.translate, env, args.j), pristine)
        clf = pf.Classifier(tree, pristine, findings, 3, pf.rocm_library_headers(), pf.cuda_headers())
        context = translation_context(p, pristine, tree)
        perl = perl_trees.get(p.name)
        pcontext = translation_context(p, pristine, perl) if perl else ""
        tasks += [Task(p, u, pristine, tree, perl, context, pcontext, clf, converted) for u in p.units]
    records = []
    with cf.ThreadPoolExecutor(args.j) as pool:
        for rec in pool.map(lambda t: measure_unit(comp, hipcc, t), tasks):
            print(
                f"  {version} {rec['project']}/{rec['tu']}: ref {rec.get('ref', '-')}, hipify-py "
                f"{rec['hipify-py']['build']}, perl {rec.get('hipify-perl', {}).get('build', '-')}",
                file=sys.stderr,
                flush=True,
            )
            records.append(rec)
    return records


# ---------------------------------------------------------------- figures


def reachable(rec: Mapping[str, Any]) -> bool:
    return rec.get("ref") == "ok" or rec.get("ref_c++17") == "ok"


def summarize(records: Sequence[Mapping[str, Any]], tool: str) -> dict[str, Any]:
    """Per tool: reachable TUs compiling as the build sets the standard and with C++17, TUs with no
    reference, environment failures (apart), reachable failures with no error finding (hipify-py)."""
    out: dict[str, Any] = {}
    recs = [r for r in records if tool in r]
    env = [r for r in recs if r[tool]["build"] == "environment" or r.get("ref") == "environment"]
    counted = [r for r in recs if r not in env]
    reach = [r for r in counted if reachable(r)]
    noref = [r for r in counted if not r.get("hip")]
    out["reachable"] = len(reach)
    out["reachable_ok"] = sum(r[tool]["build"] == "ok" for r in reach)
    out["reachable_ok_c++17"] = sum(r[tool].get("c++17", r[tool]["build"]) == "ok" for r in reach)
    if tool == "hipify-py":  # as the converted build compiles it (hipify-perl converts no build files)
        out["reachable_ok_converted"] = sum(r[tool].get("converted", r[tool]["build"]) == "ok" for r in reach)
        out["no_reference_ok_converted"] = sum(
            r[tool].get("converted", r[tool]["build"]) == "ok" for r in noref
        )
    out["no_reference"] = len(noref)
    out["no_reference_ok"] = sum(r[tool]["build"] == "ok" for r in noref)
    out["no_reference_ok_c++17"] = sum(r[tool].get("c++17", r[tool]["build"]) == "ok" for r in noref)
    out["reference_fails"] = sum(1 for r in counted if r.get("hip") and not reachable(r))
    out["environment"] = len(env)
    if tool == "hipify-py":
        failing = [r for r in reach + noref if r[tool]["build"] != "ok"]
        out["failing_no_finding"] = sum(not r[tool].get("finding_in_file") for r in failing)
        out["failing"] = len(failing)
        # the same once the build files are converted (the finding is the as-built compile's)
        failing = [r for r in failing if r[tool].get("converted", r[tool]["build"]) != "ok"]
        out["failing_converted_no_finding"] = sum(not r[tool].get("finding_in_file") for r in failing)
        out["failing_converted"] = len(failing)
    return out


def pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f}%)" if n else "-"


def table(results: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [
        "| target | tool | reachable TUs compiling (std as the build sets it) | with -std=c++17 |"
        " with the converted build's flags |"
        " TUs with no HIP version compiling | failing with no error finding | environment (apart) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for version, res in results.items():
        for tool in TOOLS:
            s = res["summary"].get(tool)
            if not s:
                continue
            nofind = f"{s['failing_no_finding']} of {s['failing']}" if "failing" in s else ""
            conv = pct(s["reachable_ok_converted"], s["reachable"]) if "reachable_ok_converted" in s else "-"
            lines.append(
                f"| HIP {version} | {tool} | {pct(s['reachable_ok'], s['reachable'])} | "
                f"{pct(s['reachable_ok_c++17'], s['reachable'])} | "
                f"{conv} | "
                f"{pct(s['no_reference_ok'], s['no_reference'])} | {nofind} | {s['environment']} |"
            )
    return "\n".join(lines)


def project_table(results: Mapping[str, Mapping[str, Any]]) -> str:
    """Per project and target: reachable TUs compiling after each tool (environment failures left out of
    both counts), as the build sets the standard."""
    versions = list(results)
    names = list(dict.fromkeys(r["project"] for res in results.values() for r in res["tus"]))
    lines = [
        "| project | " + " | ".join(f"{v}: hipify-py | {v}: hipify-perl" for v in versions) + " |",
        "| --- |" + " --- | --- |" * len(versions),
    ]
    for name in names:
        cells = []
        for v in versions:
            recs = [r for r in results[v]["tus"] if r["project"] == name and reachable(r)]
            for tool in TOOLS:
                counted = [r for r in recs if tool in r and r[tool]["build"] != "environment"]
                ok = sum(r[tool]["build"] == "ok" for r in counted)
                env = sum(1 for r in recs if tool in r) - len(counted)
                cells.append(f"{ok}/{len(counted)}" + (f" (+{env} env)" if env else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def small(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [dict(r) for r in records]


def code_commit(code: Path) -> str:
    r = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return r.stdout.strip()


def write_json(
    args: argparse.Namespace,
    projects: Sequence[Project],
    excluded_only: Sequence[Project],
    perl_commit: str,
    t0: float,
    comp: Compiles,
    results: Mapping[str, Any],
) -> None:
    out = {
        "label": args.label,
        "code": code_commit(args.code),
        "hipify_perl": perl_commit or (args.perl or ""),
        "projects": [
            {"name": p.name, "repo": p.repo, "commit": p.commit, "tus": len(p.units)} for p in projects
        ],
        "excluded": sum(len(p.excluded) for p in (*projects, *excluded_only)),
        "projects_left_out": [p.repo for p in excluded_only],
        "seconds": round(time.monotonic() - t0),
        "cache": {"hits": comp.hits, "misses": comp.misses},
        "targets": results,
    }
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    if args.label:
        write_results(
            ROOT / "benchmarks" / "results" / f"realprojects-{args.label}.json", args.label, out, results
        )


def compact(rec: Mapping[str, Any]) -> dict[str, Any]:
    """One TU's result as committed: statuses and first errors (shortened), no verdict details."""
    out: dict[str, Any] = {"project": rec["project"], "tu": rec["tu"]}
    if rec.get("hip"):
        out["hip"] = rec["hip"]
        out["ref"] = rec.get("ref")
        if "ref_c++17" in rec:
            out["ref_c++17"] = rec["ref_c++17"]
        if rec.get("ref") != "ok" and rec.get("ref_error"):
            out["ref_error"] = rec["ref_error"][:160]
    for tool in TOOLS:
        if tool not in rec:
            continue
        t = rec[tool]
        short = {k: t[k] for k in ("build", "c++17", "converted", "finding_in_file") if k in t}
        if t["build"] != "ok" and t.get("first_error"):
            short["first_error"] = t["first_error"][:160]
        out[tool] = short
    return out


def write_results(path: Path, label: str, meta: Mapping[str, Any], results: Mapping[str, Any]) -> None:
    """benchmarks/results/realprojects-LABEL.json: the summaries and every TU's statuses, per target;
    targets measured by another run with the same label are kept (5.2 is often measured apart)."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        old = {}
    targets = dict(old.get("targets", {}))
    for version, res in results.items():
        targets[version] = {
            "compiler": res["compiler"].splitlines()[0] if res["compiler"] else "",
            "code": meta["code"],
            "hipify_perl": meta["hipify_perl"],
            "summary": res["summary"],
            "tus": [compact(r) for r in res["tus"]],
        }
    data = {
        "label": label,
        "projects": meta["projects"],
        "projects_left_out": meta["projects_left_out"],
        "excluded_tus": meta["excluded"],
        "targets": dict(sorted(targets.items())),
    }
    # one TU a line: small, and a re-measurement's diff shows the TUs that changed
    rows: list[str] = []
    for res in data["targets"].values():
        res["tus"], tus = [], res["tus"]
        for rec in tus:
            res["tus"].append(f"@@{len(rows)}@@")
            rows.append(json.dumps(rec, separators=(",", ":")))
    text = json.dumps(data, indent=1)
    text = re.sub(r'"@@(\d+)@@"', lambda m: rows[int(m.group(1))], text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT / "benchmarks" / "realprojects.yaml")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--code", type=Path, default=ROOT, help="hipify-py checkout that translates")
    ap.add_argument("--perl", help="hipify-perl script (default: bin/hipify-perl of MIRRORS/ROCm+HIPIFY)")
    ap.add_argument("--no-perl", action="store_true", help="measure hipify-py only")
    ap.add_argument("--targets", default="6.4,7.2,5.2")
    ap.add_argument("--only", help="comma-separated project names")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--work", type=Path, default=Path("realprojects-work"))
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per hipcc run")
    ap.add_argument("--json", type=Path, help="write every TU's result here")
    ap.add_argument(
        "--label",
        default="",
        help="name of the measurement (before, after): also written, compact, to "
        "benchmarks/results/realprojects-LABEL.json (other targets already there are kept)",
    )
    args = ap.parse_args(argv)
    args.work = args.work.resolve()
    args.code = args.code.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    projects = load_corpus(args.corpus)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p.name for p in projects}
        if unknown:
            raise SystemExit(f"--only: unknown projects {sorted(unknown)}")
        projects = [p for p in projects if p.name in wanted]
    excluded_only = [p for p in projects if not p.units]  # listed for what they leave out, and why
    projects = [p for p in projects if p.units]
    t0 = time.monotonic()
    trees = {p.name: extract(p, args.mirrors, args.work / "src") for p in projects}
    perl_trees: dict[str, Path] = {}
    perl_commit = ""
    if not args.no_perl:
        with tempfile.TemporaryDirectory(prefix="hipify-perl-") as tmp:
            script = Path(args.perl) if args.perl else None
            if script is None:
                mirror = args.mirrors / "ROCm+HIPIFY" / "repo"
                if mirror.is_dir():
                    script = Path(tmp) / "hipify-perl"
                    text = subprocess.run(
                        ["git", "-C", str(mirror), "show", "HEAD:bin/hipify-perl"],
                        capture_output=True,
                        check=True,
                    ).stdout
                    script.write_bytes(text)
                    perl_commit = subprocess.run(
                        ["git", "-C", str(mirror), "rev-parse", "--short", "HEAD"],
                        capture_output=True,
                        text=True,
                    ).stdout.strip()
            if script is None or not script.is_file():
                print("hipify-perl not found: measuring hipify-py only", file=sys.stderr)
            else:
                stamp = hashlib.sha256(script.read_bytes()).hexdigest()
                for p in projects:
                    tree = args.work / "hipify-perl" / p.name
                    # its translation depends on the script and the sources only: made once
                    done = tree / ".hipify-perl-done"
                    key = json.dumps([stamp, p.commit, p.translate])
                    if not done.is_file() or done.read_text() != key:
                        copy_tree(trees[p.name], tree)
                        run_perl(script, tree, p.translate)
                        done.write_text(key)
                    perl_trees[p.name] = tree
    sys.path.insert(0, str(ROOT))
    comp = Compiles(args.work, _pf().rocm_library_headers() | EXTRA_LIBRARY_HEADERS, args.timeout)
    results: dict[str, dict[str, Any]] = {}
    for version in args.targets.split(","):
        records = measure_target(version, projects, trees, perl_trees, args, comp)
        if not records:
            continue
        results[version] = {
            "compiler": comp.version(hipcc_of(version) or ""),
            "summary": {t: summarize(records, t) for t in TOOLS if any(t in r for r in records)},
            "tus": small(records),
        }
        print(f"HIP {version}: {json.dumps(results[version]['summary'])}", file=sys.stderr, flush=True)
        if args.json or args.label:  # after each target: a run cut short keeps what it measured
            write_json(args, projects, excluded_only, perl_commit, t0, comp, results)
    print(table(results))
    print()
    print(project_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
