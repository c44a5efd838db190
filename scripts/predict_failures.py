#!/usr/bin/env python3
"""Measure the translator's promise on real CUDA code: every TU that fails to compile should carry an
error-level finding that says why, and no TU that compiles should carry one.

The tree is copied to a scratch directory, converted in place by hipify-py (this checkout's code) with
a JSON report, and every translation unit is compiled with
`HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -std=c++17 -x hip -c` (hipify_py.verify). Each TU is then:

  clean         compiles, no error finding in it or in the project headers it includes
  false_alarm   compiles, but an error finding sits in the TU or a project header it includes
  predicted     fails, and an error finding sits in the failing file at or within --near lines of the
                first error (or of a place clang names for it: its #include chain and notes, e.g.
                "in instantiation ... requested here"), or names its cause (the missing header's
                #include, the undeclared name's use anywhere in the failing file or the TU)
  silent        fails with no such finding
  environment   fails because a ROCm library header the translation names is not installed
                (hipCUB, rocThrust, hipBLAS, hipFFT, ...): listed apart, predicted or silent as above
  input         fails for a cause the CUDA build has too, outside the translation: a header this machine
                lacks that the code includes as written and that is no CUDA header (shrUtils.h, omp.h,
                gdal), a macro or flag the build passes and this compile does not (the Makefile's
                `-Ddfloat=double`, separate compilation `-dc` for device code in another TU)
  timeout       hipcc ran out of time

Layouts: a HeCBench-style tree (NAME-cuda folders; TUs from the Makefile's `source =` list, include
dirs `.`, `../include` and the Makefile's existing relative `-I` dirs, the way
../shared/tools/hecbench_rate.py reads them), or any tree of .cu files (each .cu a TU, include dirs:
its folder, the root and every -I given here).

    python3 scripts/predict_failures.py ../shared/corpus/hecbench --reference ref.json -j 2 --json out.json
    python3 scripts/predict_failures.py path/to/cuda/project -I path/to/cuda/project/include

Exit status 0; the figures are the output (terminal summary, --json for everything per TU and rule).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # why: measure this checkout's code, not whatever is installed

from hipify_py.data.installed import is_missing, library_headers  # noqa: E402
from hipify_py.data.mappings import load_mappings  # noqa: E402
from hipify_py.verify import CompileJob, Compiler, CompilerError, compile_tu, find_hipcc, parse_errors  # noqa: E402

SOURCE_RE = re.compile(r"^\s*source\s*[:+]?=\s*((?:.*\\\n)*.*)$", re.M)
MAKE_INCLUDE_RE = re.compile(r"(?<!\S)-I\s*([^\s$()]+)")
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".c")
QUOTED_RE = re.compile(r"'([A-Za-z_][\w:]*)'")
MISSING_HEADER_RE = re.compile(r"'([^']+)' file not found")
UNDECLARED_RE = re.compile(
    r"use of undeclared identifier '|unknown type name '|no type named '|no member named '"
)
# folders of CUDA's own headers (cuda/pipeline, cub/, thrust/, cute/...): missing under hipcc is a port gap
CUDA_HEADER_DIRS = frozenset(
    {"cuda", "cub", "thrust", "cooperative_groups", "nv", "cute", "cutlass", "cuda_fp8"}
)


@dataclass(frozen=True)
class TU:
    program: str  # HeCBench NAME, or the TU's path for a generic tree
    cwd: str  # compile directory, relative to the work root
    src: str  # the TU, relative to cwd
    include_dirs: tuple[str, ...]  # as passed to -I (relative to cwd, or absolute)


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the work root
    line: int
    col: int
    rule: str
    message: str
    text: str  # the source text of the finding's span
    last: int = 0  # the last line the finding speaks for, where past `line`: an asm statement's end

    def covers(self, line: int, near: int) -> bool:
        return self.line - near <= line <= max(self.line, self.last) + near

    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.rule} {self.message}"


@dataclass(frozen=True)
class Outcome:
    """One TU's compile, reduced to what the classification needs."""

    ok: bool
    first_error: CompilerError | None = None
    deps: tuple[str, ...] = ()  # absolute paths of the files the compile read
    timed_out: bool = False
    stderr: str = ""

    def first_line(self) -> str:
        e = self.first_error
        if e is None:
            return next((ln for ln in self.stderr.splitlines() if "error" in ln), self.stderr.strip()[:200])
        where = f"{e.where.file}:{e.where.line}:{e.where.col}: " if e.where else ""
        return f"{where}{'fatal error' if e.fatal else 'error'}: {e.text}"


@dataclass
class Verdict:
    program: str
    tu: str  # relative to the work root
    status: str
    first_error: str = ""
    environment: str = ""  # the missing library header, for environment causes
    rules: list[str] = field(default_factory=list)  # rules of the findings that predicted it / false alarms
    findings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- discovering translation units


def make_sources(bench: Path) -> list[str]:
    mk = bench / "Makefile"
    names: list[str] = []
    if mk.exists():
        for m in SOURCE_RE.finditer(mk.read_text(errors="replace")):
            names += [w for w in m.group(1).replace("\\\n", " ").split() if not w.startswith("$")]
    names = [n for n in names if (bench / n).exists()]
    return names or sorted(p.name for p in bench.iterdir() if p.suffix in TU_SUFFIXES)


def make_include_dirs(bench: Path) -> list[str]:
    mk = bench / "Makefile"
    found = MAKE_INCLUDE_RE.findall(mk.read_text(errors="replace")) if mk.exists() else []
    dirs = [d for d in found if not d.startswith("/") and (bench / d).is_dir()]
    return list(dict.fromkeys([".", "../include", *dirs]))


def is_hecbench(root: Path) -> bool:
    return any(p.is_dir() and p.name.endswith("-cuda") for p in root.iterdir())


def hecbench_units(root: Path, only: set[str] | None) -> tuple[list[TU], list[str], list[str]]:
    """TUs of every NAME-cuda program, the folders to copy (programs, -I siblings, include/), and the
    program names (one without TUs counts as compiled, as hecbench_rate.py counts it)."""
    units: list[TU] = []
    names: list[str] = []
    folders = {"include"} if (root / "include").is_dir() else set()
    for bench in sorted(p for p in root.glob("*-cuda") if p.is_dir()):
        name = bench.name[: -len("-cuda")]
        if only is not None and name not in only:
            continue
        dirs = make_include_dirs(bench)
        names.append(name)
        folders.add(bench.name)
        folders |= {Path(d).name for d in dirs if d.startswith("../") and (root / Path(d).name).is_dir()}
        units += [TU(name, bench.name, src, tuple(dirs)) for src in make_sources(bench)]
    return units, sorted(folders), names


def generic_units(root: Path, extra_dirs: Sequence[Path]) -> list[TU]:
    units = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".cu"):
                rel = Path(folder, name).relative_to(root)
                cwd = Path(root.name, rel.parent)
                incs = [".", os.path.relpath(root, root / rel.parent) if rel.parent != Path() else "."]
                incs += [str(d.resolve()) for d in extra_dirs]
                units.append(TU(str(Path(root.name, rel)), str(cwd), name, tuple(dict.fromkeys(incs))))
    return units


# ---------------------------------------------------------------- translating


def translate_tree(
    work: Path, folders: Sequence[str], tool_args: Sequence[str], jobs: int, code: Path = REPO
) -> dict:
    report = work / ".hipify-py-report.json"
    cmd = [
        sys.executable,
        "-m",
        "hipify_py",
        "convert",
        "-q",
        "--in-place",
        "--no-build-files",
        "-j",
        str(jobs),
        "--report",
        str(report),
        *tool_args,
        *folders,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(code), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
    if not report.exists():
        raise SystemExit(f"translator failed (exit {r.returncode}):\n{r.stderr[-2000:]}")
    return json.loads(report.read_text())


def error_findings(report: dict, originals: Path) -> dict[str, list[Finding]]:
    """Error-level findings per file (relative to the work root), with the text of each span."""
    out: dict[str, list[Finding]] = defaultdict(list)
    for f in report["files"]:
        errs = [d for d in f["diagnostics"] if d["severity"] == "error"]
        if not errs:
            continue
        try:
            data = (originals / f["path"]).read_bytes()
        except OSError:
            data = b""
        for d in errs:
            text = data[d["offset"] : d["offset"] + d["length"]].decode("utf-8", "replace")
            last = _asm_statement_end(data, d["offset"], d["line"]) if ASM_RE.match(text) else 0
            out[os.path.normpath(f["path"])].append(
                Finding(os.path.normpath(f["path"]), d["line"], d["col"], d["rule"], d["message"], text, last)
            )
    return out


ASM_RE = re.compile(r"(?:__asm__|__asm|asm)\b")


def _asm_statement_end(data: bytes, offset: int, line: int) -> int:
    """The line of the `)` that closes the asm statement starting at `offset` (the finding names its first
    line; clang reports an operand or constraint error on the line where it is)."""
    depth, i = 0, data.find(b"(", offset)
    while 0 <= i < min(len(data), offset + 20000):
        c = data[i : i + 1]
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return line + data.count(b"\n", offset, i)
        elif c == b'"':
            close = data.find(b'"', i + 1)
            while close > 0 and data[close - 1 : close] == b"\\":
                close = data.find(b'"', close + 1)
            if close < 0:
                break
            i = close
        i += 1
    return 0


# ---------------------------------------------------------------- classifying


def line_map(original: str, translated: str) -> dict[int, int]:
    """Translated line -> original line (1-based): equal lines map exactly, edited ones to their block."""
    a, b = original.splitlines(), translated.splitlines()
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        for k in range(j2 - j1):
            out[j1 + k + 1] = (i1 + k + 1) if tag == "equal" else min(i1 + k, max(i2 - 1, i1)) + 1
    return out


class Classifier:
    def __init__(
        self,
        work: Path,
        originals: Path,
        findings: dict[str, list[Finding]],
        near: int,
        library_headers: frozenset[str],
        cuda_headers: frozenset[str] = frozenset(),
    ):
        self.work, self.originals, self.findings, self.near = work, originals, findings, near
        self.library_headers = library_headers
        self.cuda_headers = cuda_headers
        self._maps: dict[str, dict[int, int]] = {}

    def rel(self, tu: TU, path: str) -> str | None:
        """A path clang printed -> relative to the work root; None outside it (system headers)."""
        p = Path(path) if os.path.isabs(path) else self.work / tu.cwd / path
        try:
            return os.path.normpath(p.resolve().relative_to(self.work.resolve()))
        except ValueError:
            return None

    def original_line(self, rel: str, line: int) -> int:
        if rel not in self._maps:
            try:
                before = (self.originals / rel).read_text(errors="replace")
                after = (self.work / rel).read_text(errors="replace")
                self._maps[rel] = line_map(before, after)
            except OSError:
                self._maps[rel] = {}
        return self._maps[rel].get(line, line)

    def places(self, tu: TU, err: CompilerError) -> list[tuple[str, int]]:
        """Project-file locations of an error: itself, its notes, its include chain (original lines)."""
        out = []
        for loc in (err.where, *(n.where for n in err.notes), *reversed(err.included_from)):
            rel = self.rel(tu, loc.file) if loc is not None else None
            if rel is not None and loc is not None and loc.line > 0:
                out.append((rel, self.original_line(rel, loc.line)))
        return out

    def environment(self, err: CompilerError) -> str:
        m = MISSING_HEADER_RE.search(err.text)
        if m and is_missing(m[1], self.library_headers):
            return m[1]
        return ""

    def predicting(self, tu: TU, err: CompilerError) -> list[Finding]:
        places = self.places(tu, err)
        names = set(QUOTED_RE.findall(err.text)) | set(MISSING_HEADER_RE.findall(err.text))
        names = {n.split("::")[-1] for n in names if n}

        def naming(f: Finding) -> bool:
            return any(re.search(rf"(?<![\w/]){re.escape(n)}(?!\w)", f.text + " " + f.message) for n in names)

        hits = [f for rel, line in places for f in self.findings.get(rel, ()) if f.covers(line, self.near)]
        # an undeclared name is the whole cause: a finding nearby about something else did not predict it
        exact = UNDECLARED_RE.search(err.text) is not None
        if hits and (not exact or any(naming(f) for f in hits)):
            return [f for f in hits if naming(f)] if exact else hits
        # the cause elsewhere in the failing file or the TU: the name clang quotes, a missing header
        files = {rel for rel, _ in places[:1]} | {os.path.normpath(Path(tu.cwd, tu.src))}
        return [f for rel in files for f in self.findings.get(rel, ()) if naming(f)]

    def outside(self, tu: TU, err: CompilerError) -> str:
        """The cause of a failure that is not the translation's (status `input`), or ""."""
        m = MISSING_HEADER_RE.search(err.text)
        if m and not self.cuda_header(m[1]) and err.where is not None:
            rel = self.rel(tu, err.where.file)
            line = self.original_line(rel, err.where.line) if rel else 0
            try:
                original = (self.originals / rel).read_text(errors="replace").splitlines() if rel else []
            except OSError:
                original = []
            if 0 < line <= len(original) and m[1] in original[line - 1]:
                return f"{m[1]} is not on this machine (the CUDA build includes it as written)"
        build = self.build_text(tu)
        flags = set(re.findall(r"(?<![\w-])-D\s*([A-Za-z_]\w*)", build))
        for name in QUOTED_RE.findall(err.text):
            if name in flags:
                return f"{name} comes from the build's -D{name}"
            via = flags & self.macro_words(tu, name)
            if via:
                return f"{name} is a macro of {', '.join(sorted(via))}, which comes from the build's -D"
        if err.where is not None and self.user_error(tu, err.where.file, err.where.line, build):
            return "the code's own #error: the build's -D configuration is missing from this compile"
        if "undefined hidden symbol" in err.text and re.search(r"(?<![\w-])-(?:dc|rdc=true)\b", build):
            return "device code in another TU: the build compiles with -dc (hipcc: -fgpu-rdc)"
        return ""

    def user_error(self, tu: TU, path: str, line: int, build: str) -> bool:
        """An `#error` of the original code under a condition on a macro the build -D's."""
        rel = self.rel(tu, path)
        if rel is None:
            return False
        try:
            lines = (self.originals / rel).read_text(errors="replace").splitlines()
        except OSError:
            return False
        at = self.original_line(rel, line)
        if not 0 < at <= len(lines) or not re.match(r"\s*#\s*error\b", lines[at - 1]):
            return False
        names = {
            n
            for text in lines[max(0, at - 80) : at - 1]
            if re.match(r"\s*#\s*(?:if|ifdef|ifndef|elif)\b", text)
            for n in re.findall(r"[A-Za-z_]\w*", text)
        }
        return any(re.search(rf"(?<![\w-])-D\s*{re.escape(n)}\b", build) for n in names)

    def macro_words(self, tu: TU, name: str) -> set[str]:
        """Words in the bodies of the program's `#define name ...` (a macro built from a -D'd one)."""
        words: set[str] = set()
        pattern = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}\b(.*)$", re.M)
        for path in (self.originals / tu.cwd).rglob("*"):
            if path.suffix in (".h", ".hpp", ".cuh", ".cu", ".cpp", ".c", ".cc", ".inc") and path.is_file():
                for m in pattern.finditer(path.read_text(errors="replace")):
                    words.update(re.findall(r"[A-Za-z_]\w*", m.group(1)))
        return words

    def cuda_header(self, name: str) -> bool:
        return name in self.cuda_headers or name.split("/", 1)[0] in CUDA_HEADER_DIRS

    def build_text(self, tu: TU) -> str:
        out = []
        for name in ("Makefile", "makefile", "CMakeLists.txt"):
            try:
                out.append((self.originals / tu.cwd / name).read_text(errors="replace"))
            except OSError:
                continue
        return "\n".join(out)

    def classify(self, tu: TU, res: Outcome) -> Verdict:
        rel_tu = os.path.normpath(Path(tu.cwd, tu.src))
        if res.ok:
            files = [rel_tu, *filter(None, (self.rel(tu, d) for d in res.deps))]
            alarms = [f for rel in dict.fromkeys(files) for f in self.findings.get(rel, ())]
            if not alarms:
                return Verdict(tu.program, rel_tu, "clean")
            return Verdict(
                tu.program,
                rel_tu,
                "false_alarm",
                rules=sorted({f.rule for f in alarms}),
                findings=[f.where() for f in alarms],
            )
        if res.timed_out:
            return Verdict(tu.program, rel_tu, "timeout", "hipcc timeout")
        err = res.first_error
        if err is None:
            return Verdict(tu.program, rel_tu, "silent", res.first_line())
        hits = self.predicting(tu, err)
        env = self.environment(err)
        outside = "" if hits or env else self.outside(tu, err)
        if outside:
            return Verdict(
                tu.program, rel_tu, "input", res.first_line().replace(f"{self.work}/", ""), outside
            )
        status = (
            ("environment" if env else "predicted") if hits else ("environment_silent" if env else "silent")
        )
        return Verdict(
            tu.program,
            rel_tu,
            status,
            res.first_line().replace(f"{self.work}/", ""),
            env,
            sorted({f.rule for f in hits}),
            [f.where() for f in hits],
        )


def compile_unit(compiler: Compiler, work: Path, tu: TU, timeout: float) -> Outcome:
    """Compile as hecbench_rate.py does (`-c -o /dev/null`: the backend runs, so PTX in asm fails too)."""
    cwd = work / tu.cwd
    job = CompileJob(
        str(cwd / tu.src), cwd=str(cwd), args=tuple(f"-I{d}" for d in tu.include_dirs), codegen=True
    )
    out = compile_tu(compiler, job, timeout=timeout)
    errors = parse_errors(out.stderr)
    timed_out = out.returncode == -1 and "timed out" in out.stderr
    return Outcome(out.returncode == 0, errors[0] if errors else None, out.deps, timed_out, out.stderr)


def cuda_headers() -> frozenset[str]:
    """The CUDA headers the tables know: their absence under hipcc is the translation's business."""
    return frozenset(load_mappings().headers)


def rocm_library_headers() -> frozenset[str]:
    """Headers of ROCm libraries the translation writes (hipcub/hipcub.hpp, rocblas/rocblas.h, ...) and
    `ns/` for the ones ROCm keeps under the CUDA path (thrust/): missing means a package not installed."""
    return library_headers(load_mappings())


# ---------------------------------------------------------------- figures


STATUSES = (
    "clean",
    "false_alarm",
    "predicted",
    "silent",
    "environment",
    "environment_silent",
    "input",
    "timeout",
)


def figures(
    verdicts: Sequence[Verdict],
    findings: dict[str, list[Finding]],
    reachable: set[str] | None,
    names: Sequence[str] = (),
) -> dict:
    by_status = Counter(v.status for v in verdicts)
    programs: dict[str, list[Verdict]] = {n: [] for n in names}
    for v in verdicts:
        programs.setdefault(v.program, []).append(v)
    ok_programs = sorted(
        p for p, vs in programs.items() if all(v.status in ("clean", "false_alarm") for v in vs)
    )
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    for fs in findings.values():
        for f in fs:
            rules[f.rule]["error_findings"] += 1
    for v in verdicts:
        for r in v.rules:
            key = "false_alarm_tus" if v.status == "false_alarm" else "predicted_tus"
            rules[r][key] += 1
    out = {
        "tus": len(verdicts),
        "by_status": {s: by_status[s] for s in STATUSES},
        "programs": len(programs),
        "programs_compiling": len(ok_programs),
        "rules": {r: dict(sorted(c.items())) for r, c in sorted(rules.items())},
    }
    if reachable is not None:
        reach = [p for p in programs if p in reachable]
        out["reachable_programs"] = len(reach)
        out["reachable_compiling"] = sum(p in ok_programs for p in reach)
        out["reachable_by_status"] = dict(Counter(v.status for v in verdicts if v.program in reachable))
    return out


def print_summary(verdicts: Sequence[Verdict], figs: dict, out=sys.stdout) -> None:
    for v in verdicts:
        if v.status in ("silent", "environment_silent", "timeout"):
            print(
                f"SILENT {v.tu}: {v.first_error[:220]}" if v.status != "timeout" else f"TIMEOUT {v.tu}",
                file=out,
            )
    for v in verdicts:
        if v.status == "input":
            print(f"INPUT {v.tu}: {v.environment} ({v.first_error[:160]})", file=out)
    for v in verdicts:
        if v.status == "false_alarm":
            for f in v.findings:
                print(f"FALSE-ALARM {v.tu}: {f[:220]}", file=out)
    print(
        "per rule (error findings / failing TUs it predicted / compiling TUs it falsely alarmed):", file=out
    )
    for r, c in figs["rules"].items():
        print(
            f"  {r}: {c.get('error_findings', 0)} / {c.get('predicted_tus', 0)}"
            f" / {c.get('false_alarm_tus', 0)}",
            file=out,
        )
    s = figs["by_status"]
    failing = sum(s[k] for k in STATUSES if k not in ("clean", "false_alarm"))
    print(f"TUs: {figs['tus']}; compile {s['clean'] + s['false_alarm']}, fail {failing}", file=out)
    print(
        f"  failing: predicted {s['predicted']}, silent {s['silent']}, environment {s['environment']} "
        f"(+{s['environment_silent']} silent), input {s['input']}, timeout {s['timeout']}",
        file=out,
    )
    print(f"  compiling: clean {s['clean']}, false alarms {s['false_alarm']}", file=out)
    print(f"programs compiling: {figs['programs_compiling']}/{figs['programs']}", file=out)
    if "reachable_programs" in figs:
        n, k = figs["reachable_programs"], figs["reachable_compiling"]
        print(f"reachable (hand port compiles): {k}/{n} ({100 * k / max(n, 1):.1f}%)", file=out)
    print(f"silent: {s['silent'] + s['environment_silent']}  false alarms: {s['false_alarm']}", file=out)


# ---------------------------------------------------------------- driver


def copy_tree(src_root: Path, folders: Iterable[str], dest: Path) -> None:
    """Copy without permissions: a read-only corpus must still be convertible in place."""
    for d in folders:
        shutil.copytree(src_root / d, dest / d, symlinks=True, copy_function=shutil.copyfile)
    for folder, _, _ in os.walk(dest):
        os.chmod(folder, 0o755)


def run(args: argparse.Namespace) -> dict:
    root: Path = args.root.resolve()
    only = {ln.strip() for ln in args.only.read_text().splitlines() if ln.strip()} if args.only else None
    if is_hecbench(root):
        units, folders, names = hecbench_units(root, only)
        src_root = root
    else:
        units, folders, src_root = generic_units(root, args.I), [root.name], root.parent
        names = sorted({u.program for u in units})
    reachable = None
    if args.reference:
        reachable = {r["name"] for r in json.loads(args.reference.read_text()) if r["ok"]}
    with tempfile.TemporaryDirectory(prefix="hipify-py-predict-") as tmp:
        work = (args.keep or Path(tmp) / "work").resolve()
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        copy_tree(src_root, folders, work)
        t0 = time.monotonic()
        tool_args = [*args.tool_arg, *(["--hip-version", args.hip_version] if args.hip_version else [])]
        report = translate_tree(work, folders, tool_args, args.j, args.code.resolve())
        t1 = time.monotonic()
        findings = error_findings(report, src_root)
        clf = Classifier(work, src_root, findings, args.near, rocm_library_headers(), cuda_headers())

        compiler = find_hipcc()

        def one(tu: TU) -> Verdict:
            return clf.classify(tu, compile_unit(compiler, work, tu, args.timeout))

        with cf.ThreadPoolExecutor(args.j) as pool:
            verdicts = list(pool.map(one, units))
        t2 = time.monotonic()
    figs = figures(verdicts, findings, reachable, names)
    figs["seconds"] = {"translate": round(t1 - t0, 1), "compile": round(t2 - t1, 1)}
    return {
        "root": str(root),
        "tool_args": tool_args,
        "near": args.near,
        "figures": figs,
        "verdicts": [asdict(v) for v in verdicts],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "root", type=Path, help="HeCBench-style tree (NAME-cuda folders) or any tree of .cu files"
    )
    ap.add_argument("--only", type=Path, help="file with one HeCBench program NAME a line")
    ap.add_argument("--reference", type=Path, help="hecbench_rate.py reference --json output (reachable set)")
    ap.add_argument("-I", type=Path, action="append", default=[], help="extra include dir (generic trees)")
    ap.add_argument(
        "-j", type=int, default=os.cpu_count() or 2, help="parallel hipcc runs and translator jobs"
    )
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per hipcc run")
    ap.add_argument("--near", type=int, default=3, help="lines between a finding and the error it predicts")
    ap.add_argument("--hip-version", help="pass --hip-version to the translator")
    ap.add_argument("--tool-arg", action="append", default=[], help="extra argument for hipify-py convert")
    ap.add_argument("--json", type=Path, help="write every verdict and figure here")
    ap.add_argument(
        "--code", type=Path, default=REPO, help="hipify-py checkout that translates (default: this one)"
    )
    ap.add_argument("--keep", type=Path, help="translate and compile in this folder and keep it")
    args = ap.parse_args(argv)
    result = run(args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    verdicts = [Verdict(**v) for v in result["verdicts"]]
    print_summary(verdicts, result["figures"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
