#!/usr/bin/env python3
"""Check the hand-kept header tables against an installed HIP with its compiler (no network).

Usage: check_hip_macros.py [--include ROOT] [--hipcc PATH] [--sweep] [--json FILE]

- mappings/guards.yaml: for every row that holds for the installed HIP version, the HIP header must
  define the HIP macro after preprocessing for the AMD platform (`hipcc -E`, one probe per header:
  `#ifndef MACRO` + `#error`). Same for the --roc macro with the roc* header of headers.yaml.
- mappings/include-order.yaml: each listed header must fail to compile on its own and compile after
  the header it `needs` (a table row that no longer holds is reported as stale).
- --sweep: every HIP header headers.yaml rewrites to must compile on its own, or be listed in
  include-order.yaml (a missing row means a translated file could include it first and fail).

Rows whose header is not installed are skipped (e.g. hipBLAS on Debian). Exit 1 on any problem.
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
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # why: the tables come from the project's own loader

from hipify_py.data.mappings import Mappings, load_mappings  # noqa: E402

_MISSING = re.compile(r"hipify-py-missing: (\w+)")
_VERSION = re.compile(r"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)")


@dataclass(frozen=True)
class Finding:
    table: str  # guards | include-order
    subject: str  # macro or header
    status: str  # ok | wrong | stale | missing-row | skipped
    detail: str


def hip_version(root: Path) -> str:
    path = root / "hip" / "hip_version.h"
    if not path.is_file():
        return ""
    parts = dict(_VERSION.findall(path.read_text(errors="replace")))
    return f"{parts.get('MAJOR', '0')}.{parts.get('MINOR', '0')}" if parts else ""


def _compile(hipcc: str, root: Path, code: str, mode: Sequence[str]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="hipify-py-macros-") as tmp:
        probe = Path(tmp) / "probe.cpp"
        probe.write_text(code)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", *mode, f"-I{root}", str(probe)]
        return subprocess.run(
            cmd, capture_output=True, text=True, check=False, env={**os.environ, "HIP_PLATFORM": "amd"}
        )


def _preprocess(hipcc: str, root: Path, code: str) -> subprocess.CompletedProcess[str]:
    return _compile(hipcc, root, code, ("-E", "-o", os.devnull))


def _syntax(hipcc: str, root: Path, code: str) -> subprocess.CompletedProcess[str]:
    # the host pass declares what the headers declare; the device pass would only double the time
    return _compile(hipcc, root, code, ("-fsyntax-only", "--cuda-host-only", "-w"))


def _includes(headers: Iterable[str]) -> str:
    return "".join(f"#include <{h}>\n" for h in headers)


def _prerequisites(mappings: Mappings, header: str) -> list[str]:
    need = mappings.include_needs.get(header)
    return [need.needs] if need is not None else []


def check_guards(mappings: Mappings, root: Path, hipcc: str, version: str) -> list[Finding]:
    """One preprocessing probe per HIP header: every macro the table expects from it is defined."""
    expected: dict[str, dict[str, str]] = {}  # header -> macro -> CUDA macro
    findings: list[Finding] = []
    for cuda, rows in sorted(mappings.guards.items()):
        for row in rows:
            if row.hip is None or not row.holds_for(version):
                continue
            expected.setdefault(row.hip_header, {})[row.hip] = cuda
            roc_header = mappings.headers.get(row.cuda_header)
            if row.roc and roc_header is not None and roc_header.roc:
                expected.setdefault(roc_header.roc, {})[row.roc] = cuda
    for header, macros in sorted(expected.items()):
        if not (root / header).is_file():
            findings += [Finding("guards", m, "skipped", f"{header} not installed") for m in sorted(macros)]
            continue
        checks = "".join(f'#ifndef {m}\n#error "hipify-py-missing: {m}"\n#endif\n' for m in sorted(macros))
        proc = _preprocess(hipcc, root, _includes([*_prerequisites(mappings, header), header]) + checks)
        missing = set(_MISSING.findall(proc.stderr))
        if proc.returncode != 0 and not missing:
            findings.append(Finding("guards", header, "wrong", f"probe failed: {proc.stderr[-500:]}"))
            continue
        for macro, cuda in sorted(macros.items()):
            status = "wrong" if macro in missing else "ok"
            findings.append(Finding("guards", macro, status, f"{cuda} -> {macro}: {header}"))
    return findings


def check_include_order(mappings: Mappings, root: Path, hipcc: str) -> list[Finding]:
    findings: list[Finding] = []
    for header, need in sorted(mappings.include_needs.items()):
        if not (root / header).is_file():
            findings.append(Finding("include-order", header, "skipped", "not installed"))
            continue
        alone = _syntax(hipcc, root, _includes([header]))
        after = _syntax(hipcc, root, _includes([need.needs, header]))
        if alone.returncode == 0:
            findings.append(Finding("include-order", header, "stale", "compiles on its own"))
        elif after.returncode != 0:
            findings.append(Finding("include-order", header, "wrong", f"fails after {need.needs}"))
        else:
            findings.append(Finding("include-order", header, "ok", f"needs {need.needs}"))
    return findings


def sweep(mappings: Mappings, root: Path, hipcc: str) -> list[Finding]:
    """Every installed header the tool writes compiles on its own or has an include-order row."""
    targets = sorted(
        {t for h in mappings.headers.values() for t in (h.hip, h.roc, h.legacy) if t}
        - set(mappings.include_needs)
    )
    findings = []
    for header in targets:
        if not (root / header).is_file():
            continue
        proc = _syntax(hipcc, root, _includes([header]))
        if proc.returncode == 0:
            findings.append(Finding("include-order", header, "ok", "compiles on its own"))
        else:
            first = next((line for line in proc.stderr.splitlines() if "error:" in line), "")
            findings.append(Finding("include-order", header, "missing-row", first))
    return findings


PROBLEMS = frozenset({"wrong", "stale", "missing-row"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--include", type=Path, default=Path("/usr/include"), help="HIP include root")
    parser.add_argument("--hipcc", default=shutil.which("hipcc"), help="hipcc to probe with")
    parser.add_argument("--sweep", action="store_true", help="also compile every header the tool writes")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every finding as JSON")
    args = parser.parse_args(argv)
    version = hip_version(args.include)
    if not args.hipcc or not version:
        print(f"check_hip_macros: needs hipcc and HIP headers under {args.include}", file=sys.stderr)
        return 2
    mappings = load_mappings()
    findings = check_guards(mappings, args.include, args.hipcc, version)
    findings += check_include_order(mappings, args.include, args.hipcc)
    if args.sweep:
        findings += sweep(mappings, args.include, args.hipcc)
    for f in findings:
        print(f"{f.status:<12} {f.table:<14} {f.subject:<40} {f.detail}")
    if args.json:
        args.json.write_text(json.dumps([asdict(f) for f in findings], indent=1) + "\n")
    problems = [f for f in findings if f.status in PROBLEMS]
    print(f"HIP {version}: {len(findings)} checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
