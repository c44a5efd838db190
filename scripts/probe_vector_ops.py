#!/usr/bin/env python3
"""Probe which user operators on HIP vector types the installed hipcc rejects as ambiguous.

Usage: probe_vector_ops.py [--hipcc PATH] [--out FILE] [--check] [--keep FILE]

Writes one translation unit: for every vector type (float1..double4, int2, uchar4, ...) and operator
(`+ - * /` and, for integer types, `% & | ^ << >>`; binary with vector/scalar operands, compound
assignment, unary minus, ++, ==), a user's `__host__ __device__` free operator and one use of it in a
kernel. hipcc then says which uses are ambiguous against HIP's own operators. Writes the result, per
form, to mappings/vector-ops-<HIP version>.yaml (deterministic; `--check` compares). A second TU does
the same for hipFloatComplex/hipDoubleComplex with <hip/hip_complex.h> included (HIP 5.2's defines
complex operators of its own on them): `complex_ambiguous`. HIP 5.2's is what
hipify_py/rules/vector_ops_data.py states (AMBIGUOUS_COMPOUND, AMBIGUOUS_STEP; tests/test_merged.py
holds them equal); ROCm 6.4 and 7.2 also make `vector * vector` and `vector / vector` ambiguous.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # why: the vector types and operators come from the package
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import hip_version, probed_with, write_or_check  # noqa: E402

from hipify_py.rules.vector_ops_data import COMPLEX_TYPES, COMPONENTS, FLOATING, VECTOR_TYPES  # noqa: E402

PREFIX = "vector-ops-"

# One type per component type and size class is enough to see the pattern; all sizes for float.
PROBED = (
    "float1",
    "float2",
    "float3",
    "float4",
    "double2",
    "int2",
    "int3",
    "uint4",
    "uchar4",
    "short2",
    "longlong2",
)
# HIP's spellings of cuComplex.h's types, with the component type and count of their CUDA names
COMPLEX = {
    "hipFloatComplex": COMPLEX_TYPES[b"cuFloatComplex"],
    "hipDoubleComplex": COMPLEX_TYPES[b"cuDoubleComplex"],
}


def _make(vector: str, n: int, expr: str) -> str:
    return f"make_{vector}(" + ", ".join(expr.format(c=c) for c in COMPONENTS[:n]) + ")"


def probe_source(complex_types: bool = False) -> tuple[str, dict[int, str]]:
    """The probe TU and, per line of a use, the `form` it exercises (e.g. `+= vector`)."""
    defs: list[str] = ["#include <hip/hip_runtime.h>"]
    if complex_types:
        defs.append("#include <hip/hip_complex.h>")
    uses: list[tuple[str, str]] = []
    hd = "inline __host__ __device__"
    types = COMPLEX if complex_types else {v: VECTOR_TYPES[v.encode()] for v in PROBED}
    for vector, (scalar, n) in types.items():
        ops = ["+", "-", "*", "/"] + ([] if scalar in FLOATING else ["%", "&", "|", "^", "<<", ">>"])
        for op in ops:
            made = _make(vector, n, "a.{c} " + op + " b.{c}")
            defs.append(f"{hd} {vector} operator{op}({vector} a, {vector} b) {{ return {made}; }}")
            uses.append((f"{op} vector", f"{{ {vector} a{{}}, b{{}}; {vector} r = a {op} b; (void)r; }}"))
            made = _make(vector, n, "a.{c} " + op + " s")
            defs.append(f"{hd} {vector} operator{op}({vector} a, {scalar} s) {{ return {made}; }}")
            uses.append(
                (f"{op} scalar", f"{{ {vector} a{{}}; {scalar} s{{}}; {vector} r = a {op} s; (void)r; }}")
            )
            body = " ".join(f"a.{c} {op}= b.{c};" for c in COMPONENTS[:n])
            defs.append(f"{hd} void operator{op}=({vector} &a, {vector} b) {{ {body} }}")
            uses.append((f"{op}= vector", f"{{ {vector} a{{}}, b{{}}; a {op}= b; }}"))
            body = " ".join(f"a.{c} {op}= s;" for c in COMPONENTS[:n])
            defs.append(f"{hd} void operator{op}=({vector} &a, {scalar} s) {{ {body} }}")
            uses.append((f"{op}= scalar", f"{{ {vector} a{{}}; {scalar} s{{}}; a {op}= s; }}"))
        if not scalar.startswith("unsigned"):
            defs.append(f"{hd} {vector} operator-({vector} a) {{ return {_make(vector, n, '-a.{c}')}; }}")
            uses.append(("- unary", f"{{ {vector} a{{}}; {vector} r = -a; (void)r; }}"))
        for cmp in ("==", "!="):
            defs.append(f"{hd} bool operator{cmp}({vector} a, {vector} b) {{ return a.x {cmp} b.x; }}")
            uses.append((f"{cmp} vector", f"{{ {vector} a{{}}, b{{}}; bool r = a {cmp} b; (void)r; }}"))
        for step in ("++", "--"):
            defs.append(f"{hd} {vector}& operator{step}({vector} &a) {{ {step}a.x; return a; }}")
            uses.append((f"{step} prefix", f"{{ {vector} a{{}}; {step}a; }}"))
            defs.append(
                f"{hd} {vector} operator{step}({vector} &a, int) {{ {vector} t = a; {step}a.x; return t; }}"
            )
            uses.append((f"{step} postfix", f"{{ {vector} a{{}}; a{step}; }}"))
    lines = [*defs, "__global__ void probe() {"]
    forms: dict[int, str] = {}
    for form, use in uses:
        lines.append(use)
        forms[len(lines)] = form
    lines.append("}")
    return "\n".join(lines) + "\n", forms


def ambiguous_forms(hipcc: str, keep: Path | None = None, complex_types: bool = False) -> dict[str, bool]:
    """form -> whether hipcc found any use of it ambiguous."""
    text, forms = probe_source(complex_types)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text(text)
        if keep is not None:
            keep.write_text(text)
        proc = subprocess.run(
            [
                hipcc,
                "--offload-arch=gfx90a",
                "-std=c++17",
                "-fsyntax-only",
                "-ferror-limit=0",
                "-x",
                "hip",
                str(src),
            ],
            capture_output=True,
            text=True,
            env=dict(os.environ, HIP_PLATFORM="amd"),
            timeout=600,
        )
    bad_lines = {
        int(m.group(1)) for m in re.finditer(r"probe\.hip:(\d+):\d+: error: [^\n]*ambiguous", proc.stderr)
    }
    other = re.findall(r"probe\.hip:\d+:\d+: error: (?![^\n]*ambiguous)[^\n]*", proc.stderr)
    if other:
        raise RuntimeError("probe has errors other than ambiguity:\n" + "\n".join(other[:10]))
    result: dict[str, bool] = {}
    for line, form in forms.items():
        result[form] = result.get(form, False) or line in bad_lines
    return result


def render(version: str, found: dict[str, bool], complex_found: dict[str, bool], source: str) -> str:
    def listed(forms: list[str]) -> str:
        return "[" + ", ".join(f"'{form}'" for form in forms) + "]"

    lines = [
        "# Generated by scripts/probe_vector_ops.py: do not edit. Operators on HIP's vector types",
        f"# (HIP {version}): a use of a user's `__host__ __device__` free operator of a form (`OP vector`:",
        "# both operands of the vector type; `OP scalar`: the vector and its component type; `prefix`,",
        "# `postfix`, `unary`: one operand) is `ambiguous` against HIP's own operators for at least one of",
        "# float1..4, double2, int2, int3, uint4, uchar4, short2, longlong2; else `fine`. `complex_*`: the",
        "# same for hipFloatComplex and hipDoubleComplex with <hip/hip_complex.h> included.",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        f"ambiguous: {listed(sorted(f for f, bad in found.items() if bad))}",
        f"fine: {listed(sorted(f for f, bad in found.items() if not bad))}",
        f"complex_ambiguous: {listed(sorted(f for f, bad in complex_found.items() if bad))}",
        f"complex_fine: {listed(sorted(f for f, bad in complex_found.items() if not bad))}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--out", type=Path, default=None, help=f"default: mappings/{PREFIX}<HIP>.yaml")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh probe")
    parser.add_argument("--keep", type=Path, help="also write the probe source here")
    args = parser.parse_args(argv)
    version = hip_version(args.hipcc)
    found = ambiguous_forms(args.hipcc, args.keep)
    complex_found = ambiguous_forms(args.hipcc, None, complex_types=True)
    text = render(version, found, complex_found, probed_with(args.hipcc))
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    summary = (
        f"{sum(found.values())} of {len(found)} operator forms ambiguous, "
        f"{sum(complex_found.values())} of {len(complex_found)} on complex types"
    )
    return write_or_check(out, text, args.check, "probe_vector_ops", summary)


if __name__ == "__main__":
    sys.exit(main())
