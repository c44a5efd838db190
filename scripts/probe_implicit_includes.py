#!/usr/bin/env python3
"""List the C library functions nvcc declares in every .cu and hip/hip_runtime.h does not.

Usage: probe_implicit_includes.py [--hipcc PATH] [--nvcc PATH] [--out FILE] [--check]

nvcc includes cuda_runtime.h in every .cu, and it brings <string.h>, <time.h>, <stdlib.h>... along
(crt/common_functions.h), so CUDA code calls `strlen` or `memcpy` without including anything. HIP 5.2
and 6.x headers did the same; ROCm 7's hip_runtime.h no longer does, and the same translated call fails
(`use of undeclared identifier 'strlen'`, or for memcpy/memset `no matching function`: only HIP's
__device__ overloads are left). This calls each function of CANDIDATES from a host function, compiles
the file once with nvcc (no include at all: what every .cu sees) and once with hipcc after
`#include <hip/hip_runtime.h>` (host side), and keeps the functions nvcc accepts and hipcc rejects,
with the C header that declares them. Needs both compilers. Writes
mappings/implicit-includes-<version>.yaml (read by rules/implicit_includes.py). Deterministic;
`--check` compares.
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

from probe_common import hip_version, host_only_failures, probed_with, write_or_check  # noqa: E402

PREFIX = "implicit-includes-"
_ERROR = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)
_NVCC_ERROR = re.compile(r"^probe\.cu\((\d+)\): error", re.MULTILINE)

# The C headers crt/common_functions.h and crt/math_functions.h include, and a call of each of their
# common functions with arguments of the declared types (the variables of DECLS).
CANDIDATES: dict[str, tuple[str, ...]] = {
    "string.h": (
        "memcpy(p, cp, n)",
        "memmove(p, cp, n)",
        "memset(p, i, n)",
        "memcmp(cp, cp, n)",
        "memchr(cp, i, n)",
        "strcpy(s, cs)",
        "strncpy(s, cs, n)",
        "strcat(s, cs)",
        "strncat(s, cs, n)",
        "strcmp(cs, cs)",
        "strncmp(cs, cs, n)",
        "strlen(cs)",
        "strchr(cs, i)",
        "strrchr(cs, i)",
        "strstr(cs, cs)",
        "strspn(cs, cs)",
        "strcspn(cs, cs)",
        "strpbrk(cs, cs)",
        "strtok(s, cs)",
        "strerror(i)",
        "strdup(cs)",
        "strnlen(cs, n)",
        "strcoll(cs, cs)",
    ),
    "time.h": (
        "clock()",
        "time(tp)",
        "difftime(t, t)",
        "mktime(tmp)",
        "localtime(&t)",
        "gmtime(&t)",
        "strftime(s, n, cs, tmp)",
        "ctime(&t)",
        "asctime(tmp)",
        "clock_gettime(0, tsp)",
        "nanosleep(tsp, tsp)",
    ),
    "stdlib.h": (
        "malloc(n)",
        "calloc(n, n)",
        "realloc(p, n)",
        "free(p)",
        "exit(i)",
        "abort()",
        "atexit(cb)",
        "atoi(cs)",
        "atol(cs)",
        "atoll(cs)",
        "atof(cs)",
        "strtol(cs, &s, i)",
        "strtoul(cs, &s, i)",
        "strtoll(cs, &s, i)",
        "strtoull(cs, &s, i)",
        "strtod(cs, &s)",
        "strtof(cs, &s)",
        "rand()",
        "srand(u)",
        "qsort(p, n, n, cmp)",
        "bsearch(cp, cp, n, n, cmp)",
        "getenv(cs)",
        "system(cs)",
        "abs(i)",
        "labs(l)",
        "llabs(ll)",
        "posix_memalign(&p, n, n)",
        "aligned_alloc(n, n)",
        "drand48()",
        "srand48(l)",
        "random()",
        "srandom(u)",
    ),
    "assert.h": ("assert(i)",),
    "math.h": (
        "sqrt(d)",
        "pow(d, d)",
        "exp(d)",
        "log(d)",
        "fabs(d)",
        "floor(d)",
        "ceil(d)",
        "sqrtf(f)",
        "expf(f)",
        "logf(f)",
        "fabsf(f)",
        "fmaxf(f, f)",
        "fminf(f, f)",
        "round(d)",
        "fmod(d, d)",
        "sin(d)",
        "cos(d)",
        # C99's classification macros: crt/math_functions.h declares global host overloads of them;
        # libstdc++'s <cmath> #undefs the macros and declares std::isfinite... only
        "isfinite(d)",
        "isinf(d)",
        "isnan(d)",
        "isnormal(d)",
        "signbit(d)",
        "fpclassify(d)",
        "isgreater(d, d)",
        "isgreaterequal(d, d)",
        "isless(d, d)",
        "islessequal(d, d)",
        "islessgreater(d, d)",
        "isunordered(d, d)",
    ),
    # headers nvcc might bring along too (measured: it does not, they stay empty); a macro is probed
    # as an expression, though the rule looks for calls only
    "stdio.h": ("printf(cs)", "puts(cs)", "sprintf(s, cs)", "snprintf(s, n, cs)", "perror(cs)"),
    "limits.h": ("INT_MAX", "INT_MIN", "UINT_MAX", "LONG_MAX", "CHAR_BIT"),
    "float.h": ("FLT_MAX", "FLT_MIN", "FLT_EPSILON", "DBL_MAX", "DBL_EPSILON"),
    "stdint.h": ("int32_t(i)", "uint64_t(i)", "uintptr_t(p)", "INT32_MAX", "SIZE_MAX"),
}
DECLS = (
    "extern void* p; extern const void* cp; extern char* s; extern const char* cs; extern unsigned long n;"
    " extern int i; extern unsigned u; extern long l; extern long long ll; extern double d; extern float f;"
    " extern long t; extern long* tp; extern struct tm* tmp; extern struct timespec* tsp;"
    " extern int (*cmp)(const void*, const void*); extern void (*cb)(void);"
)


def probe_source(include: str) -> tuple[str, dict[int, tuple[str, str]]]:
    """One host function per call (each on its own line); line -> (header, function name)."""
    lines = [include, DECLS.replace(" long t;", " time_t t;").replace("long* tp", "time_t* tp")]
    where: dict[int, tuple[str, str]] = {}
    for header, calls in CANDIDATES.items():
        for call in calls:
            lines.append(f"void probe_{len(where)}() {{")
            lines.append(f"  (void)({call});")
            where[len(lines)] = (header, call.partition("(")[0])
            lines.append("}")
    return "\n".join(lines) + "\n", where


def missing(hipcc: str, nvcc: str) -> dict[str, list[str]]:
    """header -> the functions nvcc declares implicitly and the HIP headers do not, for host code."""
    hip_source, where = probe_source("#include <hip/hip_runtime.h>")
    cuda_source, cuda_where = probe_source("// nothing included: nvcc's implicit cuda_runtime.h only")
    assert where == cuda_where
    found: dict[str, list[str]] = {}
    for line in sorted(host_only_failures(hipcc, nvcc, hip_source, cuda_source, set(where))):
        header, name = where[line]
        found.setdefault(header, []).append(name)
    return {h: sorted(names) for h, names in sorted(found.items())}


def hip_failures(hipcc: str, source: str) -> set[int]:
    """The lines of `source` whose host code hipcc rejects."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "probe.hip").write_text(source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "--cuda-host-only"]
        cmd += ["-fsyntax-only", "-ferror-limit=0", "-w", "probe.hip"]
        env = dict(os.environ, HIP_PLATFORM="amd")
        out = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env).stderr
    return {int(m.group(1)) for m in _ERROR.finditer(out)}


def cxx_spellings(hipcc: str, found: dict[str, list[str]]) -> list[str]:
    """The headers whose C++ spelling (<cstring> for string.h) declares the same names for host code.

    The rule counts an include of either spelling as enough only for these: <cmath> #undefs C's
    isfinite/isnan... macros and declares only std::isfinite, so host `isfinite(x)` still fails after
    it (nvcc's math_functions.h declares global overloads). The C spelling must fix them all."""
    same = []
    for header in found:
        cxx = "c" + header.removesuffix(".h")
        for include in (header, cxx):
            source, where = probe_source(f"#include <hip/hip_runtime.h>\n#include <{include}>")
            lines = {line for line, (h, _) in where.items() if h == header}
            left = hip_failures(hipcc, source) & {line + 1 for line in lines}  # why +1: one more include line
            if include == header and left:
                raise SystemExit(f"<{header}> does not declare what the probe found missing")
            if include == cxx and not left:
                same.append(header)
    return same


def render(version: str, found: dict[str, list[str]], source: str, same: Sequence[str] = ()) -> str:
    lines = [
        "# Generated by scripts/probe_implicit_includes.py: do not edit. C library functions nvcc declares",
        "# in every .cu (its implicit cuda_runtime.h includes their header) that hip/hip_runtime.h of HIP",
        f"# {version} does not declare for host code: a translated call needs the header",
        "# (rules/implicit_includes.py, HIP135).",
        f"# Probed with {source} and nvcc.",
        f"hip_version: '{version}'",
        "headers:" if found else "headers: {}",
    ]
    for header, names in found.items():
        lines.append(f"  {header}: [{', '.join(names)}]")
    if found:
        lines.append("# headers whose C++ spelling (<cstring>) declares the same for host code")
        lines.append(f"cxx_spelling: [{', '.join(same)}]")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    version = hip_version(args.hipcc)
    found = missing(args.hipcc, args.nvcc)
    text = render(version, found, probed_with(args.hipcc), cxx_spellings(args.hipcc, found))
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    count = sum(len(v) for v in found.values())
    return write_or_check(out, text, args.check, "probe_implicit_includes", f"{count} functions")


if __name__ == "__main__":
    sys.exit(main())
