#!/usr/bin/env python3
"""Probe `x = {...}` assignments to CUDA value types that nvcc accepts and HIP's types reject.

Usage: probe_brace_assign.py [--cuda-include DIR] [--nvcc PATH] [--hipcc PATH] [--out FILE] [--check]

HIP's __half/__half2 (and its vector types) declare several `operator=` overloads, so `h = {};` is
ambiguous on ROCm where nvcc takes it. For every value type CUDA's vector_types.h, cuda_fp16.h and
cuda_bf16.h define (and its HIP name from the mapping tables), and every braced list from `{}` to four
elements, this script
1. compiles `x = {1, 2, ...}` with nvcc (the CUDA compiler itself: clang's C++ rules reject some
   forms EDG accepts) and with hipcc;
2. where nvcc accepts and hipcc rejects, compiles `x = T{1, 2, ...}` with hipcc;
3. runs both on the host (nvcc's `x = {...}` and hipcc's `x = T{...}`, x filled with 0xab before)
   and compares the bytes of x: the rewrite must mean what CUDA meant (HIP's `float4{1}` broadcasts
   where CUDA's `{1}` zero-fills: such a form is recorded as unresolved, never rewritten);
and writes mappings/brace-assign-<HIP version>.yaml (deterministic; `--check` compares).
hipify_py/rules/brace_assign.py applies it where the file declares x's type.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from probe_calls import _default_cuda_include, _rename, cuda_version  # noqa: E402
from probe_common import hip_version, probed_with, run_built, write_or_check  # noqa: E402

from hipify_py.data.mappings import load_mappings  # noqa: E402

PREFIX = "brace-assign-"  # mappings/<PREFIX><HIP version>.yaml
CUDA_TYPE_HEADERS = ("vector_types.h", "cuda_fp16.h", "cuda_bf16.h")
HIP_HEADERS = ("hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_bfloat16.h")
MAX_ELEMENTS = 4
# `struct [attributes] NAME {`, `__cuda_builtin_vector_align8(NAME, ...)` and
# `typedef [attributes] [struct] NAME [attributes] ALIAS;` in CUDA's type headers
_STRUCT = re.compile(r"^\s*struct\b[^;{]*?(\w+)\s*\{|^__cuda_builtin_vector_align8\(\s*(\w+)", re.M)
_TYPEDEF = re.compile(
    r"^\s*typedef\s+(?:__device_builtin__\s+)?(?:struct\s+)?(\w+)\s+(?:\w+\(\"[^\"]*\"\)\s+)?(\w+)\s*;", re.M
)


def cuda_types(include: Path) -> list[str]:
    """Struct types CUDA's type headers define, and their typedef names (not the *_raw storage)."""
    structs: set[str] = set()
    aliases: dict[str, str] = {}
    for header in CUDA_TYPE_HEADERS:
        text = (include / header).read_text(errors="replace")
        structs.update(m.group(1) or m.group(2) for m in _STRUCT.finditer(text))
        aliases.update((m.group(2), m.group(1)) for m in _TYPEDEF.finditer(text))
    names = structs | {alias for alias, target in aliases.items() if target in structs}
    return sorted(n for n in names if not n.endswith("_raw") and not n.startswith("__cuda"))


# Element kinds of a braced list: integer literals, float literals, values of the type's member `x`
# (a __half for __half2, the scalar for a vector type). The meaning may differ by kind (CUDA may
# take `{1, 2}` as the raw storage and `{h, l}` through a constructor), so each is probed.
KINDS = ("int", "float")
Form = tuple[str, int, str]  # type, elements, kind ("int", "float", "member:<type of x>")
SCALARS = (
    "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
    "unsigned long", "long long", "unsigned long long", "float", "double",
)  # fmt: skip


def member_types(nvcc_cmd: list[str], headers: Sequence[str], types: Sequence[str]) -> dict[str, str]:
    """CUDA type -> the type of its member `x` (for types that have one), asked from nvcc."""
    candidates = [*SCALARS, *types]
    lines = [f"#include <{h}>" for h in headers] + ["#include <type_traits>"]
    rows: dict[int, tuple[str, str]] = {}
    for t in types:
        for c in candidates:
            lines.append(f'static_assert(std::is_same<decltype((({t}*)0)->x), {c}>::value, "");')
            rows[len(lines)] = (t, c)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.cu"
        path.write_text("\n".join(lines) + "\n")
        proc = _run([*nvcc_cmd, "-c", "-o", os.devnull, str(path)])
    errors = _errors(proc.stderr + proc.stdout, path.name)
    found: dict[str, str] = {}
    for row, (t, c) in rows.items():
        if row not in errors:
            found.setdefault(t, c)
    return found


def _forms(types: Sequence[str], members: Mapping[str, str]) -> list[Form]:
    forms: list[Form] = []
    for t in types:
        forms.append((t, 0, "none"))
        kinds = [*KINDS, f"member:{members[t]}"] if t in members else KINDS
        forms += [(t, k, kind) for k in range(1, MAX_ELEMENTS + 1) for kind in kinds]
    return forms


def _elements(k: int, kind: str) -> str:
    if kind == "int":
        return ", ".join(str(i + 1) for i in range(k))
    if kind == "float":
        return ", ".join(f"{i + 1}.5f" for i in range(k))
    if not k:
        return ""
    member = kind.split(":", 1)[1]
    return ", ".join(f"{member}({i + 1})" for i in range(k))


def _syntax_source(
    headers: Sequence[str], forms: Sequence[Form], typed: bool, where: str = "__device__"
) -> tuple[str, list[int]]:
    lines = [f"#include <{h}>" for h in headers]
    rows = []
    for i, (t, k, kind) in enumerate(forms):
        braces = "{" + _elements(k, kind) + "}"
        value = f"{t}{braces}" if typed else braces
        lines.append(f"{where} void probe_{i}({t} &x) {{ x = {value}; }}")
        rows.append(len(lines))
    return "\n".join(lines) + "\n", rows


def _errors(stderr: str, name: str) -> set[int]:
    # nvcc: `file.cu(12): error: ...`; hipcc: `file.hip:12:5: error: ...`
    pattern = rf"{re.escape(name)}(?:\((\d+)\)|:(\d+):\d+): error"
    return {int(m.group(1) or m.group(2)) for m in re.finditer(pattern, stderr)}


def _run(cmd: list[str], env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})))


def accepted(
    compiler: list[str], suffix: str, headers: Sequence[str], forms, typed: bool, env=None, where="__device__"
) -> list[bool]:
    source, rows = _syntax_source(headers, forms, typed, where)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"p{suffix}"
        path.write_text(source)
        proc = _run([*compiler, str(path)], env)
    errors = _errors(proc.stderr + proc.stdout, path.name)
    return [row not in errors for row in rows]


def _dump_source(headers: Sequence[str], forms: Sequence[Form], typed: bool) -> str:
    source, _ = _syntax_source(headers, forms, typed, "__host__ __device__")
    lines = [source.rstrip("\n"), "#include <cstdio>", "#include <cstring>", "int main() {"]
    for i, (t, _k, _kind) in enumerate(forms):
        lines += [
            f"  {{ {t} x; std::memset((void*)&x, 0xab, sizeof x); probe_{i}(x);",
            "    const unsigned char* p = (const unsigned char*)&x;",
            f'    std::printf("{i}"); for (unsigned i = 0; i < sizeof x; i++) std::printf(" %02x", p[i]);',
            '    std::printf("\\n"); }',
        ]
    return "\n".join([*lines, "  return 0;", "}"]) + "\n"


def host_bytes(
    compiler: list[str], suffix: str, headers, forms, typed: bool, env=None, runner: Sequence[str] = ()
) -> dict[int, str]:
    """Per form: the bytes of x after the assignment, run on the host (through `runner`: run_built)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"d{suffix}"
        src.write_text(_dump_source(headers, forms, typed))
        exe = Path(tmp) / "d"
        proc = _run([*compiler, str(src), "-o", str(exe)], env)
        if proc.returncode != 0:
            raise SystemExit(f"host probe does not build:\n{proc.stderr[-3000:]}")
        done = _run([*runner, str(exe)])
        if done.returncode != 0:  # why: a program that cannot start would read as "every form differs"
            raise SystemExit(f"host probe does not run:\n{done.stderr[-3000:]}")
        out = done.stdout
    return {int(line.split()[0]): line.split(" ", 1)[1] for line in out.splitlines() if " " in line}


def derive(types: Sequence[str], names: Mapping[str, str], nvcc: str, hipcc: str, include: Path):
    hip_env = {"HIP_PLATFORM": "amd"}
    # no error limits: every form's error must be seen
    nvcc_cmd = [nvcc, "-std=c++17", "-Xcudafe", "--error_limit=100000", "-I", str(include)]
    hipcc_cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-w", "-ferror-limit=0"]
    cuda_headers = ["cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h"]
    # the HIP spelling of each CUDA type; types HIP lacks drop out (their declaration does not compile)
    hip_types = {t: names.get(t, t) for t in types}
    exists = accepted(
        [*hipcc_cmd, "-fsyntax-only"],
        ".hip",
        HIP_HEADERS,
        [(h, 0, "none") for h in hip_types.values()],
        True,
        hip_env,
    )
    hip_types = {t: h for (t, h), ok in zip(hip_types.items(), exists, strict=True) if ok}
    forms = _forms(list(hip_types), member_types(nvcc_cmd, cuda_headers, list(hip_types)))
    cuda_ok = accepted([*nvcc_cmd, "-c", "-o", os.devnull], ".cu", cuda_headers, forms, False)
    hip_forms = [(hip_types[t], k, _rename(kind, names)) for t, k, kind in forms]
    hip_ok = accepted([*hipcc_cmd, "-fsyntax-only"], ".hip", HIP_HEADERS, hip_forms, False, hip_env)
    relevant = [i for i in range(len(forms)) if cuda_ok[i]]
    typed_ok = accepted(
        [*hipcc_cmd, "-fsyntax-only"], ".hip", HIP_HEADERS, [hip_forms[i] for i in relevant], True, hip_env
    )
    fixable = [i for i, ok in zip(relevant, typed_ok, strict=True) if ok]
    # what CUDA's assignment sets: run on the host where the host compiler takes the form too
    # (device code cannot run here); `{}` the host compiler rejects is value-initialisation: zeros
    on_host = accepted(
        [*nvcc_cmd, "-c", "-o", os.devnull],
        ".cu",
        cuda_headers,
        [forms[i] for i in fixable],
        False,
        where="__host__",
    )
    runnable = [i for i, ok in zip(fixable, on_host, strict=True) if ok]
    cuda_run = host_bytes(nvcc_cmd, ".cu", cuda_headers, [forms[i] for i in runnable], False)
    hip_run = host_bytes(
        hipcc_cmd, ".hip", HIP_HEADERS, [hip_forms[i] for i in fixable], True, hip_env, run_built(hipcc)
    )
    expected = {runnable[j]: cuda_run.get(j) for j in range(len(runnable))}
    same = set()
    for j, i in enumerate(fixable):
        got = hip_run.get(j)
        want = expected.get(i)
        if want is None and forms[i][1] == 0 and got is not None:
            want = " ".join(["00"] * len(got.split()))
        if got is not None and got == want:
            same.add(i)
    # per (type, elements): HIP rejects some kind CUDA takes -> rewrite when `T{...}` means CUDA's
    # meaning for every kind CUDA takes (elements of any of them may be written), else unresolved
    by_count: dict[tuple[str, int], list[int]] = {}
    for i in relevant:
        by_count.setdefault(forms[i][:2], []).append(i)
    rows: dict[str, dict[str, Any]] = {}
    for (t, k), indices in sorted(by_count.items()):
        if all(hip_ok[i] for i in indices):
            continue
        row = rows.setdefault(t, {"cuda": t, "hip": hip_types[t], "rewrite": [], "unresolved": []})
        row["rewrite" if all(i in same for i in indices) else "unresolved"].append(k)
    return [rows[t] for t in sorted(rows)]


def render(version: str, cuda: str, rows: list[dict[str, Any]], source: str) -> str:
    def line(row: Mapping[str, Any]) -> str:
        text = yaml.safe_dump(dict(row), default_flow_style=True, sort_keys=False, width=1 << 16)
        return "- " + text.strip()

    out = [
        "# Generated by scripts/probe_brace_assign.py: do not edit. Facts of the installed compilers:",
        f"# `x = {{...}}` with n elements (`rewrite`/`unresolved`: n) that nvcc (CUDA {cuda}) accepts and",
        f"# HIP {version}'s type rejects (for integer, float or member-typed elements); `rewrite`:",
        "# `x = T{...}` compiles with hipcc and sets the same bytes as nvcc's assignment (run on the",
        "# host) for every element kind nvcc accepts; `unresolved`: not so (reported, HIP130).",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        f"cuda_version: '{cuda}'",
        "types:",
        *(line(r) for r in rows),
    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-include", type=Path, default=_default_cuda_include())
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--out", type=Path, default=None, help=f"default: mappings/{PREFIX}<HIP>.yaml")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh probe")
    args = parser.parse_args(argv)
    if args.cuda_include is None or not (args.cuda_include / "cuda_fp16.h").is_file():
        print("error: no CUDA headers (give --cuda-include DIR with cuda_fp16.h)", file=sys.stderr)
        return 2
    names = {e.cuda: e.hip for e in load_mappings().by_cuda.values() if e.hip}
    version = hip_version(args.hipcc)
    rows = derive(cuda_types(args.cuda_include), names, args.nvcc, args.hipcc, args.cuda_include)
    text = render(version, cuda_version(args.cuda_include), rows, probed_with(args.hipcc))
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    return write_or_check(out, text, args.check, "probe_brace_assign", f"{len(rows)} types")


if __name__ == "__main__":
    sys.exit(main())
