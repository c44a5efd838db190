#!/usr/bin/env python3
"""Probe which names of RCCL, ROCm SMI and roctx a HIP release's installed packages declare.

Usage: probe_vendor_libs.py [--hipcc PATH] [--out FILE] [--check]

For each library (RCCL <rccl/rccl.h>, ROCm SMI <rocm_smi/rocm_smi.h>, roctx <roctracer/roctx.h>) this
script compiles, with the given hipcc (host side, syntax only), one file that includes the library's
header and names every candidate: the NCCL API (mappings/nccl-api.yaml), the ROCm SMI counterparts of
NVML calls (mappings/nvml-rsmi.yaml) and the roctx names NVTX calls are renamed to
(mappings/extras.yaml). A name the compiler reports undeclared is one the release's library lacks.
Where the header is not installed beside the hipcc, the table says so, and whether Debian packages the
library for that release at all (NOT_PACKAGED: facts from `apt-cache policy`, with the date checked).
Writes mappings/vendor-libs-<HIP version>.yaml (deterministic; `--check` compares);
hipify_py/rules/detectors/vendor_libs.py reads it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import _package_version, hip_version, include_root, probed_with, write_or_check  # noqa: E402

PREFIX = "vendor-libs-"  # mappings/<PREFIX><HIP version>.yaml
MAPPINGS = REPO / "mappings"

# library -> (the CUDA family it stands for, header, Debian -dev package, the macros of its own version)
LIBRARIES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "rccl": ("nccl", "rccl/rccl.h", "librccl-dev", ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")),
    "rocm_smi": ("nvml", "rocm_smi/rocm_smi.h", "librocm-smi-dev", ()),
    "roctx": ("nvtx", "roctracer/roctx.h", "libroctx-dev", ("ROCTX_VERSION_MAJOR", "ROCTX_VERSION_MINOR")),
}

# Other headers of a library a translation can write (headers.yaml): each is compiled on its own after
# the main one; one that fails is `unusable` (Debian's RCCL 7.2 ships nccl_net.h without what it includes).
OTHER_HEADERS: dict[str, tuple[str, ...]] = {"rccl": ("rccl/nccl_net.h",)}

# Libraries Debian has no installable package of for a release (checked 2026-11-27 with apt-cache
# policy on Debian 12 for HIP 5.2, in the sid chroot for ROCm 6.4, sid + experimental for ROCm 7.2).
NOT_PACKAGED: dict[tuple[str, str], str] = {
    ("5.2", "rccl"): "Debian 12 (bookworm) has no librccl-dev",
    ("5.2", "roctx"): "Debian 12 (bookworm) has no roctracer/roctx package",
    (
        "6.4",
        "rccl",
    ): "Debian sid's librccl-dev 5.4.3-3+b1 depends on libamdhip64-5: not installable beside ROCm 6.4",
}

_UNDECLARED = re.compile(r"error: (?:use of undeclared identifier|unknown type name) '(\w+)'")
_MISSING_MACRO = re.compile(r'error: "hipify-probe-lacks (\w+)"')
_NO_HEADER = re.compile(r"fatal error: '([^']+)' file not found")


def candidates(library: str) -> list[str]:
    """The names to look for in one library's header, sorted."""
    if library == "rccl":
        data = yaml.safe_load((MAPPINGS / "generated" / "nccl-api.yaml").read_text())
        return sorted(r["name"] for r in data["names"] if "removed" not in r)
    if library == "rocm_smi":
        data = yaml.safe_load((MAPPINGS / "hand-kept" / "nvml-rsmi.yaml").read_text())
        names = {n for r in data["nvml"] for n in r.get("rsmi") or ()}
        return sorted(names)
    data = yaml.safe_load((MAPPINGS / "hand-kept" / "extras.yaml").read_text())
    return sorted({r["hip"] for r in data["extras"] if r.get("family") == "nvtx" and r.get("hip")})


def probe_source(header: str, names: Sequence[str], version_macros: Sequence[str]) -> str:
    """One translation unit: each name in an unevaluated context (`sizeof` takes a type or a value, so
    an undeclared name is the only error that says "absent"), NCCL_* macros by `#ifndef`."""
    lines = [f"#include <{header}>"]
    for name in names:
        if name.startswith("NCCL_"):  # nccl-api.yaml: every NCCL_* name is a macro
            lines += [f"#ifndef {name}", f'#error "hipify-probe-lacks {name}"', "#endif"]
        else:
            lines.append(f"void probe_{name}() {{ (void)sizeof({name}); }}")
    for macro in version_macros:
        lines.append(
            f'#ifdef {macro}\n#pragma message "hipify-probe-version {macro}=" HIPIFY_STR({macro})\n#endif'
        )
    return "#define HIPIFY_STR2(x) #x\n#define HIPIFY_STR(x) HIPIFY_STR2(x)\n" + "\n".join(lines) + "\n"


def compile_probe(hipcc: str, source: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "probe.hip").write_text(source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "--cuda-host-only"]
        cmd += [
            "-fsyntax-only",
            "-ferror-limit=0",
            "probe.hip",
        ]  # no -w: the version comes as a #pragma message
        env = dict(os.environ, HIP_PLATFORM="amd")
        return subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env).stderr


def probe_library(hipcc: str, version: str, library: str) -> dict[str, object]:
    family, header, package, version_macros = LIBRARIES[library]
    row: dict[str, object] = {"family": family, "header": header}
    root = include_root(hipcc).resolve().parent.parent
    installed = _package_version(root, package)
    names = candidates(library)
    out = compile_probe(hipcc, probe_source(header, names, version_macros))
    missing = _NO_HEADER.search(out)
    if missing is not None:
        row["installed"] = False
        note = NOT_PACKAGED.get((version, library))
        row["packaged"] = note is None
        row["package"] = note or f"{package}: packaged for this release but not installed where probed"
        return row
    row["installed"] = True
    row["packaged"] = True
    row["package"] = f"{package} {installed}" if installed else f"{header} beside the hipcc"
    found = dict(re.findall(r"hipify-probe-version (\w+)=(\w+)", out))
    if version_macros and all(m in found for m in version_macros):
        row["version"] = ".".join(found[m] for m in version_macros)
    lacks = sorted(set(_UNDECLARED.findall(out)) | set(_MISSING_MACRO.findall(out)))
    stray = set(lacks) - set(names)
    if stray:
        raise SystemExit(
            f"{library}: the probe itself is broken (undeclared {sorted(stray)}):\n{out[-3000:]}"
        )
    row["checked"] = len(names)
    row["lacks"] = lacks
    row["unusable"] = [
        other
        for other in OTHER_HEADERS.get(library, ())
        if "error:"
        in compile_probe(hipcc, f"#include <hip/hip_runtime.h>\n#include <{header}>\n#include <{other}>\n")
    ]
    return row


def render(version: str, source: str, rows: dict[str, dict[str, object]]) -> str:
    lines = [
        "# Generated by scripts/probe_vendor_libs.py: do not edit. For RCCL, ROCm SMI and roctx: whether",
        f"# the library's header is installed beside HIP {version}'s hipcc (`installed`), whether Debian",
        "# packages it for this release at all (`packaged`; `package`: the package probed, or why none),",
        "# the CUDA family it stands for (nccl, nvml, nvtx: headers.yaml), its own version, and",
        "# which of the names hipify-py relies on it lacks (`lacks`, out of `checked`: the NCCL API of",
        "# nccl-api.yaml, the ROCm SMI counterparts of nvml-rsmi.yaml, the roctx names of extras.yaml);",
        "# `unusable`: its other headers (OTHER_HEADERS) that do not compile as installed.",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        "libraries:",
    ]
    for library, row in rows.items():
        lines.append(f"  {library}:")
        for key, value in row.items():
            if isinstance(value, list):
                lines.append(f"    {key}: [{', '.join(map(str, value))}]")
            elif isinstance(value, bool):
                lines.append(f"    {key}: {'true' if value else 'false'}")
            elif isinstance(value, int):
                lines.append(f"    {key}: {value}")
            else:
                lines.append(f"    {key}: {_quoted(value)}")
    return "\n".join(lines) + "\n"


def _quoted(value: object) -> str:
    """A YAML single-quoted scalar (a quote inside is doubled)."""
    return "'" + str(value).replace("'", "''") + "'"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hipcc", default="hipcc")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed table differs")
    args = parser.parse_args(argv)
    version = hip_version(args.hipcc)
    rows = {library: probe_library(args.hipcc, version, library) for library in LIBRARIES}
    text = render(version, probed_with(args.hipcc), rows)
    out = args.out or MAPPINGS / "probed" / f"{PREFIX}{version}.yaml"
    summary = ", ".join(
        f"{lib}: " + (f"lacks {len(r['lacks'])}/{r['checked']}" if r["installed"] else "not installed")  # type: ignore[arg-type]
        for lib, r in rows.items()
    )
    return write_or_check(out, text, args.check, "probe_vendor_libs", summary)


if __name__ == "__main__":
    sys.exit(main())
