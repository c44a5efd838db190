#!/usr/bin/env python3
"""Probe CUDA device code a HIP release lacks: control intrinsics, 16-bit float atomics, error strings.

Usage: probe_device_gaps.py [--hipcc PATH] [--out FILE] [--check]

1. Compiles one `__device__` function per case with hipcc (gfx90a, syntax only) and records which
   fail: CUDA's device control intrinsics (`__trap()`, `__brkpt()`, `__prof_trigger(0)`) and what
   HIP could use instead (`__builtin_trap()`, `abort()`, `__builtin_debugtrap()`); `atomicAdd`,
   `atomicAdd_block` and `atomicAdd_system` on `__half`, `__half2`, `__hip_bfloat16`,
   `__hip_bfloat162` (CUDA declares atomicAdd for all four, cuda_fp16.h/cuda_bf16.h); the 16-bit
   `atomicCAS(unsigned short *, ...)` (CUDA, compute capability 7.0+); `sincos` and `sincospi` on
   float and double pointers (CUDA's math_functions.hpp has both overloads); and
   `hipGetErrorString`/`hipGetErrorName` and the counterparts of CUDA's device runtime API (hipMalloc,
   hipFree, hipGetLastError, hipGetDevice, ...) called in device code (CUDA declares them host and device).
2. Builds a host program that prints `hipGetErrorName(e)` and `hipGetErrorString(e)` for every code
   0..1099 and one no release uses, and runs it (the runtime needs no GPU for them): the codes the
   runtime names, and the text of each. mappings/shims.yaml's device `hipGetErrorString` and
   `hipGetErrorName` return exactly these (rules/shims.py), as the host functions do.
Writes mappings/device-gaps-<HIP version>.yaml (deterministic; `--check` compares).
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import hip_version, include_root, probed_with, run_built, write_or_check  # noqa: E402

PREFIX = "device-gaps-"  # mappings/<PREFIX><HIP version>.yaml
CONTROL = (
    "__trap()",
    "__brkpt()",
    "__prof_trigger(0)",
    "__builtin_trap()",
    "abort()",
    "__builtin_debugtrap()",
)
ATOMICS = ("atomicAdd", "atomicAdd_block", "atomicAdd_system")
MATH_OUT = ("sincos", "sincospi")  # results through pointers: CUDA has float and double overloads
HALF_TYPES = ("__half", "__half2")
BF16_TYPES = ("__hip_bfloat16", "__hip_bfloat162")  # hip/hip_bf16.h: HIP 5.7 and later
ERROR_CALLS = ("hipGetErrorString", "hipGetErrorName")
# CUDA's device runtime API (declared __host__ __device__ by CUDA): a device call of each hip* counterpart
RUNTIME_CALLS = (
    ("hipMalloc", "void* q; (void)hipMalloc(&q, 16);"),
    ("hipFree", "(void)hipFree(nullptr);"),
    ("hipGetLastError", "(void)hipGetLastError();"),
    ("hipPeekAtLastError", "(void)hipPeekAtLastError();"),
    ("hipGetDevice", "int d; (void)hipGetDevice(&d);"),
    ("hipGetDeviceCount", "int n; (void)hipGetDeviceCount(&n);"),
    ("hipDeviceGetAttribute", "int v; (void)hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0);"),
    ("hipDeviceGetCacheConfig", "hipFuncCache_t c; (void)hipDeviceGetCacheConfig(&c);"),
)
UNUSED_CODE = 12345  # no hipError_t enumerator: what the runtime says for a code it does not know


def cases(has_bf16: bool) -> list[tuple[str, str]]:
    """(fact, device statement) for each probe."""
    out = [(call.split("(")[0], f"{call};") for call in CONTROL]
    types = HALF_TYPES + (BF16_TYPES if has_bf16 else ())
    out += [(f"{f}({t} *)", f"{t} v{{}}; {f}(p_{t}, v);") for f in ATOMICS for t in types]
    out.append(("atomicCAS(unsigned short *)", "unsigned short v{}; atomicCAS(p_ushort, v, v);"))
    # CUDA's float overloads of sincos/sincospi (math_functions.hpp), and HIP's double ones
    out += [
        (f"{f}({t} *)", f"{t} s, c; {f}({t}(0.5), &s, &c);") for f in MATH_OUT for t in ("float", "double")
    ]
    out += [(f"device {c}", f'printf("%s", {c}(hipErrorInvalidValue));') for c in ERROR_CALLS]
    out += [(f"device {name}", statement) for name, statement in RUNTIME_CALLS]
    return out


def device_source(probes: Sequence[tuple[str, str]], has_bf16: bool) -> tuple[str, list[int]]:
    lines = ["#include <hip/hip_runtime.h>", "#include <hip/hip_fp16.h>", "#include <cstdio>"]
    if has_bf16:
        lines.append("#include <hip/hip_bf16.h>")
    types = HALF_TYPES + (BF16_TYPES if has_bf16 else ())
    params = ", ".join([*(f"{t} *p_{t}" for t in types), "unsigned short *p_ushort"])
    rows = []
    for i, (_fact, statement) in enumerate(probes):
        lines.append(f"__device__ void probe_{i}({params}) {{ {statement} }}")
        rows.append(len(lines))
    return "\n".join(lines) + "\n", rows


def failing(hipcc: str, source: str, rows: list[int]) -> set[int]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "probe.hip").write_text(source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "-fsyntax-only"]
        cmd += ["-ferror-limit=0", "-w", "probe.hip"]
        env = dict(os.environ, HIP_PLATFORM="amd")
        out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env).stderr
    lines = {int(m.group(1)) for m in re.finditer(r"^probe\.hip:(\d+):\d+: error:", out, re.M)}
    if lines - set(rows):
        raise SystemExit(f"probe failed outside the cases ({sorted(lines - set(rows))}):\n{out[-3000:]}")
    return lines


_STRINGS = r"""#include <hip/hip_runtime.h>
#include <cstdio>
int main() {
  for (int i = 0; i < 1100; ++i)
    std::printf("%d\t%s\t%s\n", i, hipGetErrorName((hipError_t)i), hipGetErrorString((hipError_t)i));
  const hipError_t unused = (hipError_t)UNUSED;
  std::printf("unknown\t%s\t%s\n", hipGetErrorName(unused), hipGetErrorString(unused));
  return 0;
}
"""


def error_strings(hipcc: str) -> tuple[list[tuple[int, str, str]], tuple[str, str]]:
    """([(code, name, text)] the runtime names, (name, text) for a code it does not know)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "strings.hip", Path(tmp) / "strings"
        src.write_text(_STRINGS.replace("UNUSED", str(UNUSED_CODE)))
        env = dict(os.environ, HIP_PLATFORM="amd")
        build = subprocess.run(
            [hipcc, "-std=c++17", str(src), "-o", str(exe)], capture_output=True, text=True, env=env
        )
        if build.returncode != 0:
            raise SystemExit(f"error-string probe does not build:\n{build.stderr[-3000:]}")
        done = subprocess.run([*run_built(hipcc), str(exe)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"error-string probe does not run:\n{done.stderr[-3000:]}")
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    unknown = next((r[1], r[2]) for r in rows if r[0] == "unknown")
    named = [(int(r[0]), r[1], r[2]) for r in rows if r[0] != "unknown" and (r[1], r[2]) != unknown]
    return named, unknown


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def render(version: str, lacks: list[str], has: list[str], named, unknown, source: str) -> str:
    out = [
        f"# Generated by scripts/probe_device_gaps.py: do not edit. CUDA device code HIP {version} lacks",
        "# (`lacks`: hipcc rejects it in a __device__ function; `has`: it compiles), and the runtime's",
        "# error strings (`errors`: [code, hipGetErrorName, hipGetErrorString] for each code it names;",
        "# `unknown`: what it returns for any other). Read by hipify_py/rules/shims.py (device",
        "# hipGetErrorString/hipGetErrorName); tests/test_device_gaps.py holds mappings/shims.yaml and",
        "# version-renames.yaml to the `lacks` list.",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        "lacks: [" + ", ".join(_quoted(x) for x in lacks) + "]",
        "has: [" + ", ".join(_quoted(x) for x in has) + "]",
        f"unknown: [{_quoted(unknown[0])}, {_quoted(unknown[1])}]",
        "errors:",
        *(f"- [{code}, {_quoted(name)}, {_quoted(text)}]" for code, name, text in named),
    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--out", type=Path, default=None, help=f"default: mappings/{PREFIX}<HIP>.yaml")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh probe")
    args = parser.parse_args(argv)
    version = hip_version(args.hipcc)
    has_bf16 = (include_root(args.hipcc) / "hip" / "hip_bf16.h").is_file()
    probes = cases(has_bf16)
    source, rows = device_source(probes, has_bf16)
    bad = failing(args.hipcc, source, rows)
    lacks = [fact for (fact, _), row in zip(probes, rows, strict=True) if row in bad]
    has = [fact for (fact, _), row in zip(probes, rows, strict=True) if row not in bad]
    named, unknown = error_strings(args.hipcc)
    text = render(version, lacks, has, named, unknown, probed_with(args.hipcc))
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    return write_or_check(
        out, text, args.check, "probe_device_gaps", f"{len(lacks)} gaps, {len(named)} codes"
    )


if __name__ == "__main__":
    sys.exit(main())
