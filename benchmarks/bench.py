#!/usr/bin/env python3
"""Benchmark hipify-py on three corpora, side by side with torch's hipify on the same files.

    python3 benchmarks/bench.py                      # synthetic, real and small-file corpora, best of 3
    python3 benchmarks/bench.py --corpora real,small # some of them
    python3 benchmarks/bench.py --json               # machine-readable figures

Corpora: `synthetic` (examples/ and tests/fixtures/ inputs replicated with renamed user symbols),
`real` (the CUDA programs of HeCBench, ../shared/corpus/hecbench/*-cuda; skipped when absent) and
`small` (hundreds of ~50-line files cut from the real programs at top-level boundaries).
Every figure is a whole process (interpreter start-up included): wall-clock seconds and CPU seconds
(user+sys of the process and its workers), each the best of --repeat runs.

    python3 benchmarks/bench.py --corpora small --paired 20   # + 20 interleaved rounds against torch

`--paired N` adds N rounds in which our `-j2` run on an empty cache directory, our `-j2` run with the
tables built and torch's whole process take turns on the same files; each round gives torch's time over
ours, and the summary is their median, quartiles and how many reach 2x. Why: on a machine whose speed
drifts (a shared VM), figures taken minutes apart compare the drift as much as the tools.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HECBENCH = ROOT.parent / "shared" / "corpus" / "hecbench"
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".h")
EXAMPLE_VARIANTS = 3  # examples are the realistic files: weight them up against the tiny fixtures
COPIES_PER_SCALE = 10

# Names a user declares: kernels/device functions, structs/classes, macros, namespaces.
_USER_DECL = re.compile(
    rb"(?:__global__|__device__|__host__)[^;{(=]*?\b([A-Za-z_]\w*)\s*(?:<[^;{(]*>)?\s*\("
    rb"|\b(?:struct|class|namespace)\s+([A-Za-z_]\w*)"
    rb"|#\s*define\s+([A-Za-z_]\w*)"
)
_RESERVED_PREFIXES = (b"cuda", b"cu", b"CU", b"__", b"hip", b"HIP", b"nv", b"std", b"main")


# Suffixes of the real corpus: what both tools convert (torch is given the same list).
REAL_SUFFIXES = (".cu", ".cuh", ".cpp", ".c", ".h", ".hpp")
SMALL_FILES = 400
SMALL_LINES = 50


@dataclass(frozen=True)
class Corpus:
    root: Path
    files: int
    lines: int
    bytes: int
    name: str = "synthetic"
    note: str = ""


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float  # user+sys of the process and every child it waited for (pool workers)


@dataclass(frozen=True)
class Figure:
    name: str
    seconds: float
    files: int
    lines: int
    bytes: int
    cpu: float = 0.0
    corpus: str = "synthetic"

    @property
    def files_per_s(self) -> float:
        return self.files / self.seconds

    @property
    def lines_per_s(self) -> float:
        return self.lines / self.seconds

    @property
    def mb_per_s(self) -> float:
        return self.bytes / 1e6 / self.seconds


def corpus_inputs() -> tuple[list[Path], list[Path]]:
    """(example sources, fixture inputs) in a stable order; build files and non-UTF-8 cases excluded."""
    examples = sorted(p for p in (ROOT / "examples").rglob("*") if p.suffix in SOURCE_SUFFIXES)
    fixtures = sorted(
        p
        for p in (ROOT / "tests" / "fixtures").rglob("*")
        if p.suffix in SOURCE_SUFFIXES and "buildfiles" not in p.parts and "encoding" not in p.parts
    )
    # why: one input pinned to two targets (hipblas/hip64 and hip72) is one file of code, not two
    distinct: dict[bytes, Path] = {}
    for path in fixtures:
        distinct.setdefault(path.read_bytes(), path)
    return examples, sorted(distinct.values())


def user_symbols(source: bytes) -> list[bytes]:
    names = {n for m in _USER_DECL.finditer(source) for n in m.groups() if n}
    return sorted(n for n in names if not n.startswith(_RESERVED_PREFIXES))


def rename_symbols(source: bytes, suffix: bytes) -> bytes:
    names = user_symbols(source)
    if not names:
        return source + b"\n// copy " + suffix + b"\n"
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(n) for n in names) + rb")\b")
    return pattern.sub(lambda m: m.group(1) + b"_" + suffix, source)


def build_corpus(dest: Path, scale: float = 1.0) -> Corpus:
    """Write the corpus under dest (deterministic for a given checkout and scale)."""
    examples, fixtures = corpus_inputs()
    copies = max(1, round(COPIES_PER_SCALE * scale))
    files = lines = size = 0
    for copy in range(copies):
        plan = [(p, ROOT / "examples", f"v{v}") for p in examples for v in range(EXAMPLE_VARIANTS)]
        plan += [(p, ROOT / "tests" / "fixtures", "fx") for p in fixtures]
        for path, base, variant in plan:
            suffix = f"c{copy}{variant}".encode()
            text = rename_symbols(path.read_bytes(), suffix)
            target = dest / f"part{copy % 4}" / f"copy{copy:03d}" / variant / path.relative_to(base)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text)
            files += 1
            lines += text.count(b"\n")
            size += len(text)
    return Corpus(dest, files, lines, size, "synthetic", "examples/ + tests/fixtures/ inputs, renamed copies")


def _count(root: Path) -> tuple[int, int, int]:
    texts = [p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()]
    return len(texts), sum(t.count(b"\n") for t in texts), sum(len(t) for t in texts)


def real_sources(hecbench: Path) -> list[tuple[Path, Path]]:
    """(file, path relative to hecbench) of every *-cuda source both tools can read, sorted.

    Non-UTF-8 files are left out: torch's hipify opens files as strict UTF-8 and crashes on them."""
    found = []
    for program in sorted(hecbench.glob("*-cuda")):
        for path in sorted(program.rglob("*")):
            if path.suffix not in REAL_SUFFIXES or not path.is_file():
                continue
            try:
                path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue
            found.append((path, path.relative_to(hecbench)))
    return found


def build_real_corpus(dest: Path, hecbench: Path = HECBENCH) -> Corpus | None:
    """A copy of the HeCBench CUDA programs' sources (None when the corpus is absent)."""
    sources = real_sources(hecbench) if hecbench.is_dir() else []
    if not sources:
        return None
    for path, rel in sources:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return Corpus(dest, *_count(dest), "real", f"HeCBench *-cuda sources ({hecbench}), UTF-8 only")


_BLOCK_END = re.compile(rb"[}]\s*;?\s*$")


def split_small(text: bytes, target: int = SMALL_LINES) -> list[bytes]:
    """Cut a source into ~`target`-line files at top-level boundaries, each with the file's #includes.

    A cut falls after a `}`/`};` in column 0 (end of a function, struct, namespace) or a blank line,
    once the piece is long enough; no piece exceeds 1.6x the target."""
    lines = text.splitlines(keepends=True)
    head = [i for i, line in enumerate(lines[:80]) if line.lstrip().startswith(b"#include")]
    includes = [lines[i] for i in head][:8]
    body = lines[head[-1] + 1 :] if head else lines
    room = max(10, target - len(includes))
    pieces: list[bytes] = []
    piece: list[bytes] = []
    for line in body:
        piece.append(line)
        n = len(piece)
        end_of_block = line[:1] == b"}" and _BLOCK_END.match(line) is not None
        if (n >= room * 0.7 and end_of_block) or (n >= room and not line.strip()) or n >= room * 1.6:
            pieces.append(b"".join(includes + piece))
            piece = []
    if len(piece) >= room // 4:
        pieces.append(b"".join(includes + piece))
    return pieces


def build_small_corpus(
    dest: Path, sources: list[tuple[Path, Path]], count: int = SMALL_FILES, note: str = ""
) -> Corpus:
    """`count` ~50-line files: sources chosen evenly, one piece of each (deterministic)."""
    cut = [
        (rel, pieces)
        for path, rel in sources
        if (pieces := [p for p in split_small(path.read_bytes()) if p.strip()])
    ]
    step = max(1.0, len(cut) / count)
    chosen = []
    for k in range(min(count, len(cut))):
        rel, pieces = cut[int(k * step)]
        i = k % len(pieces)  # why not always the first: that would be mostly #includes and licence headers
        chosen.append((rel, i, pieces[i]))
    for k, (rel, i, piece) in enumerate(chosen):
        name = f"{k:03d}_{rel.parts[0]}_{rel.stem}_{i}{rel.suffix}"
        target = dest / f"d{k // 50:02d}" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(piece)
    return Corpus(dest, *_count(dest), "small", note)


def _children_cpu() -> float:
    """CPU seconds of every process the timed commands made, those that outlived the command too."""
    _reap_orphans()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _become_subreaper() -> None:
    """Be where the timed command's orphans go (Linux): hipify-py's translator process can end a few
    ms after the command returns (it has no file left to write), and its CPU and its workers' must
    still count. Elsewhere nothing happens, and such CPU is not counted."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap_orphans() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def timed(
    cmd: list[str], env: dict[str, str] | None, repeat: int, before: Callable[[], None] | None = None
) -> Run:
    """Best wall-clock and best CPU seconds of `repeat` runs; `before()` resets state outside the timing."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        cpu0, start = _children_cpu(), time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, check=False)
        elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu0
        if proc.returncode not in (0, 1):
            sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()}")
        best_wall, best_cpu = min(best_wall, elapsed), min(best_cpu, cpu)
    return Run(best_wall, best_cpu)


# The hipify-py timed: this checkout's code by default; `--hipify-py PATH` times an installed one (a
# venv with the built wheel: its tables come with the wheel, a checkout builds them on a cold cache).
PROGRAM = [sys.executable, "-m", "hipify_py"]


def set_aside(path: Path) -> None:
    """Move `path` out of the way (into `.set-aside/` beside it) instead of deleting it; the work
    directory goes, with everything set aside, when the benchmark ends.

    why: ext4 without a journal (this VM's root file system) skips, for each new inode, every inode of
    the block group freed in the last 60 s (360 s while its inode table block is dirty), one buffer
    lookup each: a run that creates 400 files right after the previous round deleted 400 spent ~12% of
    its CPU there (perf). Deleting between rounds timed the file system's memory
    of the benchmark's own deletions, for both tools."""
    if not path.exists():
        return
    trash = path.parent / ".set-aside"
    trash.mkdir(exist_ok=True)
    path.rename(Path(tempfile.mkdtemp(dir=trash)) / path.name)


def hipify_cmd(*args: str) -> list[str]:
    return [*PROGRAM, "convert", "-q", *args]


def _figure(name: str, run: Run, corpus: Corpus) -> Figure:
    return Figure(name, run.wall, corpus.files, corpus.lines, corpus.bytes, run.cpu, corpus.name)


def measure_ours(corpus: Corpus, work: Path, repeat: int) -> list[Figure]:
    env = dict(os.environ)
    out = work / "out"
    cache = work / "cache"

    def fresh() -> None:
        set_aside(out)
        set_aside(cache)

    def tables_kept() -> None:  # every file new to the run; the tables an earlier run built are kept
        set_aside(out)
        set_aside(cache / "results")

    env["HIPIFY_PY_CACHE_DIR"] = str(cache)
    figures = []
    for jobs in ("2", "1"):
        cmd = hipify_cmd(str(corpus.root), "-o", str(out), "-j", jobs)
        figures.append(_figure(f"cold -j{jobs}", timed(cmd, env, repeat, fresh), corpus))
    cmd = hipify_cmd(str(corpus.root), "-o", str(out), "-j", "2")
    fresh()
    timed(cmd, env, 1)  # build the tables
    figures.append(_figure("tables built -j2", timed(cmd, env, repeat, tables_kept), corpus))
    timed(cmd, env, 1)  # populate the cache and the output tree
    figures.append(_figure("warm (all cached) -j2", timed(cmd, env, repeat), corpus))
    check = hipify_cmd(str(corpus.root), "--check", "-j", "2")
    timed(check, env, 1)
    figures.append(_figure("warm --check", timed(check, env, repeat), corpus))
    figures.append(_figure("warm after --in-place", after_in_place(corpus, work, env, repeat), corpus))
    return figures


def after_in_place(corpus: Corpus, work: Path, env: dict[str, str], repeat: int) -> Run:
    """The run right after `convert --in-place`: the files it just wrote must count as converted."""
    tree, cache = work / "in-place", Path(env["HIPIFY_PY_CACHE_DIR"])
    cmd = hipify_cmd(str(tree), "--in-place", "-j", "2")

    def convert_once() -> None:
        set_aside(tree)
        set_aside(cache)
        shutil.copytree(corpus.root, tree)
        timed(cmd, env, 1)

    run = timed(cmd, env, repeat, convert_once)
    set_aside(tree)
    return run


def single_file(corpus: Corpus, work: Path, repeat: int, mode: str, empty_cache: bool = False) -> Figure:
    """The pre-commit case: one staged file that was never converted before (mapping cache warm).

    `--in-place` is what the `hipify-py` hook runs, `--check` the `hipify-py-check` hook.
    `empty_cache`: each run starts with an empty cache directory (a fresh install or CI container)."""
    cache = work / "cache-staged"
    env = {**os.environ, "HIPIFY_PY_CACHE_DIR": str(cache)}
    source = max(corpus.root.rglob("*.cu"), key=lambda p: p.stat().st_size)
    staged = work / "staged"
    counter = iter(range(1 << 30))

    def stage() -> None:
        staged.mkdir(exist_ok=True)
        # New content every run, and unlike any earlier call's (the --check figure must not hit what
        # the --in-place figure cached): the result cache must miss, as for a freshly edited file.
        text = source.read_bytes() + f"\n// edit {mode} {next(counter)} {time.time_ns()}\n".encode()
        (staged / source.name).write_bytes(text)

    def stage_empty() -> None:
        set_aside(cache)
        stage()

    target = staged / source.name
    stage()
    timed(hipify_cmd(str(target), mode), env, 1)  # warm the mapping cache only
    run = timed(hipify_cmd(str(target), mode), env, repeat, stage_empty if empty_cache else stage)
    text = target.read_bytes()
    name = f"one staged file {mode}" + (", empty cache dir" if empty_cache else "")
    return Figure(name, run.wall, 1, text.count(b"\n"), len(text), run.cpu, corpus.name)


# torch's hipify as the standalone package ROCm's hipify_torch ships (`from hipify import hipify_python`):
# torch/utils/hipify/ imports nothing of torch, and `import torch` (~1 s) has nothing to do with
# translating. Loaded by path, so the figure is the translator's own.
_TORCH_SCRIPT = """
import contextlib, importlib.util, io, json, sys, time
t0 = time.perf_counter()
spec = importlib.util.spec_from_file_location(
    "hipify", sys.argv[4] + "/__init__.py", submodule_search_locations=[sys.argv[4]]
)
package = importlib.util.module_from_spec(spec)
sys.modules["hipify"] = package
spec.loader.exec_module(package)
from hipify import hipify_python
t1 = time.perf_counter()
suffixes = tuple(sys.argv[3].split(","))
headers = tuple(s for s in suffixes if s.startswith((".h", ".cuh")))
with contextlib.redirect_stdout(io.StringIO()):
    result = hipify_python.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2],
                                  includes=["*"], extensions=suffixes,
                                  header_extensions=headers,
                                  show_detailed=False, show_progress=False, is_pytorch_extension=True)
t2 = time.perf_counter()
statuses = {}
for r in result.values():
    statuses[r.status] = statuses.get(r.status, 0) + 1
print(json.dumps({"processed": len(result), "import": t1 - t0, "call": t2 - t1, "statuses": statuses}))
"""


def torch_hipify_dir() -> Path | None:
    """torch/utils/hipify of the installed torch, found without importing torch (2 s for a yes/no)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "utils" / "hipify"
    return found if (found / "hipify_python.py").is_file() else None


def torch_run(corpus: Corpus, work: Path, hipify_dir: Path) -> tuple[float, float, dict] | str:
    """One whole torch hipify process over a private copy of the corpus: (wall s, CPU s, what it
    reported), or why it failed."""
    suffixes = ",".join(sorted({p.suffix for p in corpus.root.rglob("*") if p.is_file()}))
    # torch hipify writes next to the inputs when out == in; give it a private copy each run.
    src, out = work / "torch-src", work / "torch-out"
    set_aside(src)
    set_aside(out)
    shutil.copytree(corpus.root, src)
    cpu0, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _TORCH_SCRIPT, str(src), str(out), suffixes, str(hipify_dir)],
        capture_output=True,
        text=True,
        check=False,
    )
    total, cpu = time.perf_counter() - start, _children_cpu() - cpu0
    if proc.returncode != 0:
        return f"torch hipify failed: {proc.stderr.strip().splitlines()[-1:]}"
    return total, cpu, json.loads(proc.stdout.strip().splitlines()[-1])


def measure_torch(corpus: Corpus, work: Path, repeat: int) -> tuple[list[Figure], str]:
    hipify_dir = torch_hipify_dir()
    if hipify_dir is None:
        return [], "torch is not installed (pip install torch==2.13.0 for the comparison)"
    best_total = best_call = best_cpu = float("inf")
    info: dict = {}
    for _ in range(repeat):
        done = torch_run(corpus, work, hipify_dir)
        if isinstance(done, str):
            return [], done
        total, cpu, info = done
        best_total, best_call, best_cpu = (
            min(best_total, total),
            min(best_call, info["call"]),
            min(best_cpu, cpu),
        )
    set_aside(work / "torch-src")
    set_aside(work / "torch-out")
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(info["statuses"].items()))
    note = (
        f"{corpus.name}: torch processed {info['processed']} of {corpus.files} files ({statuses}); "
        f"its hipify package imported in {info['import']:.3f} s (standalone, without torch)"
    )
    if info["processed"] != corpus.files:
        note += " -- NOT the whole corpus: the comparison is not like for like"
    return [
        _figure("torch hipify (process)", Run(best_total, best_cpu), corpus),
        _figure("torch hipify (call only)", Run(best_call, 0.0), corpus),
    ], note


def paired_rounds(corpus: Corpus, work: Path, rounds: int) -> list[str]:
    """`rounds` interleaved rounds (ours on an empty cache directory, ours with the tables built,
    torch's whole process), summarised as torch's time over ours per round."""
    hipify_dir = torch_hipify_dir()
    if hipify_dir is None or rounds <= 0:
        return []
    out, cache = work / "paired-out", work / "paired-cache"
    env = dict(os.environ, HIPIFY_PY_CACHE_DIR=str(cache))
    cmd = hipify_cmd(str(corpus.root), "-o", str(out), "-j", "2")
    times: dict[str, list[float]] = {"empty cache dir": [], "tables built": [], "torch": []}
    for _ in range(rounds):
        for name, keep_tables in (("empty cache dir", False), ("tables built", True)):
            set_aside(out)
            set_aside(cache / "results" if keep_tables else cache)
            times[name].append(timed(cmd, env, 1).wall)
        done = torch_run(corpus, work, hipify_dir)
        if isinstance(done, str):
            return [f"{corpus.name}: paired rounds stopped: {done}"]
        times["torch"].append(done[0])
    for leftover in (out, work / "torch-src", work / "torch-out"):
        set_aside(leftover)
    return [
        f"{corpus.name}: paired -j2 {name} vs torch (whole process), {rounds} rounds: "
        + paired_summary(times[name], times["torch"])
        for name in ("empty cache dir", "tables built")
    ]


def paired_summary(ours: list[float], torch: list[float]) -> str:
    """Torch's time over ours, round by round: the median, the quartiles and the rounds at 2x."""
    ratios = sorted(t / o for o, t in zip(ours, torch, strict=True))
    n = len(ratios)
    at_2x = sum(r >= 2 for r in ratios)
    return (
        f"median {statistics.median(ratios):.2f}x (quartiles {ratios[n // 4]:.2f}-{ratios[(3 * n) // 4]:.2f}x"
        f", {at_2x} of {n} rounds >= 2x; ours median {statistics.median(ours):.3f} s, "
        f"torch {statistics.median(torch):.3f} s)"
    )


def render(corpora: list[Corpus], figures: list[Figure], notes: list[str]) -> str:
    rows = [f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; best of each figure over the runs"]
    for corpus in corpora:
        rows += [
            "",
            f"{corpus.name} corpus: {corpus.files} files, {corpus.lines} lines, {corpus.bytes / 1e6:.1f} MB"
            + (f" ({corpus.note})" if corpus.note else ""),
            f"  {'run':42} {'wall s':>8} {'CPU s':>7} {'files/s':>9} {'lines/s':>10}",
        ]
        for f in figures:
            if f.corpus == corpus.name:
                cpu = f"{f.cpu:7.2f}" if f.cpu else f"{'':7}"
                rows.append(
                    f"  {f.name:42} {f.seconds:8.3f} {cpu} {f.files_per_s:9.0f} {f.lines_per_s:10.0f}"
                )
    rows += ["", *targets(corpora, figures), *notes]
    return "\n".join(rows)


def targets(corpora: list[Corpus], figures: list[Figure]) -> list[str]:
    """The issue's targets (2-core machine, whole process), each with the measured figure."""
    rows = []
    for corpus in corpora:
        by_name = {f.name: f for f in figures if f.corpus == corpus.name}
        ours1, torch = by_name.get("cold -j1"), by_name.get("torch hipify (process)")
        for name in ("cold -j2", "tables built -j2"):
            ours = by_name.get(name)
            if ours and torch:
                ratio = ours.lines_per_s / torch.lines_per_s
                rows.append(
                    f"{corpus.name}: {name} vs torch (whole process): {ratio:.2f}x lines/s (target >= 2x)"
                )
        if ours1 and torch:
            rows.append(
                f"{corpus.name}: -j1 CPU {ours1.cpu:.2f} s vs torch {torch.cpu:.2f} s "
                f"({ours1.cpu / torch.cpu:.2f}x; target <= 1x on the real corpus)"
            )
        for name in ("warm (all cached) -j2", "warm --check", "warm after --in-place"):
            warm = by_name.get(name)
            if warm:
                rows.append(
                    f"{corpus.name}: {name} over {warm.files} unchanged files: {warm.seconds:.3f} s"
                    f" ({warm.seconds * 1000 / warm.files:.3f} s per 1,000 files; target < 0.3 s per 1,000)"
                )
    for f in figures:
        if f.name.startswith("one staged file"):
            rows.append(f"{f.name}: {f.seconds:.3f} s (target < 0.1 s)")
    return rows


def build_corpora(names: list[str], root: Path, args: argparse.Namespace) -> tuple[list[Corpus], list[str]]:
    corpora: list[Corpus] = []
    notes: list[str] = []
    real_files = real_sources(args.hecbench) if args.hecbench.is_dir() else []
    for name in names:
        dest = root / name
        shutil.rmtree(dest, ignore_errors=True)
        if name == "synthetic":
            corpora.append(build_corpus(dest, args.scale))
        elif name == "real":
            real = build_real_corpus(dest, args.hecbench)
            if real is None:
                notes.append(f"real corpus skipped: no *-cuda programs under {args.hecbench}")
            else:
                corpora.append(real)
        elif name == "small":
            if real_files:
                note = f"~{SMALL_LINES}-line files cut from the HeCBench *-cuda sources"
                corpora.append(build_small_corpus(dest, real_files, args.small_files, note))
            else:
                examples, fixtures = corpus_inputs()
                sources = [(p, p.relative_to(ROOT)) for p in examples + fixtures]
                note = f"~{SMALL_LINES}-line files cut from examples/ and tests/fixtures/ (HeCBench absent)"
                corpora.append(build_small_corpus(dest, sources, args.small_files, note))
        else:
            sys.exit(f"unknown corpus {name!r} (synthetic, real, small)")
    return corpora, notes


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument(
        "--corpora", default="synthetic,real,small", help="comma-separated corpora to measure"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic corpus size (1 = ~1,300 files)")
    parser.add_argument(
        "--hecbench", type=Path, default=HECBENCH, help="HeCBench corpus for `real` and `small`"
    )
    parser.add_argument("--small-files", type=int, default=SMALL_FILES, help="files of the small-file corpus")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best is kept)")
    parser.add_argument("--corpus", type=Path, help="build/keep the corpora under this directory")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch comparison")
    parser.add_argument(
        "--hipify-py", type=Path, help="the hipify-py executable to time (e.g. a venv's with the built wheel)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--paired", type=int, default=0, metavar="N", help="N interleaved rounds against torch per corpus"
    )
    args = parser.parse_args()
    _become_subreaper()
    if args.hipify_py is not None:
        PROGRAM[:] = [str(args.hipify_py.resolve())]
    with tempfile.TemporaryDirectory(prefix="hipify-bench-") as tmp:
        work = Path(tmp)
        corpora, notes = build_corpora(args.corpora.split(","), args.corpus or work / "corpora", args)
        figures: list[Figure] = []
        for corpus in corpora:
            figures += measure_ours(corpus, work, args.repeat)
            if not args.no_torch:
                torch_figures, note = measure_torch(corpus, work, args.repeat)
                figures += torch_figures
                notes.append(note)
                notes += paired_rounds(corpus, work, args.paired)
        staged_from = next((c for c in corpora if c.name == "synthetic"), corpora[0] if corpora else None)
        if staged_from is not None:
            figures += [
                single_file(staged_from, work, args.repeat, mode) for mode in ("--in-place", "--check")
            ]
            figures.append(single_file(staged_from, work, args.repeat, "--check", empty_cache=True))
    if args.json:
        payload = {
            "corpora": [{**asdict(c), "root": str(c.root)} for c in corpora],
            "cpus": os.cpu_count(),
            "figures": [
                {**asdict(f), "files_per_s": f.files_per_s, "lines_per_s": f.lines_per_s} for f in figures
            ],
            "targets": targets(corpora, figures),
            "notes": notes,
        }
        print(json.dumps(payload, indent=2))
    else:
        print(render(corpora, figures, notes))


if __name__ == "__main__":
    main()
