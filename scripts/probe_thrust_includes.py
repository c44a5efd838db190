#!/usr/bin/env python3
"""List the thrust headers CUDA's thrust headers bring along and the target's rocThrust headers do not.

Usage: probe_thrust_includes.py [--hipcc PATH] [--nvcc PATH] [--out FILE] [--check]

CUDA code often calls `thrust::copy` or `thrust::sequence` with only <thrust/device_vector.h> or
<thrust/sort.h> included: CUDA's headers include <thrust/copy.h>, <thrust/sequence.h>... on the way.
The same headers of a rocThrust may not (ROCm 6.4: thrust/device_vector.h brings no thrust/copy.h), so
the translated call fails (`no member named 'copy' in namespace 'thrust'`). For each public header
(thrust/*.h) this lists, with `-M`, the public headers it includes with nvcc and with hipcc; for each
header only CUDA's brings along, the names of NAMES it declares are then checked with hipcc: undeclared
after the including header alone, declared once the header itself is included. Writes
mappings/thrust-includes-<version>.yaml (read by rules/implicit_includes.py, HIP221). Needs both
compilers and rocThrust; deterministic; `--check` compares.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import hip_version, include_root, probed_with, write_or_check  # noqa: E402

PREFIX = "thrust-includes-"
_PUBLIC = re.compile(r"/thrust/(\w+\.h)\b")
_ERROR = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)
# The names each public header declares (CUDA's thrust, CCCL 2-3), as `using thrust::name;` checks them.
NAMES: dict[str, tuple[str, ...]] = {
    "copy.h": ("copy", "copy_n", "copy_if"),
    "fill.h": ("fill", "fill_n"),
    "functional.h": ("plus", "minus", "multiplies", "divides", "negate", "maximum", "minimum", "identity"),
    "generate.h": ("generate", "generate_n"),
    "host_vector.h": ("host_vector",),
    "device_vector.h": ("device_vector",),
    "memory.h": ("get_temporary_buffer", "return_temporary_buffer"),
    "replace.h": ("replace", "replace_if", "replace_copy", "replace_copy_if"),
    "scan.h": ("inclusive_scan", "exclusive_scan", "inclusive_scan_by_key", "exclusive_scan_by_key"),
    "sequence.h": ("sequence",),
    "swap.h": ("swap_ranges",),
    "system_error.h": ("system_error",),
    "tabulate.h": ("tabulate",),
    "tuple.h": ("tuple", "make_tuple", "tie"),
    "uninitialized_fill.h": ("uninitialized_fill", "uninitialized_fill_n"),
    "zip_function.h": ("zip_function", "make_zip_function"),
}


def _run(cmd: list[str], source: str, suffix: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / f"probe{suffix}").write_text(source)
        env = dict(os.environ, HIP_PLATFORM="amd")
        return subprocess.run([*cmd, f"probe{suffix}"], cwd=tmp, capture_output=True, text=True, env=env)


def _hip_cmd(hipcc: str) -> list[str]:
    return [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "--cuda-host-only"]


def public_closure(cmd: list[str], header: str, suffix: str) -> frozenset[str]:
    """The public thrust headers (thrust/X.h) that `#include <thrust/header>` reads."""
    out = _run([*cmd, "-M"], f"#include <thrust/{header}>\n", suffix).stdout
    return frozenset(_PUBLIC.findall(out)) - {header}


def undeclared(hipcc: str, header: str, names: Sequence[str]) -> set[str]:
    """The names hipcc does not find in namespace thrust after `#include <thrust/header>`."""
    lines = [f"#include <thrust/{header}>"]
    lines += [f"void probe_{i}() {{ using thrust::{n}; }}" for i, n in enumerate(names)]
    cmd = [*_hip_cmd(hipcc), "-fsyntax-only", "-ferror-limit=0", "-w"]
    out = _run(cmd, "\n".join(lines) + "\n", ".hip").stderr
    failing = {int(m.group(1)) for m in _ERROR.finditer(out)}
    if failing - set(range(2, len(lines) + 1)):
        raise SystemExit(f"probe failed outside the names ({header}):\n{out[-3000:]}")
    return {names[line - 2] for line in failing}


def missing(hipcc: str, nvcc: str) -> dict[str, tuple[list[str], list[str]]]:
    """header -> (names, the headers that bring it along with CUDA and not with this rocThrust)."""
    hip_root = include_root(hipcc) / "thrust"
    # where nvcc finds thrust (CUDA 13: include/cccl/thrust), from its own dependency list
    deps = _run([nvcc, "-std=c++17", "-M"], "#include <thrust/version.h>\n", ".cu").stdout
    found_root = re.search(r"(\S+/thrust)/version\.h", deps)
    if found_root is None:
        raise SystemExit(f"{nvcc} finds no thrust/version.h")
    cuda_thrust = Path(found_root.group(1))
    headers = sorted(p.name for p in cuda_thrust.glob("*.h") if (hip_root / p.name).is_file())
    with ThreadPoolExecutor(2) as pool:
        cuda = dict(
            zip(
                headers,
                pool.map(lambda h: public_closure([nvcc, "-std=c++17"], h, ".cu"), headers),
                strict=True,
            )
        )
        hip = dict(
            zip(headers, pool.map(lambda h: public_closure(_hip_cmd(hipcc), h, ".hip"), headers), strict=True)
        )
    brings: dict[str, list[str]] = {}  # includer -> the headers it brings along with CUDA only
    for header in headers:
        brings[header] = sorted(b for b in cuda[header] - hip[header] if b in NAMES)
    for brought in sorted({b for bs in brings.values() for b in bs}):
        if undeclared(hipcc, brought, NAMES[brought]):
            raise SystemExit(f"<thrust/{brought}> does not declare all of {NAMES[brought]} here")
    names: dict[str, set[str]] = {}
    via: dict[str, list[str]] = {}
    for includer, brought in sorted(brings.items()):
        if not brought:
            continue
        lacking = undeclared(hipcc, includer, [n for b in brought for n in NAMES[b]])  # one compile each
        for b in brought:
            if lacking & set(NAMES[b]):
                names.setdefault(b, set()).update(lacking & set(NAMES[b]))
                via.setdefault(b, []).append(includer)
    found = {b: (sorted(names[b]), via[b]) for b in sorted(names)}
    return found


def render(version: str, found: dict[str, tuple[list[str], list[str]]], source: str) -> str:
    lines = [
        "# Generated by scripts/probe_thrust_includes.py: do not edit. Public thrust headers that CUDA's",
        "# thrust headers (`via`) include and the same rocThrust headers of HIP",
        f"# {version} do not, with the names of each that hipcc then does not find: a translated file that",
        "# includes one of `via` and uses one of `names` needs the header (rules/implicit_includes.py,",
        "# HIP221).",
        f"# Probed with {source} and nvcc.",
        f"hip_version: '{version}'",
        "headers:" if found else "headers: {}",
    ]
    for header, (names, via) in found.items():
        lines.append(f"  {header}:")
        lines.append(f"    names: [{', '.join(names)}]")
        lines.append(f"    via: [{', '.join(via)}]")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    version = hip_version(args.hipcc)
    if not (include_root(args.hipcc) / "thrust").is_dir():
        raise SystemExit(f"HIP {version} at {args.hipcc} has no rocThrust")
    found = missing(args.hipcc, args.nvcc)
    text = render(version, found, probed_with(args.hipcc))
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    count = sum(len(v[0]) for v in found.values())
    return write_or_check(out, text, args.check, "probe_thrust_includes", f"{count} names")


if __name__ == "__main__":
    sys.exit(main())
