"""The directed-rounding float helpers (__fadd_rd, __fdiv_ru, __fsqrt_rz, ...: mappings/hand-kept/shims.yaml)
against an exact model of IEEE 754 rounding (fractions), built for the host.

HIP declares these names only under OCML_BASIC_ROUNDED_OPERATIONS, so hipify-py writes them. The GPU
check against CUDA's own functions is scripts/gpu_shim_check.py; this one needs no GPU: the helpers use
double arithmetic, a float conversion and nextafterf, which the host computes as the device does.
"""

from __future__ import annotations

import math
import random
import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from hipify_py.data.shim_table import definition, load_table

CXX = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
OPS = ("fadd", "fsub", "fmul", "fdiv", "frcp", "fsqrt", "fmaf")
MODES = ("rd", "ru", "rz")
FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def _bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _next_up(f: float) -> float:
    if f == 0:
        return _f32(1)
    return _f32(_bits(f) + 1) if f > 0 else _f32(_bits(f) - 1)


def _next_down(f: float) -> float:
    return -_next_up(-f)


def _round(q: Fraction, mode: str) -> float:
    """q (exact, nonzero) rounded to float32 as `mode` says."""
    if abs(q) > Fraction(FLT_MAX):  # overflow: infinity, or the largest float toward zero
        beyond = {"rd": q < 0, "ru": q > 0, "rz": False}[mode]
        return math.copysign(math.inf if beyond else FLT_MAX, q)
    low = _f32(_bits(float(q)))
    while Fraction(low) > q:
        low = _next_down(low)
    while low < FLT_MAX and Fraction(_next_up(low)) <= q:
        low = _next_up(low)
    if Fraction(low) == q:
        return low
    high = _next_up(low)  # -0.0 above the negative float nearest zero
    return {"rd": low, "ru": high, "rz": low if q > 0 else high}[mode]


def _sqrt_round(a: float, mode: str) -> float:
    f = _f32(_bits(math.sqrt(a)))
    while Fraction(f) ** 2 > Fraction(a):
        f = _next_down(f)
    while Fraction(_next_up(f)) ** 2 <= Fraction(a):
        f = _next_up(f)
    if Fraction(f) ** 2 == Fraction(a) or mode != "ru":
        return f  # rd and rz agree on a non-negative result
    return _next_up(f)


def _zero_sum(mode: str, x: float, y: float) -> float:
    """IEEE's sign of an exact zero sum x + y: two zeros of one sign keep it, else +0 (-0 rounding down)."""
    if x == 0 and y == 0 and math.copysign(1, x) == math.copysign(1, y):
        return x
    return -0.0 if mode == "rd" else 0.0


def model(op: str, mode: str, a: float, b: float, c: float) -> float:
    """CUDA's __<op>_<mode>(a, b[, c]) by IEEE 754 (b, c unused where the function takes fewer)."""
    if op == "fsub":
        return model("fadd", mode, a, -b, c)
    if op == "frcp":
        return model("fdiv", mode, 1.0, a, c)
    if op == "fsqrt":
        if math.isnan(a) or a < 0:
            return math.nan
        return a if a == 0 or math.isinf(a) else _sqrt_round(a, mode)
    if math.isnan(a) or math.isnan(b) or (op == "fmaf" and math.isnan(c)):
        return math.nan
    sign = -1.0 if (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0) else 1.0
    if op == "fadd":
        if math.isinf(a) or math.isinf(b):
            return a + b
        q = Fraction(a) + Fraction(b)
        return _zero_sum(mode, a, b) if q == 0 else _round(q, mode)
    if op == "fmaf":
        if math.isinf(a) or math.isinf(b):
            if a == 0 or b == 0 or (math.isinf(c) and math.copysign(1, c) != sign):
                return math.nan
            return sign * math.inf
        if math.isinf(c):
            return c
        product = Fraction(a) * Fraction(b)
        q = product + Fraction(c)
        return _zero_sum(mode, sign * 0.0 if product == 0 else 1.0, c) if q == 0 else _round(q, mode)
    if op == "fmul":
        if math.isinf(a) or math.isinf(b):
            return math.nan if a == 0 or b == 0 else sign * math.inf
        q = Fraction(a) * Fraction(b)
    else:  # fdiv
        if (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
            return math.nan
        if b == 0 or math.isinf(a):
            return sign * math.inf
        if math.isinf(b):
            return sign * 0.0
        q = Fraction(a) / Fraction(b)
    return sign * 0.0 if q == 0 else _round(q, mode)


EDGES = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40400000, 0x3DCCCCCD, 0x7F7FFFFF, 0xFF7FFFFF]
EDGES += [0x00800000, 0x80800000, 0x00000001, 0x80000003, 0x007FFFFF, 0x3F800001, 0x4B800001, 0x7F800000]
EDGES += [0xFF800000, 0x7FC00000, 0x0DA24260, 0x7149F2CA, 0x3EAAAAAB, 0xC0490FDB]


def _triples(rng: random.Random) -> list[tuple[int, int, int]]:
    """Arguments: edge values, random bits, near-cancelling sums, a*b + c with c near -a*b."""
    out = [(a, b, c) for a in EDGES for b in EDGES for c in EDGES[::3]]
    for _ in range(1500):
        out.append((rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)))
    for _ in range(800):
        a = rng.getrandbits(32) & 0x4FFFFFFF
        b = 0x3F800000 + rng.randint(-50, 50)
        minus_ab = _bits(-_f32(_bits(_f32(a) * _f32(b)))) if math.isfinite(_f32(a) * _f32(b)) else a
        out.append((a, (a ^ 0x80000000) + rng.randint(-3, 3), rng.getrandbits(32)))
        out.append((a, b, minus_ab + rng.randint(-2, 2)))
    return out


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_float_rounding_helpers_round_as_ieee(tmp_path: Path) -> None:
    names = {f"__{op}_{mode}" for op in OPS for mode in MODES}
    shims = {s.name: s for s in load_table() if s.name in names}
    assert sorted(shims) == sorted(names)
    lines = ["#include <cmath>", "#include <cstdio>", "#include <cstring>"]
    lines += ["using std::fabs;", "using std::signbit;"]
    lines += ["static double __dsqrt_rn(double x) { return std::sqrt(x); }"]
    lines += ["static float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }"]
    lines += [definition(s, "7.2").decode() for s in shims.values()]
    lines += ["static unsigned bits_of(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }"]
    lines += ["int main() {", "  unsigned x, y, z;", '  while (std::scanf("%x %x %x", &x, &y, &z) == 3) {']
    lines += ["    float a, b, c;", "    std::memcpy(&a, &x, 4); std::memcpy(&b, &y, 4); std::memcpy(&c, &z, 4);"]
    for name in sorted(shims):
        args = "a" if name[2:].startswith(("frcp", "fsqrt")) else "a, b, c" if "fmaf" in name else "a, b"
        call = f"{name}({args})"
        lines.append(f'    std::printf("%08x ", bits_of({call}));')
    lines += ['    std::printf("\\n");', "  }", "  return 0;", "}"]
    src, exe = tmp_path / "rounding.cpp", tmp_path / "rounding"
    src.write_text("\n".join(lines))
    cmd = [CXX, "-std=c++17", "-O2", "-ffp-contract=off", "-D__device__=", str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    triples = _triples(random.Random(31))
    feed = "".join(f"{a:08x} {b:08x} {c:08x}\n" for a, b, c in triples)
    run = subprocess.run([str(exe)], input=feed, capture_output=True, text=True, check=True)
    rows = run.stdout.splitlines()
    assert len(rows) == len(triples)
    bad = []
    for (a_bits, b_bits, c_bits), row in zip(triples, rows, strict=True):
        a, b, c = _f32(a_bits), _f32(b_bits), _f32(c_bits)
        for name, got in zip(sorted(shims), row.split(), strict=True):
            op, mode = name[2:].rsplit("_", 1)
            want, value = model(op, mode, a, b, c), _f32(int(got, 16))
            if math.isnan(want) and math.isnan(value):
                continue
            if math.isnan(want) or _bits(want) != int(got, 16):
                bad.append(f"{name}({a_bits:08x}, {b_bits:08x}, {c_bits:08x}) = {got}, IEEE {want!r}")
    assert not bad, bad[:20]
