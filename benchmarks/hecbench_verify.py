#!/usr/bin/env python3
"""`hipify-py convert --verify` over a HeCBench-style corpus, compared with hecbench_rate.py's verdicts.

    python3 benchmarks/hecbench_verify.py --src ../shared/corpus/hecbench [--only LIST] [-j 2] \
        [--rate ours.json] [--json verify.json]

Copies every NAME-cuda folder (and include/, and sibling folders a Makefile names with -I) to a temp
dir, writes a compile_commands.json for it (scripts/makefile_compile_db.py: `-I. -I../include` plus the
Makefile's -I dirs, the flags hecbench_rate.py uses), runs `convert --in-place --verify -p` once over all
folders and times it. A benchmark passes when all its TUs compile. With --rate (the `--json` of
`hecbench_rate.py score` on the same code) the per-benchmark verdicts are compared and differences listed.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE_RE = re.compile(r"(?<!\S)-I\s*([^\s$()]+)")


def names(src: Path, only: Path | None) -> list[str]:
    pairs = sorted(p.name[:-5] for p in src.glob("*-cuda") if (src / (p.name[:-5] + "-hip")).is_dir())
    if only:
        wanted = {ln.strip() for ln in only.read_text().splitlines() if ln.strip()}
        pairs = [n for n in pairs if n in wanted]
    return pairs


def siblings(bench: Path) -> set[str]:
    mk = bench / "Makefile"
    found = INCLUDE_RE.findall(mk.read_text(errors="replace")) if mk.exists() else []
    return {Path(d).name for d in found if d.startswith("../") and (bench / d).is_dir()}


def _verdict(ok: bool) -> str:
    return "ok" if ok else "FAIL"


def _program(path: str) -> str:
    return next((p[: -len("-cuda")] for p in reversed(Path(path).parts) if p.endswith("-cuda")), "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path, required=True)
    ap.add_argument("--only", type=Path)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--rate", type=Path, help="hecbench_rate.py score --json output to compare with")
    ap.add_argument("--json", type=Path, help="write per-benchmark verdicts here")
    ap.add_argument("--report", type=Path, help="also keep hipify-py's own JSON report here")
    args = ap.parse_args()
    todo = names(args.src, args.only)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        needed = {f"{n}-cuda" for n in todo}
        for n in todo:
            needed |= siblings(args.src / f"{n}-cuda")
        needed.discard("include")
        shutil.copytree(args.src / "include", work / "include")
        for d in sorted(needed):
            if (args.src / d).is_dir():
                shutil.copytree(args.src / d, work / d, symlinks=True)
        for path in work.rglob("*"):  # the corpus is read-only; --in-place refuses read-only files
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
        only = work / "programs"
        only.mkdir()
        for n in todo:  # the database covers the benchmarks asked for, not the sibling folders
            (only / f"{n}-cuda").symlink_to(work / f"{n}-cuda")
        db = work / "compile_commands.json"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "makefile_compile_db.py"),
                str(only),
                "-o",
                str(db),
                "--flag=-I.",
                "--flag=-I../include",
            ],
            check=True,
        )
        entries = json.loads(db.read_text())
        for e in entries:  # the compile runs in the real folder, not through the symlink
            e["directory"] = os.path.realpath(e["directory"])
        db.write_text(json.dumps(entries))
        report = work / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "hipify_py",
            "convert",
            "-q",
            "--in-place",
            "--verify",
            "-p",
            str(db),
            "-j",
            str(args.j),
            "--report",
            str(report),
            *(str(work / d) for d in sorted(needed)),
        ]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        start = time.monotonic()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - start
        data = json.loads(report.read_text())
        if args.report:
            shutil.copy(report, args.report)
    print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "", file=sys.stderr)
    verify = data["verify"]
    failed = {_program(f["path"]) for f in verify["failures"]}
    units = {os.path.basename(os.path.realpath(e["directory"]))[: -len("-cuda")] for e in entries}
    verdicts = {n: n not in failed for n in todo if n in units}
    ok = sum(verdicts.values())
    print(
        f"verify: {ok}/{len(verdicts)} benchmarks compile; TUs {verify['compiled']}/{verify['units']}; "
        f"{seconds:.0f} s with -j {args.j}"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"seconds": seconds, "verdicts": verdicts, "verify": verify}, indent=1)
        )
    if args.rate:
        rate = {r["name"]: r["ok"] for r in json.loads(args.rate.read_text())}
        common = sorted(set(rate) & set(verdicts))
        differ = [n for n in common if rate[n] != verdicts[n]]
        print(
            f"hecbench_rate: {sum(rate[n] for n in common)}/{len(common)}; same verdict on "
            f"{len(common) - len(differ)}/{len(common)}"
        )
        for n in differ:
            print(f"  differs: {n}: hecbench_rate {_verdict(rate[n])}, verify {_verdict(verdicts[n])}")


if __name__ == "__main__":
    main()
