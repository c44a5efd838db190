#!/usr/bin/env python3
"""Benchmark hipify-py on a synthetic corpus, and torch's hipify on the same corpus when installed.

    python3 benchmarks/bench.py                # ~1,200 files / 50k lines, best of 3
    python3 benchmarks/bench.py --scale 10     # 10x the corpus
    python3 benchmarks/bench.py --json         # machine-readable figures

Every figure is wall-clock time of a whole process (interpreter start-up included), best of
--repeat runs. The corpus is the examples/ and tests/fixtures/ inputs replicated with renamed user
symbols (so no two files are byte-identical), laid out in nested directories.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


@dataclass(frozen=True)
class Corpus:
    root: Path
    files: int
    lines: int
    bytes: int


@dataclass(frozen=True)
class Figure:
    name: str
    seconds: float
    files: int
    lines: int
    bytes: int

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
    return examples, fixtures


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
    return Corpus(dest, files, lines, size)


def timed(
    cmd: list[str], env: dict[str, str], repeat: int, before: Callable[[], None] | None = None
) -> float:
    """Best wall-clock seconds of `repeat` runs; `before()` resets state outside the timing."""
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            sys.exit(f"benchmark command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()}")
        best = min(best, elapsed)
    return best


def hipify_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "hipify_py", "convert", "-q", *args]


def measure_ours(corpus: Corpus, work: Path, repeat: int) -> list[Figure]:
    env = dict(os.environ)
    out = work / "out"
    cache = work / "cache"

    def fresh() -> None:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)

    env["HIPIFY_PY_CACHE_DIR"] = str(cache)
    figures = []
    n = (corpus.files, corpus.lines, corpus.bytes)
    for jobs in ("2", "1"):
        cmd = hipify_cmd(str(corpus.root), "-o", str(out), "-j", jobs)
        figures.append(Figure(f"cold -j{jobs}", timed(cmd, env, repeat, fresh), *n))
    cmd = hipify_cmd(str(corpus.root), "-o", str(out), "-j", "2")
    fresh()
    timed(cmd, env, 1)  # populate the cache and the output tree
    figures.append(Figure("warm (all cached) -j2", timed(cmd, env, repeat), *n))
    check = hipify_cmd(str(corpus.root), "--check", "-j", "2")
    timed(check, env, 1)
    figures.append(Figure("warm --check", timed(check, env, repeat), *n))
    figures += [single_file(corpus, work, env, repeat, mode) for mode in ("--in-place", "--check")]
    return figures


def single_file(corpus: Corpus, work: Path, env: dict[str, str], repeat: int, mode: str) -> Figure:
    """The pre-commit case: one staged file that was never converted before (mapping cache warm).

    `--in-place` is what the `hipify-py` hook runs, `--check` the `hipify-py-check` hook."""
    source = max(corpus.root.rglob("*.cu"), key=lambda p: p.stat().st_size)
    staged = work / "staged"
    counter = iter(range(1 << 30))

    def stage() -> None:
        staged.mkdir(exist_ok=True)
        # New content every run: the result cache must miss, as for a freshly edited file.
        text = source.read_bytes() + f"\n// edit {next(counter)}\n".encode()
        (staged / source.name).write_bytes(text)

    target = staged / source.name
    stage()
    timed(hipify_cmd(str(target), mode), env, 1)  # warm the mapping cache only
    seconds = timed(hipify_cmd(str(target), mode), env, repeat, stage)
    text = target.read_bytes()
    return Figure(f"one staged file {mode}", seconds, 1, text.count(b"\n"), len(text))


_TORCH_SCRIPT = """
import contextlib, io, json, sys, time
t0 = time.perf_counter()
from torch.utils.hipify import hipify_python
t1 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    result = hipify_python.hipify(project_directory=sys.argv[1], output_directory=sys.argv[2],
                                  includes=["*"], extensions=(".cu", ".cuh", ".cpp", ".h"),
                                  header_extensions=(".cuh", ".h"), show_detailed=False,
                                  show_progress=False, is_pytorch_extension=True)
t2 = time.perf_counter()
statuses = {}
for r in result.values():
    statuses[r.status] = statuses.get(r.status, 0) + 1
print(json.dumps({"processed": len(result), "import": t1 - t0, "call": t2 - t1, "statuses": statuses}))
"""


def measure_torch(corpus: Corpus, work: Path, repeat: int) -> tuple[list[Figure], str]:
    import importlib.util

    if importlib.util.find_spec("torch") is None:  # why not `import torch`: 2 s for a yes/no
        return [], "torch is not installed (pip install torch==2.13.0 for the comparison)"
    n = (corpus.files, corpus.lines, corpus.bytes)
    best_total = best_call = float("inf")
    info: dict = {}
    for _ in range(repeat):
        # torch hipify writes next to the inputs when out == in; give it a private copy each run.
        src, out = work / "torch-src", work / "torch-out"
        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(corpus.root, src)
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _TORCH_SCRIPT, str(src), str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        total = time.perf_counter() - start
        if proc.returncode != 0:
            return [], f"torch hipify failed: {proc.stderr.strip().splitlines()[-1:]}"
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        best_total, best_call = min(best_total, total), min(best_call, info["call"])
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(info["statuses"].items()))
    note = f"torch processed {info['processed']} of {corpus.files} files ({statuses})"
    if info["processed"] != corpus.files:
        note += " -- NOT the whole corpus: the comparison is not like for like"
    return [
        Figure("torch hipify (process)", best_total, *n),
        Figure("torch hipify (call only)", best_call, *n),
    ], note


def render(corpus: Corpus, figures: list[Figure], notes: list[str]) -> str:
    rows = [
        f"corpus: {corpus.files} files, {corpus.lines} lines, {corpus.bytes / 1e6:.1f} MB, "
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}",
        f"{'run':32} {'seconds':>8} {'files/s':>9} {'lines/s':>10} {'MB/s':>7}",
    ]
    for f in figures:
        rows.append(
            f"{f.name:32} {f.seconds:8.3f} {f.files_per_s:9.0f} {f.lines_per_s:10.0f} {f.mb_per_s:7.2f}"
        )
    rows += targets(figures)
    rows += notes
    return "\n".join(rows)


def targets(figures: list[Figure]) -> list[str]:
    """The issue's targets (2-core machine, whole process), each with the measured figure."""
    by_name = {f.name: f for f in figures}
    rows = []
    ours, torch = by_name.get("cold -j2"), by_name.get("torch hipify (process)")
    if ours and torch:
        ratio = ours.lines_per_s / torch.lines_per_s
        rows.append(f"cold -j2 vs torch (whole process): {ratio:.2f}x lines/s (target >= 2x)")
        call = by_name["torch hipify (call only)"]
        call_ratio = ours.lines_per_s / call.lines_per_s
        rows.append(f"cold -j2 (whole process) vs torch's hipify() call alone: {call_ratio:.2f}x")
    warm = by_name.get("warm (all cached) -j2")
    if warm:
        rows.append(f"warm re-run of {warm.files} unchanged files: {warm.seconds:.3f} s (target < 0.5 s)")
    for mode in ("--in-place", "--check"):
        one = by_name.get(f"one staged file {mode}")
        if one:
            rows.append(f"one staged file {mode}: {one.seconds:.3f} s (target < 0.3 s)")
    return rows


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--scale", type=float, default=1.0, help="corpus size factor (1 = ~1,200 files)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best is kept)")
    parser.add_argument("--corpus", type=Path, help="build/keep the corpus here instead of a temp dir")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch comparison")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hipify-bench-") as tmp:
        work = Path(tmp)
        root = args.corpus or work / "corpus"
        shutil.rmtree(root, ignore_errors=True)
        corpus = build_corpus(root, args.scale)
        figures = measure_ours(corpus, work, args.repeat)
        notes: list[str] = []
        if not args.no_torch:
            torch_figures, note = measure_torch(corpus, work, args.repeat)
            figures += torch_figures
            notes.append(note)
    if args.json:
        payload = {
            "corpus": {"files": corpus.files, "lines": corpus.lines, "bytes": corpus.bytes},
            "cpus": os.cpu_count(),
            "figures": [
                {**asdict(f), "files_per_s": f.files_per_s, "lines_per_s": f.lines_per_s} for f in figures
            ],
            "targets": targets(figures),
            "notes": notes,
        }
        print(json.dumps(payload, indent=2))
    else:
        print(render(corpus, figures, notes))


if __name__ == "__main__":
    main()
