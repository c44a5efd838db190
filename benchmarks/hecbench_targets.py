#!/usr/bin/env python3
"""HeCBench on every target HIP: the table README and docs/validation.md show.

    python3 benchmarks/hecbench_targets.py --src ../shared/corpus/hecbench [--targets 5.2,6.4,7.2] \
        [--work DIR] [-j 2] [--only LIST]

For each target, on a machine where that release is the installed HIP (the host's hipcc for 5.2, the
prefix scripts/provision_rocm.py made, first on PATH, for 6.4 and 7.2; hipify-py then finds that HIP
as users' machines would, no --hip-version given):
  1. the reference: ../shared/tools/hecbench_rate.py compiles every hand port (NAME-hip) with that
     hipcc; the programs whose hand port compiles are the reachable set (kept in WORK/ref-V.json and
     reused, since it does not depend on hipify-py);
  2. scripts/predict_failures.py translates every NAME-cuda with this checkout, compiles each TU with
     the same hipcc and classifies it (clean, false alarm, predicted, silent, environment, input).
Prints one Markdown table: reachable programs that compile after translation, failing programs with
no error finding (silent), false alarms (compiling TUs with an error finding), and the failures whose
cause the CUDA build shares (input) or a ROCm library this install lacks (environment), set apart.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATE = ROOT.parent / "shared" / "tools" / "hecbench_rate.py"
TOOLCHAINS = Path(os.environ.get("HIPIFY_PY_TOOLCHAINS") or "/var/cache/hipify-py/toolchains")
FAILING = ("predicted", "silent", "environment", "environment_silent", "input", "timeout")
# causes outside the translation: the CUDA build shares them, or a ROCm library this install lacks
_APART = ("input", "environment", "environment_silent")


def target_env(version: str) -> dict[str, str]:
    """The environment of a machine where `version` is the installed HIP."""
    env = dict(os.environ)
    prefix = TOOLCHAINS / f"hip-{version}"
    if (prefix / "bin" / "hipcc").is_file():
        env["PATH"] = f"{prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["HIPCC"] = str(prefix / "bin" / "hipcc")
    return env


def reference(version: str, src: Path, work: Path, jobs: int, only: Path | None) -> Path:
    out = work / f"ref-{version}.json"
    if not out.is_file():
        cmd = [sys.executable, str(RATE), "reference", "--src", str(src), "-j", str(jobs), "--json", str(out)]
        cmd += ["--only", str(only)] if only else []
        subprocess.run(cmd, env=target_env(version), check=True, stdout=subprocess.DEVNULL)
    return out


def predict(version: str, src: Path, work: Path, jobs: int, only: Path | None) -> dict:
    out = work / f"predict-{version}.json"
    env = target_env(version)
    env["HIPIFY_PY_CACHE_DIR"] = str(work / f"cache-{version}")
    cmd = [sys.executable, str(ROOT / "scripts" / "predict_failures.py"), str(src), "-j", str(jobs)]
    cmd += ["--reference", str(reference(version, src, work, jobs, only)), "--json", str(out)]
    cmd += ["--only", str(only)] if only else []
    with (work / f"predict-{version}.log").open("w") as log:
        subprocess.run(cmd, env=env, check=True, stdout=log, stderr=subprocess.STDOUT)
    return json.loads(out.read_text())


def row(version: str, result: dict, reachable: set[str]) -> dict[str, object]:
    """Per-program figures over the reachable set (a program fails when one of its TUs does)."""
    tus: dict[str, list[str]] = defaultdict(list)
    for v in result["verdicts"]:
        if v["program"] in reachable:
            tus[v["program"]].append(v["status"])
    failing = {p: s for p, s in tus.items() if any(x in FAILING for x in s)}
    apart = {p for p, s in failing.items() if all(x in (*_APART, "clean", "false_alarm") for x in s)}
    silent = {p for p, s in failing.items() if p not in apart and any(x in ("silent", "timeout") for x in s)}
    alarms = sum(1 for v in result["verdicts"] if v["status"] == "false_alarm")
    counted = len(tus) - len(apart)
    compiling = len(tus) - len(failing)
    return {
        "target": version,
        "reachable": counted,
        "compiling": compiling,
        "rate": 100.0 * compiling / max(counted, 1),
        "silent_programs": sorted(silent),
        "failing_programs": len(failing) - len(apart),
        "false_alarm_tus": alarms,
        "apart": sorted(apart),
    }


def table(rows: list[dict[str, object]]) -> str:
    lines = [
        "| target | reachable programs that compile after translation | failing programs with no error"
        " finding | false alarms (compiling TUs) | set apart (environment, input) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        silent = r["silent_programs"]
        assert isinstance(silent, list)
        lines.append(
            f"| HIP {r['target']} | {r['compiling']}/{r['reachable']} ({r['rate']:.1f}%) | "
            f"{len(silent)} of {r['failing_programs']} | {r['false_alarm_tus']} | {len(r['apart'])} |"  # type: ignore[arg-type]
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True)
    ap.add_argument("--targets", default="5.2,6.4,7.2")
    ap.add_argument("--work", type=Path, default=Path("hecbench-targets"))
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", type=Path)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for version in args.targets.split(","):
        result = predict(version, args.src.resolve(), args.work, args.j, args.only)
        ref = json.loads((args.work / f"ref-{version}.json").read_text())
        reachable = {v["name"] for v in ref if v["ok"]}  # hecbench_rate.py's --json: one entry a program
        rows.append(row(version, result, reachable))
        print(f"HIP {version}: silent {rows[-1]['silent_programs']}, apart {rows[-1]['apart']}", flush=True)
    (args.work / "targets.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
