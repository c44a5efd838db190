#!/usr/bin/env python3
"""Probe the installed CUDA and HIP headers for calls that need more than a new name.

Usage: probe_calls.py [--cuda-include DIR] [--clang PATH] [--hipcc PATH] [--out FILE] [--check]

For every CUDA runtime/driver function the mapping tables translate to HIP (C declarations and the
C++ template overloads of cuda_runtime.h alike), this script
1. reads CUDA's declarations from clang's AST of cuda_runtime.h + cuda.h: parameters, default
   arguments, template parameters;
2. compiles one probe per (function, argument count) against HIP with hipcc: a call with the CUDA
   argument types (renamed to HIP) and, for template overloads, arguments of a user's typical types
   (`float**` for `T**`, a __global__ function for a kernel, a __device__ variable for a symbol);
3. where the HIP call does not compile but does with casts to the C declaration's parameter types
   and/or CUDA's default values appended, records those changes;
and writes mappings/call-probes-<HIP version>.yaml (deterministic; `--check` compares). Each fact says
for which number of arguments in the CUDA call it holds. It also records each function's CUDA argument
counts (`arity`), so facts written for the C API are not applied to other overloads.

Nothing here is a hand list: rerun it with another CUDA or HIP installed and the facts follow.
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from probe_common import hip_version, probed_with, write_or_check  # noqa: E402

PREFIX = "call-probes-"

from hipify_py.data.mappings import load_mappings  # noqa: E402

FAMILIES = ("runtime", "driver")
PROBE_HEADER = (
    "#include <hip/hip_runtime.h>\n__global__ void probe_kernel(int) {}\n__device__ float probe_symbol;\n"
)
_IDENT = re.compile(r"[A-Za-z_]\w*")
KERNEL_PARAM = re.compile(r"(?i)^(?:func|entry|f|kernel|\w*func)$")
SYMBOL_PARAM = re.compile(r"(?i)symbol")


@dataclass
class Param:
    name: str
    type: str  # CUDA spelling of the type, as clang prints it
    default: str | None  # C text of the default argument (None: none, "?": one we cannot print)


@dataclass
class Decl:
    cuda: str
    params: list[Param]
    template: list[str] = field(default_factory=list)  # template type parameter names ([] = C API)

    @property
    def required(self) -> int:
        return sum(1 for p in self.params if p.default is None)


# -- CUDA declarations from clang's AST ------------------------------------------------------------
def cuda_declarations(clang: str, include: Path, wanted: set[str]) -> list[Decl]:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "p.cpp"
        src.write_text("#include <cuda_runtime.h>\n#include <cuda.h>\n")
        # __CUDACC__ exposes cuda_runtime.h's template overloads; the device headers then report errors
        # that do not matter for host declarations (clang keeps building the AST)
        cmd = [clang, "-x", "c++", "-std=c++17", "-fsyntax-only", "-D__CUDACC__", "-ferror-limit=0"]
        cmd += [f"-I{include}", "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter=cu", str(src)]
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
    decls: list[Decl] = []
    for node in _json_objects(out):
        if node.get("name") not in wanted or node.get("isImplicit"):
            continue
        if node.get("kind") == "FunctionDecl":
            decl = _function(node, [])
        elif node.get("kind") == "FunctionTemplateDecl":
            inner = node.get("inner", [])
            names = [n.get("name", "") for n in inner if n.get("kind") == "TemplateTypeParmDecl"]
            if any(n.get("kind") == "TemplateTypeParmDecl" and n.get("isParameterPack") for n in inner):
                continue  # variadic templates (cudaLaunchKernelEx): nothing a probe can instantiate
            if any(n.get("kind") == "NonTypeTemplateParmDecl" for n in inner):
                continue
            function = next((n for n in inner if n.get("kind") == "FunctionDecl"), None)
            decl = _function(function, names) if function else None
        else:
            continue
        if decl is not None and decl not in decls:
            decls.append(decl)
    return decls


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos] not in "{":
            pos += 1
        if pos >= len(text):
            return
        obj, pos = decoder.raw_decode(text, pos)
        yield obj


def _function(node: Mapping[str, Any], template: list[str]) -> Decl | None:
    params = []
    for p in node.get("inner", []):
        if p.get("kind") != "ParmVarDecl":
            continue
        default = None
        if p.get("init") == "c":
            default = _expr_text(p["inner"][0]) if p.get("inner") else "?"
        params.append(Param(p.get("name", f"a{len(params)}"), p["type"]["qualType"], default))
    return Decl(node["name"], params, template)


def _expr_text(e: Mapping[str, Any]) -> str:
    """C text of a default argument (the simple forms CUDA uses); '?' for anything else."""
    kind = e.get("kind")
    inner = e.get("inner", [])
    if kind in ("ImplicitCastExpr", "ConstantExpr", "ParenExpr", "ExprWithCleanups") and inner:
        return _expr_text(inner[0])
    if kind == "IntegerLiteral":
        return str(e["value"])
    if kind == "DeclRefExpr":
        return str(e["referencedDecl"]["name"])
    if kind == "CXXNullPtrLiteralExpr":
        return "nullptr"
    if kind == "GNUNullExpr":
        return "NULL"
    if kind == "CXXBoolLiteralExpr":
        return "true" if e.get("value") else "false"
    if kind == "CStyleCastExpr" and inner:
        text = _expr_text(inner[0])
        return "?" if text == "?" else f"({e['type']['qualType']}){text}"
    return "?"


# -- probes against HIP ----------------------------------------------------------------------------
def _rename(text: str, names: Mapping[str, str]) -> str:
    return _IDENT.sub(lambda m: names.get(m.group(), m.group()), text)


def _instantiate(param: Param, template: list[str]) -> tuple[str, str | None]:
    """(declaration type for a probe parameter, or '' for a global expression; the expression)."""
    if not any(re.search(rf"\b{re.escape(t)}\b", param.type) for t in template):
        return param.type, None
    if SYMBOL_PARAM.search(param.name):
        return "", "probe_symbol"
    if KERNEL_PARAM.match(param.name):
        return "", "probe_kernel"
    concrete = param.type
    for t in template:
        concrete = re.sub(rf"\b{re.escape(t)}\b", "float", concrete)
    return concrete, None


@dataclass
class Probe:
    decl: Decl
    count: int  # arguments in the CUDA call
    casts: tuple[str | None, ...]  # per argument: the cast applied (None: none)
    appended: tuple[str, ...]  # default values appended


def _probe_source(probes: list[Probe], names: Mapping[str, str]) -> tuple[str, list[tuple[int, int]]]:
    lines = PROBE_HEADER.splitlines()
    spans = []
    for i, probe in enumerate(probes):
        decl = probe.decl
        hip = names[decl.cuda]
        params, args = [], []
        for k, p in enumerate(decl.params[: probe.count]):
            declared, expr = _instantiate(p, decl.template)
            if expr is None:
                params.append(f"{_rename(declared, names)} a{k}")
                expr = f"a{k}"
            cast = probe.casts[k]
            args.append(f"reinterpret_cast<{_rename(cast, names)}>({expr})" if cast else expr)
        args += [_rename(v, names) for v in probe.appended]
        first = len(lines) + 1
        lines.append(f"void probe_{i}({', '.join(params)}) {{")
        lines.append(f"  (void){hip}({', '.join(args)});")
        lines.append("}")
        spans.append((first, len(lines)))
    return "\n".join(lines) + "\n", spans


def run_probes(hipcc: str, probes: list[Probe], names: Mapping[str, str]) -> list[str | None]:
    """Per probe: None if it compiles, else the first error message."""
    source, spans = _probe_source(probes, names)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.hip"
        path.write_text(source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-ferror-limit=0", str(path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"))
    errors: dict[int, str] = {}
    for m in re.finditer(r"probe\.hip:(\d+):\d+: error: ([^\n]*)", proc.stderr):
        errors.setdefault(int(m.group(1)), m.group(2))
    return [next((errors[n] for n in range(a, b + 1) if n in errors), None) for a, b in spans]


# -- facts -----------------------------------------------------------------------------------------
def _c_api_casts(decl: Decl, c_api: Mapping[str, Decl]) -> tuple[str | None, ...]:
    """For a template overload: the C declaration's type for each template-typed parameter."""
    plain = c_api.get(decl.cuda)
    casts: list[str | None] = []
    for k, p in enumerate(decl.params):
        templated = any(re.search(rf"\b{re.escape(t)}\b", p.type) for t in decl.template)
        if not templated:
            casts.append(None)
        elif plain is not None and k < len(plain.params) and not plain.template:
            casts.append(plain.params[k].type)
        elif KERNEL_PARAM.match(p.name) or SYMBOL_PARAM.search(p.name):
            casts.append("const void *")
        else:
            casts.append(None)
    return tuple(casts)


def derive(
    decls: list[Decl], names: Mapping[str, str], hipcc: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Changes for calls HIP rejects as CUDA writes them; and notes about what could not be probed."""
    c_api = {d.cuda: d for d in decls if not d.template}
    notes: list[dict[str, Any]] = []
    # round 1: every argument count CUDA accepts, as written
    plain = [Probe(d, n, (None,) * n, ()) for d in decls for n in range(d.required, len(d.params) + 1)]
    plain_error = dict(zip(map(id, plain), run_probes(hipcc, plain, names), strict=True))
    plain_ok = {k: v is None for k, v in plain_error.items()}
    # round 2: for each failing count, casts and/or appended defaults
    fixes: list[Probe] = []
    for p in plain:
        if plain_ok[id(p)]:
            continue
        casts = _c_api_casts(p.decl, c_api)[: p.count]
        for extra in range(len(p.decl.params) - p.count + 1):
            defaults = tuple(q.default or "?" for q in p.decl.params[p.count : p.count + extra])
            if "?" in defaults:
                break
            for variant in {casts, (None,) * p.count} if any(casts) else {casts}:
                fixes.append(Probe(p.decl, p.count, variant, defaults))
    fixes_ok = [e is None for e in run_probes(hipcc, fixes, names)]
    chosen: dict[tuple[int, int], Probe] = {}
    for probe, ok in zip(fixes, fixes_ok, strict=True):
        key = (id(probe.decl), probe.count)
        if ok and (key not in chosen or _cost(probe) < _cost(chosen[key])):
            chosen[key] = probe
    rows: list[dict[str, Any]] = []
    for p in plain:
        if plain_ok[id(p)]:
            continue
        fix = chosen.get((id(p.decl), p.count))
        kind = "template" if p.decl.template else "C"
        if fix is None:
            error = plain_error[id(p)] or ""
            # only a real signature mismatch: an absent name or type is the probe's limit, not a fact
            if error.startswith("no matching function"):
                notes.append({"cuda": p.decl.cuda, "arguments": p.count, "declaration": kind, "error": error})
            continue
        for k, cast in enumerate(fix.casts):
            if cast:
                rows.append(
                    _row(p.decl, p.count, k, "wrap", with_=f"reinterpret_cast<{_rename(cast, names)}>")
                )
        if fix.appended:
            value = ", ".join(_rename(v, names) for v in fix.appended)
            rows.append(_row(p.decl, p.count, p.count, "insert_const", value=value))
    unique_notes = {(n["cuda"], n["arguments"]): n for n in notes}
    return _unique(rows), [unique_notes[k] for k in sorted(unique_notes)]


def _cost(probe: Probe) -> tuple[int, int]:
    return (len(probe.appended), sum(1 for c in probe.casts if c))


def _row(decl: Decl, count: int, arg: int, op: str, with_: str = "", value: str = "") -> dict[str, Any]:
    row: dict[str, Any] = {"cuda": decl.cuda, "arguments": count, "arg": arg, "op": op}
    if with_:
        row["with"] = _normal_type(with_)
    if value:
        row["value"] = value
    row["why"] = "template overload" if decl.template else "default argument"
    return row


def _normal_type(text: str) -> str:
    return re.sub(r"\s*\*", "*", text).replace("< ", "<")


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, int, int, str], dict[str, Any]] = {}
    for row in rows:
        key = (row["cuda"], row["arguments"], row["arg"], row["op"])
        if key in seen and seen[key] != row:
            # a C declaration and a template overload disagree for this count: the cast is harmless
            # for the C call too, so keep the cast
            if row["op"] == "wrap":
                seen[key] = row
            continue
        seen.setdefault(key, row)
    return sorted(seen.values(), key=lambda r: (r["cuda"], r["arguments"], r["arg"], r["op"]))


def arity_rows(decls: list[Decl]) -> list[dict[str, Any]]:
    """Per function: the argument counts any CUDA declaration accepts (C and template overloads), and
    the C declaration's parameter count (`c`: HIPIFY's facts are about that one)."""
    counts: dict[str, set[int]] = {}
    c_count: dict[str, int] = {}
    for d in decls:
        counts.setdefault(d.cuda, set()).update(range(d.required, len(d.params) + 1))
        if not d.template:
            c_count[d.cuda] = min(len(d.params), c_count.get(d.cuda, len(d.params)))
    rows = []
    for name in sorted(counts):
        row: dict[str, Any] = {"cuda": name, "min": min(counts[name]), "max": max(counts[name])}
        if name in c_count:
            row["c"] = c_count[name]
        rows.append(row)
    return rows


def render(
    version: str,
    cuda_version: str,
    rows: list[dict[str, Any]],
    arity: list[dict[str, Any]],
    notes: list[dict[str, Any]],
    source: str,
) -> str:
    def line(row: Mapping[str, Any]) -> str:
        return yaml.safe_dump([dict(row)], default_flow_style=None, sort_keys=False, width=1 << 16).strip()

    out = [
        "# Generated by scripts/probe_calls.py: do not edit. Facts of the installed headers:",
        f"# CUDA {cuda_version} declarations (clang AST of cuda_runtime.h, cuda.h) probed against",
        f"# HIP {version} with hipcc. `arguments`: the CUDA call's argument count the change holds for.",
        f"# Probed with {source}.",
        f"hip_version: '{version}'",
        f"cuda_version: '{cuda_version}'",
        "changes:",
        *(line(r) for r in rows),
        "arity:  # argument counts CUDA's declarations accept (fewest, most; c: the C declaration's)",
        *(line(r) for r in arity),
        "# calls CUDA accepts that no cast or default makes HIP accept (documentation, not used by the rule:",
        "# most are CUDA 13 signature changes that code written for older CUDA does not use)",
        "unresolved:",
        *(line(n) for n in notes),
    ]
    return "\n".join(out) + "\n"


def cuda_version(include: Path) -> str:
    m = re.search(r"#define CUDART_VERSION\s+(\d+)", (include / "cuda_runtime_api.h").read_text())
    if m is None:
        return "unknown"
    n = int(m.group(1))
    return f"{n // 1000}.{n % 1000 // 10}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda-include", type=Path, default=_default_cuda_include())
    parser.add_argument("--clang", default=_default_clang())
    parser.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    parser.add_argument("--out", type=Path, default=None, help="default: mappings/call-probes-<HIP>.yaml")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out differs from a fresh probe")
    args = parser.parse_args(argv)
    if args.cuda_include is None or not (args.cuda_include / "cuda_runtime_api.h").is_file():
        print("error: no CUDA headers (give --cuda-include DIR with cuda_runtime_api.h)", file=sys.stderr)
        return 2
    mappings = load_mappings()
    names = {e.cuda: e.hip for e in mappings.by_cuda.values() if e.hip}
    wanted = {
        e.cuda for e in mappings.by_cuda.values() if e.hip and e.family in FAMILIES and e.kind == "function"
    }
    decls = cuda_declarations(args.clang, args.cuda_include, wanted)
    version = hip_version(args.hipcc)
    rows, notes = derive(decls, names, args.hipcc)
    text = render(
        version, cuda_version(args.cuda_include), rows, arity_rows(decls), notes, probed_with(args.hipcc)
    )
    out = args.out or REPO / "mappings" / "probed" / f"{PREFIX}{version}.yaml"
    return write_or_check(
        out,
        text,
        args.check,
        "probe_calls",
        f"{len(decls)} CUDA declarations, {len(rows)} changes, {len(notes)} unresolved",
    )


def _default_cuda_include() -> Path | None:
    for base in [
        os.environ.get("CUDA_PATH", ""),
        "/usr/local/cuda",
        *sorted(map(str, Path("/usr/local").glob("cuda-*"))),
    ]:
        if base and (Path(base) / "include" / "cuda_runtime_api.h").is_file():
            return Path(base) / "include"
    return None


def _default_clang() -> str:
    for name in ("clang++", *(f"/usr/lib/llvm-{v}/bin/clang++" for v in range(20, 13, -1))):
        found = shutil.which(name) or (name if Path(name).is_file() else None)
        if found:
            return found
    return "clang++"


if __name__ == "__main__":
    sys.exit(main())
