"""Shims (mappings/shims.yaml, rules/shims.py): the table, the SIMD intrinsics' values, the enumerators.

Fixtures in tests/fixtures/shims/hip52 are compiled with hipcc (tests/test_hipcc_examples.py); those
in shims/hip70 show that a target that has a name gets no shim for it. Here: every SIMD shim is
compiled for the host and its results compared with a Python model of CUDA's documented semantics,
and all of them are compiled as device code with hipcc.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fixture_cases import hipcc_syntax

from hipify_py.data.shim_table import definition, load_table, shims_for
from hipify_py.data.versions import compare_versions
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import default_tables, translate

HIPCC = shutil.which("hipcc")
CXX = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
VERSIONS = ("5.2", "5.4", "5.7", "6.0", "6.2", "7.0", "7.2")


def _lane(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def _avgs(x: int, y: int) -> int:  # signed rounded average: halves round away from zero
    s = x + y
    return s >> 1 if s < 0 else (s + 1) >> 1


# stem -> (signed lanes, unary, lane function(x, y, lo, hi), how lanes combine); CUDA Math API, SIMD.
_CMP = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "ge": lambda x, y: x >= y,
    "gt": lambda x, y: x > y,
    "le": lambda x, y: x <= y,
    "lt": lambda x, y: x < y,
}
MODEL = {
    "add": (False, False, lambda x, y, lo, hi: x + y, "pack"),
    "sub": (False, False, lambda x, y, lo, hi: x - y, "pack"),
    "neg": (True, True, lambda x, y, lo, hi: -x, "pack"),
    "abs": (True, True, lambda x, y, lo, hi: abs(x), "pack"),
    "addss": (True, False, lambda x, y, lo, hi: _clamp(x + y, lo, hi), "pack"),
    "addus": (False, False, lambda x, y, lo, hi: _clamp(x + y, lo, hi), "pack"),
    "subss": (True, False, lambda x, y, lo, hi: _clamp(x - y, lo, hi), "pack"),
    "subus": (False, False, lambda x, y, lo, hi: _clamp(x - y, lo, hi), "pack"),
    "negss": (True, True, lambda x, y, lo, hi: _clamp(-x, lo, hi), "pack"),
    "absss": (True, True, lambda x, y, lo, hi: _clamp(abs(x), lo, hi), "pack"),
    "avgs": (True, False, lambda x, y, lo, hi: _avgs(x, y), "pack"),
    "avgu": (False, False, lambda x, y, lo, hi: (x + y + 1) >> 1, "pack"),
    "haddu": (False, False, lambda x, y, lo, hi: (x + y) >> 1, "pack"),
    "maxs": (True, False, lambda x, y, lo, hi: max(x, y), "pack"),
    "maxu": (False, False, lambda x, y, lo, hi: max(x, y), "pack"),
    "mins": (True, False, lambda x, y, lo, hi: min(x, y), "pack"),
    "minu": (False, False, lambda x, y, lo, hi: min(x, y), "pack"),
    "absdiffs": (True, False, lambda x, y, lo, hi: abs(x - y), "pack"),
    "absdiffu": (False, False, lambda x, y, lo, hi: abs(x - y), "pack"),
    "sads": (True, False, lambda x, y, lo, hi: abs(x - y), "sum"),
    "sadu": (False, False, lambda x, y, lo, hi: abs(x - y), "sum"),
}
for _op, _test in _CMP.items():
    for _sign in ("",) if _op in ("eq", "ne") else ("s", "u"):
        MODEL[f"cmp{_op}{_sign}"] = (
            _sign == "s",
            False,
            lambda x, y, lo, hi, t=_test: -1 if t(x, y) else 0,
            "pack",
        )
        MODEL[f"set{_op}{_sign}"] = (_sign == "s", False, lambda x, y, lo, hi, t=_test: int(t(x, y)), "pack")


def model(name: str, a: int, b: int) -> int:
    """CUDA's result of `name(a, b)` (or `name(a)`), computed lane by lane with Python integers."""
    stem, lanes = name[3:-1], int(name[-1])
    signed, _, fn, combine = MODEL[stem]
    bits = 32 // lanes
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    results = [
        fn(_lane(a >> i, bits, signed), _lane(b >> i, bits, signed), lo, hi) for i in range(0, 32, bits)
    ]
    if combine == "sum":
        return sum(results) & 0xFFFFFFFF
    return sum((r & ((1 << bits) - 1)) << (k * bits) for k, r in enumerate(results))


SIMD = [s for s in load_table() if s.name.startswith("__v")]


def _inputs() -> list[tuple[int, int]]:
    edges = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x01FF80FE]
    rng = random.Random(11)
    pairs = [(a, b) for a in edges for b in edges]
    pairs += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(200)]
    return pairs


def test_table_rows_have_sources_and_do_not_overlap() -> None:
    assert load_table(), "mappings/shims.yaml is empty"
    for shim in load_table():
        assert shim.source, shim.name
    for version in VERSIONS:
        shims_for(version)  # raises when two rows for one name hold


def test_simd_family_is_complete() -> None:
    """Every CUDA SIMD video intrinsic (both widths) has a shim, and nothing else is in that part."""
    assert {s.name for s in SIMD} == {f"__v{stem}{n}" for stem in MODEL for n in (2, 4)}


def test_dates_agree_with_the_tables() -> None:
    """A shim is needed exactly below the version the tables date its HIP name to (when they know it)."""
    by_hip: dict[str, str] = {}
    for entry in default_tables().mappings.by_cuda.values():
        if entry.hip and entry.hip_added:
            by_hip.setdefault(entry.hip, entry.hip_added)
    checked = 0
    for shim in load_table():
        if shim.until and shim.name in by_hip:
            assert compare_versions(by_hip[shim.name], shim.until) == 0, shim.name
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("version", VERSIONS)
def test_no_shim_where_the_target_has_the_name(version: str) -> None:
    source = (
        b"#include <cusparse.h>\n#include <cuda.h>\n"
        b"const char* f(cusparseStatus_t s) { return cusparseGetErrorString(s); }\n"
        b"const char* g(CUresult r) { const char* t; cuGetErrorString(r, &t); return t; }\n"
        b"__global__ void k(unsigned* p) { p[0] = __vmaxs4(p[0], 0u); }\n"
    )
    result = translate(source, Options(hip_version=version))
    for shim in load_table():
        if shim.device or shim.overload is not None:
            continue  # called for by a device use or an argument's type: test_device_gaps.py
        written = f"#define HIPIFY_PY_SHIM_{shim.name}\n".encode() in result.text
        used = shim.name.encode() in result.text
        assert written == (used and shim.holds_for(version)), (version, shim.name)
    assert not any(d.rule == "HIP103" for d in result.diagnostics)
    assert translate(result.text, Options(hip_version=version)).text == result.text


@pytest.mark.slow
def test_simd_values_match_cuda_semantics(tmp_path: Path) -> None:
    if CXX is None:
        pytest.skip("no host C++ compiler")
    pairs = _inputs()
    calls = []
    for shim in SIMD:
        unary = "(unsigned int a)" in shim.code
        args = "a[i]" if unary else "a[i], b[i]"
        calls.append(f'  for (int i = 0; i < N; ++i) printf("{shim.name} %u\\n", {shim.name}({args}));')
    program = "\n".join(
        [
            "#include <cstdio>",
            *(definition(s, "5.2").decode() for s in SIMD),
            f"static const unsigned int a[] = {{{', '.join(f'{x}u' for x, _ in pairs)}}};",
            f"static const unsigned int b[] = {{{', '.join(f'{y}u' for _, y in pairs)}}};",
            f"static const int N = {len(pairs)};",
            "int main() {",
            *calls,
            "  return 0;",
            "}",
        ]
    )
    src, exe = tmp_path / "simd.cpp", tmp_path / "simd"
    src.write_text(program)
    build = subprocess.run(
        [CXX, "-std=c++17", "-O1", "-D__host__=", "-D__device__=", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    got = run.stdout.splitlines()
    expected = [f"{s.name} {model(s.name, x, y)}" for s in SIMD for x, y in pairs]
    wrong = [(g, e) for g, e in zip(got, expected, strict=False) if g != e]
    assert len(got) == len(expected) and not wrong, wrong[:10]


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
def test_simd_shims_compile_as_device_code(tmp_path: Path) -> None:
    body = [
        f"  out[{i}] = {s.name}(" + ("a)" if "(unsigned int a)" in s.code else "a, b)") + ";"
        for i, s in enumerate(SIMD)
    ]
    text = "\n".join(
        [
            *(definition(s, "5.2").decode() for s in SIMD),
            "__global__ void k(unsigned int* out, unsigned int a, unsigned int b) {",
            *body,
            "}",
        ]
    )
    src = tmp_path / "simd.hip"
    src.write_text(text)
    proc = hipcc_syntax(src)
    assert proc.returncode == 0, proc.stderr[-4000:]


def _include_root() -> Path:
    return Path(os.environ.get("HIPIFY_PY_TEST_INCLUDE", "/usr/include"))


def test_status_cases_are_the_installed_enumerators() -> None:
    """The enumerators hipsparseGetErrorString's shim names at 5.2 are those hipSPARSE declares."""
    header = _include_root() / "hipsparse" / "hipsparse.h"
    if not header.is_file():
        pytest.skip(f"{header} not installed")
    text = header.read_text(errors="replace")
    block = re.search(r"typedef enum\s*\{(.*?)\}\s*hipsparseStatus_t;", text, re.S)
    assert block is not None
    declared = set(re.findall(r"\b(HIPSPARSE_STATUS_\w+)\s*=", block.group(1)))
    result = translate(
        b"#include <cusparse.h>\nconst char* f(cusparseStatus_t s) { return cusparseGetErrorString(s); }\n",
        Options(hip_version="5.2"),
    )
    written = set(re.findall(rb"case (HIPSPARSE_STATUS_\w+):", result.text))
    assert {w.decode() for w in written} == declared


def _dot_model(name: str, a: int, b: int, c: int, signed: bool) -> int:
    """CUDA's __dp4a/__dp2a_lo/__dp2a_hi on 32-bit values (CUDA Math API, integer intrinsics)."""

    def part(x: int, shift: int, bits: int) -> int:
        v = (x >> shift) & ((1 << bits) - 1)
        return v - (1 << bits) if signed and v >> (bits - 1) else v

    if name == "__dp4a":
        total = c + sum(part(a, s, 8) * part(b, s, 8) for s in (0, 8, 16, 24))
    else:
        low = 0 if name == "__dp2a_lo" else 16
        total = c + part(a, 0, 16) * part(b, low, 8) + part(a, 16, 16) * part(b, low + 8, 8)
    total &= 0xFFFFFFFF
    return total - (1 << 32) if signed and total >> 31 else total


def _host_run(tmp_path: Path, lines: list[str]) -> list[str]:
    """Build `lines` as a host program (__host__/__device__ defined away), run it: its output words."""
    assert CXX is not None
    src, exe = tmp_path / "shims.cpp", tmp_path / "shims"
    src.write_text("\n".join(lines))
    cmd = [CXX, "-std=c++17", "-O1", "-D__host__=", "-D__device__=", str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()


def test_dot_product_shims_match_cuda_semantics(tmp_path: Path) -> None:
    """__dp4a/__dp2a_* shims (no HIP declares them) against the model, signed and unsigned overloads."""
    if CXX is None:
        pytest.skip("no host C++ compiler")
    shims = [s for s in load_table() if s.name in ("__dp4a", "__dp2a_lo", "__dp2a_hi")]
    assert len(shims) == 3
    values = [(0x01020304, 0x05060708, 7), (0xFF80807F, 0x7F8001FF, -3), (0xFFFFFFFF, 0xFFFFFFFF, 0)]
    lines = ["#include <cstdio>", "struct char4 { signed char x, y, z, w; };"]
    lines += ["struct uchar4 { unsigned char x, y, z, w; };"]
    lines += [definition(s, "7.2").decode() for s in shims]
    lines.append("int main() {")
    expected = []
    for s in shims:
        for a, b, c in values:
            lines.append(f'  printf("%d\\n", {s.name}((int){a}u, (int){b}u, {c}));')
            lines.append(f'  printf("%u\\n", {s.name}({a}u, {b}u, (unsigned){c}));')
            expected += [str(_dot_model(s.name, a, b, c, True)), str(_dot_model(s.name, a, b, c, False))]
    lines.append('  char4 x{1, -2, 3, -4}; char4 y{-5, 6, -7, 8}; printf("%d\\n", __dp4a(x, y, 1));')
    lines += ["  return 0;", "}"]
    expected.append(str(1 - 5 - 12 - 21 - 32))
    assert _host_run(tmp_path, lines) == expected


_BF16_RANGES = {  # to -> (lowest, highest) of the C type
    "int": (-(2**31), 2**31 - 1),
    "uint": (0, 2**32 - 1),
    "short": (-(2**15), 2**15 - 1),
    "ushort": (0, 2**16 - 1),
    "ll": (-(2**63), 2**63 - 1),
    "ull": (0, 2**64 - 1),
}


def _bf16_value(bits: int) -> float:
    import struct

    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _bf16_int_model(to: str, rounding: str, bits: int) -> int:
    """PTX cvt.<rounding>i.<int>.f32 of an exact bf16 value: NaN -> 0 (64-bit: 1 << 63), saturated."""
    import decimal
    import math

    x = _bf16_value(bits)
    if math.isnan(x):
        return 1 << 63 if to in ("ll", "ull") else 0
    lo, hi = _BF16_RANGES[to]
    if math.isinf(x):
        return lo if x < 0 else hi
    mode = {"rn": decimal.ROUND_HALF_EVEN, "rd": decimal.ROUND_FLOOR, "ru": decimal.ROUND_CEILING}
    rounded = int(decimal.Decimal(x).to_integral_value(mode.get(rounding, decimal.ROUND_DOWN)))
    return _clamp(rounded, lo, hi)


@pytest.mark.slow
def test_bf16_integer_shims_match_cuda_semantics(tmp_path: Path) -> None:
    """__bfloat162<int>_<mode> shims (no HIP declares them) against a model of PTX cvt, on the host."""
    if CXX is None:
        pytest.skip("no host C++ compiler")
    shims = [s for s in load_table() if s.name.startswith("__bfloat162") and s.name[-3:-2] == "_"]
    shims = [s for s in shims if s.name[len("__bfloat162") : -3] in _BF16_RANGES]
    assert len(shims) == 24
    patterns = [0x0000, 0x8000, 0x3F00, 0xBF00, 0x3FC0, 0x4020, 0x4060, 0xC020, 0xC060, 0x4B40, 0x4EFF]
    patterns += [0x4F00, 0xCF00, 0x5F00, 0xDF00, 0x7F80, 0xFF80, 0x7FC0, 0x477F, 0x4780, 0xC700, 0x3E80]
    lines = ["#include <cmath>", "#include <cstdio>", "#include <cstring>", "using std::rintf;"]
    lines += ["struct __hip_bfloat16 { unsigned short x; };"]
    lines += ["static float __bfloat162float(__hip_bfloat16 h) {"]
    lines += ["  unsigned int u = unsigned(h.x) << 16; float f; std::memcpy(&f, &u, 4); return f; }"]
    lines += [definition(s, "7.2").decode() for s in shims]
    lines.append("int main() {")
    expected = []
    for s in shims:
        to, rounding = s.name[len("__bfloat162") : -3], s.name[-2:]
        for bits in patterns:
            lines.append(f'  printf("%lld\\n", (long long){s.name}(__hip_bfloat16{{{bits}}}));')
            want = _bf16_int_model(to, rounding, bits)
            expected.append(str(want - 2**64 if want >= 2**63 else want))  # printed as long long
    lines += ["  return 0;", "}"]
    assert _host_run(tmp_path, lines) == expected


@pytest.mark.parametrize(
    ("line", "declares"),
    [
        (b"STUB_API hipError_t hipify_py_hipFuncSetAttribute(hipFunction_t f,", True),
        (b"static inline hipError_t hipify_py_hipFuncSetAttribute (int)", True),
        (b"extern hipError_t* hipify_py_hipFuncSetAttribute(", True),
        (b"  return hipify_py_hipFuncSetAttribute(f, a, v);", False),
        (b"  else hipify_py_hipFuncSetAttribute(f, a, v);", False),
        (b"  hipify_py_hipFuncSetAttribute(f, a, v);", False),
        (b"  err = hipify_py_hipFuncSetAttribute(f, a, v);", False),
        (b"STUB_API hipError_t hipify_py_hipFuncSetAttribute;", False),
    ],
)
def test_a_prototype_the_parse_misreads_is_a_declaration(line: bytes, declares: bool) -> None:
    """shims._declares' fallback where tree-sitter's error recovery misreads a prototype (tilelang's
    driver stub: `STUB_API hipError_t name(` as a qualified name), so a second run emits no shim."""
    from hipify_py.rules.shims import looks_like_prototype

    start = line.index(b"hipify_py_")
    end = start + len(b"hipify_py_hipFuncSetAttribute")
    assert looks_like_prototype(b"int x;\n" + line, start + 7, end + 7) is declares
