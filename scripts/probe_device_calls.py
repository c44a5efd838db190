#!/usr/bin/env python3
"""Probe device-function calls CUDA accepts by implicit conversion and HIP's overloads reject.

Usage: probe_device_calls.py [--cuda-include DIR] [--clang PATH] [--hipcc PATH] [--out FILE] [--check]

CUDA often declares a device function once (`int __ffsll(long long)`) where HIP declares several
overloads (`__ffsll(long long)`, `__ffsll(unsigned long long)`): a call with a `uint64_t` (unsigned
long) argument converts implicitly in CUDA and is ambiguous in HIP. For every device function the
mapping tables translate, this script
1. reads CUDA's declarations from clang's AST of cuda_runtime.h + cuda_fp16.h (-D__CUDACC__, as
   scripts/probe_calls.py does): the non-template overloads at global scope and in `extern "C"`;
2. for each declaration and each arithmetic parameter, writes a call with an argument of every other
   arithmetic type (bool, char ... unsigned long long, float, double; the other arguments of the
   declaration's own types) and compiles all of them against CUDA's headers with clang: the calls
   CUDA accepts, and the overload CUDA picks (from the AST);
3. compiles the accepted calls against HIP with hipcc: those HIP rejects (ambiguous, no match);
4. for each, compiles the call with the argument cast to the parameter type of CUDA's overload;
and writes mappings/device-call-casts-<HIP version>.yaml (deterministic; `--check` compares): per
function, argument count and argument, the cast and the argument types that need it. `uniform`:
every CUDA declaration taking that many arguments has that parameter type there, so the cast is what
CUDA does with any argument.
hipify_py/rules/device_casts.py applies it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from probe_calls import _default_clang, _default_cuda_include, _rename, cuda_version  # noqa: E402
from probe_common import hip_version, probed_with, write_or_check  # noqa: E402
from probe_device_functions import _params  # noqa: E402

from hipify_py.data.mappings import load_mappings  # noqa: E402

# The arithmetic types a CUDA argument converts from implicitly (fixed-width typedefs are one of these)
ARITHMETIC = (
    "bool",
    "char",
    "signed char",
    "unsigned char",
    "short",
    "unsigned short",
    "int",
    "unsigned int",
    "long",
    "unsigned long",
    "long long",
    "unsigned long long",
    "float",
    "double",
)
CUDA_HEADERS = ("cuda_runtime.h", "cuda_fp16.h")
PREFIX = "device-call-casts-"  # mappings/<PREFIX><HIP version>.yaml
PROBE = "hipify_probe_"
# `|-FunctionDecl 0x... <range> col:N [used] [referenced] NAME 'TYPE' ...`
_DECL = re.compile(
    r"-FunctionDecl 0x[0-9a-f]+ (?:prev 0x[0-9a-f]+ )?<.*?> (?:<scratch space>:[\d:]+|\S+) "
    r"(?:(?:used|referenced|constexpr|implicit|invalid) )*(\w+) '([^']*)'"
)
_REF = re.compile(
    r"DeclRefExpr 0x[0-9a-f]+ <[^>]*> '[^']*' (?:lvalue )?Function 0x[0-9a-f]+ '(\w+)' '([^']*)'"
)


@dataclass(frozen=True)
class Decl:
    name: str
    params: tuple[str, ...]
    required: int  # parameters without a default argument


def plain(t: str) -> str:
    """A parameter type without top-level const (`const float` -> `float`)."""
    return re.sub(r"^const\s+|\s+const$", "", t.strip())


def signature(function_type: str) -> tuple[str, ...]:
    """Parameter types of a clang function type (`int (long long) noexcept(true)`)."""
    return _params(re.sub(r"\s*noexcept(?:\([^()]*\))?\s*$", "", function_type))


def arithmetic(t: str) -> bool:
    return plain(t) in ARITHMETIC


# -- CUDA's declarations ---------------------------------------------------------------------------
def _clang_cmd(clang: str, include: Path, src: Path, *extra: str) -> list[str]:
    # __CUDACC__ exposes the device declarations; clang ignores their attributes in C++ mode (the
    # headers report errors that do not touch the declarations; clang keeps building the AST)
    cmd = [clang, "-x", "c++", "-std=c++17", "-fsyntax-only", "-D__CUDACC__", "-ferror-limit=0", "-w"]
    return [*cmd, f"-I{include}", *extra, str(src)]


def cuda_declarations(clang: str, include: Path, wanted: set[str]) -> tuple[list[Decl], dict[str, set[str]]]:
    """Non-template declarations of the wanted names at global scope or in a linkage block (also those
    clang marks invalid in C++ mode: CUDA's `float sqrt(float)` clashes with the host's <cmath> there)."""
    found: dict[tuple[str, tuple[str, ...]], int] = {}  # (name, params) -> fewest required arguments
    returns: dict[str, set[str]] = {}  # name -> return types
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "d.cpp"
        src.write_text("".join(f"#include <{h}>\n" for h in CUDA_HEADERS))
        cmd = _clang_cmd(clang, include, src, "-Xclang", "-ast-dump")
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:
            assert proc.stdout is not None
            in_linkage = False
            current: tuple[str, tuple[str, ...], int] | None = None  # name, params, indent
            defaults = 0
            for line in proc.stdout:
                indent = line.find("-") - 1
                if current is not None and indent <= current[2]:
                    key = current[:2]
                    found[key] = min(found.get(key, 99), len(key[1]) - defaults)
                    current = None
                if current is not None:
                    if indent == current[2] + 2 and "-ParmVarDecl " in line and " cinit" in line:
                        defaults += 1
                    continue
                if line.startswith(("|-", "`-")):
                    in_linkage = line[2:].startswith("LinkageSpecDecl")
                elif not (in_linkage and line.startswith(("| |-", "| `-", "  |-", "  `-"))):
                    continue
                m = _DECL.search(line)
                if m is None or m.group(1) not in wanted or " implicit " in line:
                    continue
                current, defaults = (m.group(1), signature(m.group(2)), indent), 0
                returns.setdefault(m.group(1), set()).add(plain(m.group(2).split("(", 1)[0]))
            if current is not None:
                found[current[:2]] = min(found.get(current[:2], 99), len(current[1]) - defaults)
    decls = [Decl(name, params, found[(name, params)]) for name, params in sorted(found)]
    return decls, returns


# -- probes ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Probe:
    name: str
    args: tuple[str, ...]  # CUDA spelling of each argument's type
    varied: int  # the argument whose type differs from the declaration it came from


def probes_for(decls: Iterable[Decl]) -> list[Probe]:
    """Each declaration's calls (every argument count it accepts) with one arithmetic argument of
    another arithmetic type."""
    seen: dict[tuple[str, tuple[str, ...]], Probe] = {}
    for d in decls:
        for count in range(max(d.required, 1), len(d.params) + 1):
            for k, p in enumerate(d.params[:count]):
                if not arithmetic(p):
                    continue
                for t in ARITHMETIC:
                    if t == plain(p):
                        continue
                    args = tuple(plain(q) if j != k else t for j, q in enumerate(d.params[:count]))
                    seen.setdefault((d.name, args), Probe(d.name, args, k))
    return [seen[k] for k in sorted(seen)]


def _source(
    probes: Sequence[Probe], header: str, names: Mapping[str, str], casts: Sequence[str | None] | None = None
) -> tuple[str, list[int]]:
    lines = header.splitlines()
    rows = []
    for i, p in enumerate(probes):
        params = ", ".join(f"{_rename(t, names)} a{k}" for k, t in enumerate(p.args))
        args = [f"a{k}" for k in range(len(p.args))]
        cast = casts[i] if casts else None
        if cast:
            args[p.varied] = f"static_cast<{_rename(cast, names)}>(a{p.varied})"
        call = f"{names.get(p.name, p.name)}({', '.join(args)})"
        lines.append(f"__device__ void {PROBE}{i}({params}) {{ (void){call}; }}")
        rows.append(len(lines))
    return "\n".join(lines) + "\n", rows


def _errors(stderr: str, file: str) -> dict[int, str]:
    errors: dict[int, str] = {}
    for m in re.finditer(rf"{re.escape(file)}:(\d+):\d+: error: ([^\n]*)", stderr):
        errors.setdefault(int(m.group(1)), m.group(2))
    return errors


def cuda_choices(clang: str, include: Path, probes: Sequence[Probe]) -> list[tuple[str, ...] | None]:
    """Per probe: the parameter types of the overload CUDA calls (None: CUDA rejects the call)."""
    header = "".join(f"#include <{h}>\n" for h in CUDA_HEADERS)
    source, rows = _source(probes, header, {})
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "c.cpp"
        src.write_text(source)
        cmd = _clang_cmd(clang, include, src, "-Xclang", "-ast-dump", "-Xclang", f"-ast-dump-filter={PROBE}")
        proc = subprocess.run(cmd, capture_output=True, text=True)
    errors = _errors(proc.stderr, "c.cpp")
    chosen: dict[int, tuple[str, ...]] = {}
    current = -1
    for line in proc.stdout.splitlines():
        m = re.search(rf"FunctionDecl 0x[0-9a-f]+ .* {PROBE}(\d+) '", line)
        if m:
            current = int(m.group(1))
            continue
        r = _REF.search(line)
        if r and current >= 0 and current not in chosen and r.group(1) == probes[current].name:
            chosen[current] = signature(r.group(2))
    return [None if rows[i] in errors else chosen.get(i) for i in range(len(probes))]


def hip_errors(
    hipcc: str, probes: Sequence[Probe], names: Mapping[str, str], casts: Sequence[str | None] | None = None
) -> list[str | None]:
    source, rows = _source(probes, "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n", names, casts)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "h.hip"
        path.write_text(source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-ferror-limit=0", "-w"]
        cmd.append(str(path))
        proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"))
    errors = _errors(proc.stderr, "h.hip")
    return [errors.get(row) for row in rows]


# -- facts -----------------------------------------------------------------------------------------
CALL_ERROR = re.compile(r"call to '\w+' is ambiguous|no matching function for call to")


def derive(
    decls: Sequence[Decl], names: Mapping[str, str], clang: str, include: Path, hipcc: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Casts that make HIP accept calls CUDA accepts; and the calls no cast fixes."""
    probes = probes_for(decls)
    choices = cuda_choices(clang, include, probes)
    accepted = [(p, c) for p, c in zip(probes, choices, strict=True) if c is not None]
    errors = hip_errors(hipcc, [p for p, _ in accepted], names)
    # only the call's own errors: another error is the probe's limit (a CUDA type HIP lacks)
    failing = [(p, c, e) for (p, c), e in zip(accepted, errors, strict=True) if e and CALL_ERROR.search(e)]
    casts = [plain(c[p.varied]) for p, c, _ in failing]
    fixed = hip_errors(hipcc, [p for p, _, _ in failing], names, casts)
    # the parameter types CUDA may convert argument `arg` of a call with `count` arguments to
    targets: dict[tuple[str, int, int], set[str]] = {}
    for d in decls:
        for count in range(d.required, len(d.params) + 1):
            for k in range(count):
                targets.setdefault((d.name, count, k), set()).add(plain(d.params[k]))
    for p, c in accepted:
        for k, t in enumerate(c[: len(p.args)]):
            targets.setdefault((p.name, len(p.args), k), set()).add(plain(t))
    grouped: dict[tuple[str, int, int, str], set[str]] = {}
    notes: dict[tuple[str, int, int, str], dict[str, Any]] = {}
    for (p, chosen, _), cast, after in zip(failing, casts, fixed, strict=True):
        if after is None:
            grouped.setdefault((p.name, len(p.args), p.varied, cast), set()).add(p.args[p.varied])
            continue
        # usually HIP lacks CUDA's overload itself (the cast call fails too): another matter
        overload = ", ".join(plain(t) for t in chosen[: len(p.args)])
        key = (p.name, len(p.args), p.varied, overload)
        first = {
            "cuda": p.name,
            "arguments": key[1],
            "arg": key[2],
            "cuda_overload": overload,
            "types": set(),
        }
        note = notes.setdefault(key, first)
        note["types"].add(p.args[p.varied])
        note["error_with_cast"] = after
    rows = []
    for (name, count, arg, cast), types in sorted(grouped.items()):
        row: dict[str, Any] = {"cuda": name, "arguments": count, "arg": arg, "cast": cast}
        row["uniform"] = targets.get((name, count, arg)) == {cast}
        row["types"] = [t for t in ARITHMETIC if t in types]
        rows.append(row)
    for note in notes.values():
        note["types"] = [t for t in ARITHMETIC if t in note["types"]]
    return rows, [notes[k] for k in sorted(notes)]


def result_types(returns: Mapping[str, set[str]]) -> dict[str, str]:
    """Functions whose every CUDA declaration returns one arithmetic type: a call's type is known
    (`__ffs(__activemask())` takes an unsigned int: no cast)."""
    return {
        name: next(iter(types))
        for name, types in sorted(returns.items())
        if len(types) == 1 and arithmetic(next(iter(types)))
    }


def render(
    version: str,
    cuda: str,
    rows: list[dict[str, Any]],
    notes: list[dict[str, Any]],
    returns: Mapping[str, str],
    source: str,
) -> str:
    def line(row: Mapping[str, Any]) -> str:
        text = yaml.safe_dump(dict(row), default_flow_style=True, sort_keys=False, width=1 << 16)
        return "- " + text.strip()

    out = [
        "# Generated by scripts/probe_device_calls.py: do not edit. Facts of the installed headers:",
        f"# calls of device functions CUDA {cuda} accepts by implicit conversion (clang AST of its headers)",
        f"# that HIP {version}'s overloads reject (hipcc), and the cast to CUDA's parameter type that fixes",
        "# them. `types`: argument types that need the cast; `uniform`: every CUDA declaration taking this",
        "# many arguments has this parameter type there (the cast is CUDA's own conversion, whatever the",
        "# argument's type).",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        f"cuda_version: '{cuda}'",
        "casts:",
        *(line(r) for r in rows),
        "# the one type each of these CUDA device functions returns (a call argument's type)",
        "returns:",
        *(f"  {name}: {type_}" for name, type_ in returns.items()),
        "# calls CUDA accepts that the cast does not make HIP accept (documentation, not used by the rule;",
        "# where the call with CUDA's parameter types fails too, HIP lacks that overload)",
        "unresolved:",
        *(line(n) for n in notes),
    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-include", type=Path, default=_default_cuda_include())
    parser.add_argument("--clang", default=_default_clang())
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--out", type=Path, default=None, help=f"default: mappings/{PREFIX}<HIP>.yaml")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh probe")
    args = parser.parse_args(argv)
    if args.cuda_include is None or not (args.cuda_include / "cuda_runtime_api.h").is_file():
        print("error: no CUDA headers (give --cuda-include DIR with cuda_runtime_api.h)", file=sys.stderr)
        return 2
    mappings = load_mappings()
    names = {e.cuda: e.hip for e in mappings.by_cuda.values() if e.hip}
    # every CUDA device function's result type (also the warp-sync ones version-adaptations.yaml
    # rewrites: `__ffs(__activemask())`); probes for those HIP has
    device = {e.cuda for e in mappings.by_cuda.values() if e.family == "device" and e.kind == "function"}
    adaptations = yaml.safe_load((REPO / "mappings" / "hand-kept" / "version-adaptations.yaml").read_text())
    device |= {row["cuda"] for row in adaptations.get("adaptations") or ()}
    decls, returns = cuda_declarations(args.clang, args.cuda_include, device)
    decls = [d for d in decls if d.name in names]
    version = hip_version(args.hipcc)
    rows, notes = derive(decls, names, args.clang, args.cuda_include, args.hipcc)
    text = render(
        version, cuda_version(args.cuda_include), rows, notes, result_types(returns), probed_with(args.hipcc)
    )
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    return write_or_check(
        out,
        text,
        args.check,
        "probe_device_calls",
        f"{len(decls)} CUDA declarations, {len(rows)} casts, {len(notes)} unresolved",
    )


if __name__ == "__main__":
    sys.exit(main())
