"""The directed-rounding helpers (__fadd_rd, __fdiv_ru, __fmaf_rz, __dmul_rd, __dsqrt_ru, ...:
mappings/hand-kept/shims.yaml) against an exact model of IEEE 754 rounding (fractions), built for the host.

HIP declares these names only under OCML_BASIC_ROUNDED_OPERATIONS, so hipify-py writes them. The GPU
check against CUDA's own functions is scripts/gpu_shim_check.py; this one needs no GPU: the helpers use
IEEE arithmetic, fma, sqrt and nextafter, which the host computes as the device does.
"""

from __future__ import annotations

import math
import random
import shutil
import struct
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import pytest

from hipify_py.data.shim_table import definition, load_table

CXX = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
MODES = ("rd", "ru", "rz")


class Fmt(NamedTuple):
    ctype: str  # the C type
    pack: str  # struct codes: value, bits
    ubits: str
    digits: int  # hex digits of the bit pattern
    largest: int  # bits of the largest finite value
    prefix: str  # __f / __d
    ops: tuple[str, ...]


F32 = Fmt("float", "<f", "<I", 8, 0x7F7FFFFF, "__f", ("add", "sub", "mul", "div", "rcp", "sqrt", "maf"))
F64 = Fmt("double", "<d", "<Q", 16, 0x7FEFFFFFFFFFFFFF, "__d", ("add", "sub", "mul", "div", "rcp", "sqrt"))


def _val(fmt: Fmt, bits: int) -> float:
    return struct.unpack(fmt.pack, struct.pack(fmt.ubits, bits & ((1 << 4 * fmt.digits) - 1)))[0]


def _bits(fmt: Fmt, x: float) -> int:
    return struct.unpack(fmt.ubits, struct.pack(fmt.pack, x))[0]


def _next_up(fmt: Fmt, x: float) -> float:
    if x == 0:
        return _val(fmt, 1)
    return _val(fmt, _bits(fmt, x) + 1) if x > 0 else _val(fmt, _bits(fmt, x) - 1)


def _round(fmt: Fmt, q: Fraction, mode: str) -> float:
    """q (exact, nonzero) rounded to the format as `mode` says."""
    largest = _val(fmt, fmt.largest)
    if abs(q) > Fraction(largest):  # overflow: infinity, or the largest finite value toward zero
        beyond = {"rd": q < 0, "ru": q > 0, "rz": False}[mode]
        return (math.inf if beyond else largest) * (1 if q > 0 else -1)
    low = _val(fmt, _bits(fmt, float(q)))
    while Fraction(low) > q:
        low = -_next_up(fmt, -low)
    while low < largest and Fraction(_next_up(fmt, low)) <= q:
        low = _next_up(fmt, low)
    if Fraction(low) == q:
        return low
    high = _next_up(fmt, low)  # -0.0 above the negative value nearest zero
    return {"rd": low, "ru": high, "rz": low if q > 0 else high}[mode]


def _sqrt_round(fmt: Fmt, a: float, mode: str) -> float:
    r = _val(fmt, _bits(fmt, math.sqrt(a)))
    while Fraction(r) ** 2 > Fraction(a):
        r = -_next_up(fmt, -r)
    while Fraction(_next_up(fmt, r)) ** 2 <= Fraction(a):
        r = _next_up(fmt, r)
    if Fraction(r) ** 2 == Fraction(a) or mode != "ru":
        return r  # rd and rz agree on a non-negative result
    return _next_up(fmt, r)


def _zero_sum(mode: str, x: float, y: float) -> float:
    """IEEE's sign of an exact zero sum x + y: two zeros of one sign keep it, else +0 (-0 rounding down)."""
    if x == 0 and y == 0 and math.copysign(1, x) == math.copysign(1, y):
        return x
    return -0.0 if mode == "rd" else 0.0


def model(fmt: Fmt, op: str, mode: str, a: float, b: float, c: float) -> float:
    """CUDA's <prefix><op>_<mode>(a, b[, c]) by IEEE 754 (b, c unused where the function takes fewer)."""
    if op == "sub":
        return model(fmt, "add", mode, a, -b, c)
    if op == "rcp":
        return model(fmt, "div", mode, 1.0, a, c)
    if op == "sqrt":
        if math.isnan(a) or a < 0:
            return math.nan
        return a if a == 0 or math.isinf(a) else _sqrt_round(fmt, a, mode)
    if math.isnan(a) or math.isnan(b) or (op == "maf" and math.isnan(c)):
        return math.nan
    sign = -1.0 if (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0) else 1.0
    if op == "add":
        if math.isinf(a) or math.isinf(b):
            return a + b
        q = Fraction(a) + Fraction(b)
        return _zero_sum(mode, a, b) if q == 0 else _round(fmt, q, mode)
    if op == "maf":
        if math.isinf(a) or math.isinf(b):
            if a == 0 or b == 0 or (math.isinf(c) and math.copysign(1, c) != sign):
                return math.nan
            return sign * math.inf
        if math.isinf(c):
            return c
        product = Fraction(a) * Fraction(b)
        q = product + Fraction(c)
        return _zero_sum(mode, sign * 0.0 if product == 0 else 1.0, c) if q == 0 else _round(fmt, q, mode)
    if op == "mul":
        if math.isinf(a) or math.isinf(b):
            return math.nan if a == 0 or b == 0 else sign * math.inf
        q = Fraction(a) * Fraction(b)
    else:  # div
        if (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
            return math.nan
        if b == 0 or math.isinf(a):
            return sign * math.inf
        if math.isinf(b):
            return sign * 0.0
        q = Fraction(a) / Fraction(b)
    return sign * 0.0 if q == 0 else _round(fmt, q, mode)


def _edges(fmt: Fmt) -> list[int]:
    if fmt is F32:
        return [
            *(0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40400000, 0x3DCCCCCD, 0x7F7FFFFF, 0xFF7FFFFF),
            *(0x00800000, 0x80800000, 0x00000001, 0x80000003, 0x007FFFFF, 0x3F800001, 0x4B800001, 0x7F800000),
            *(0xFF800000, 0x7FC00000, 0x0DA24260, 0x7149F2CA, 0x3EAAAAAB, 0xC0490FDB),
        ]
    return [_bits(F64, x) for x in (0.0, -0.0, 1.0, -1.0, 3.0, 0.1, math.inf, -math.inf, math.nan)] + [
        0x7FEFFFFFFFFFFFFF,
        0xFFEFFFFFFFFFFFFF,
        0x0010000000000000,
        0x0000000000000001,
        0x8000000000000003,
        0x000FFFFFFFFFFFFF,
        0x3FF0000000000001,
        0x4340000000000001,
        0x07B0000000000000,
        0x2000000000000001,
        0x1FF0000000000000,
        0x5FE0000000000003,
        0x3CB0000000000000,
        0xC00921FB54442D18,
    ]


def _inputs(fmt: Fmt, rng: random.Random) -> list[tuple[int, int, int]]:
    """Arguments: edge values, random bits, near-cancelling sums, tiny products and quotients, a*b + c
    with c near -a*b."""
    width, edges = 4 * fmt.digits, _edges(fmt)
    out = [(a, b, c) for a in edges for b in edges for c in edges[::3]]
    for _ in range(1500):
        out.append((rng.getrandbits(width), rng.getrandbits(width), rng.getrandbits(width)))
    top = (1 << (width - 1)) - 1
    for _ in range(800):
        a = rng.getrandbits(width) & top
        one = _bits(fmt, 1.0) + rng.randint(-50, 50)
        product = _val(fmt, a) * _val(fmt, one)
        minus_ab = _bits(fmt, -_val(fmt, _bits(fmt, product))) if math.isfinite(product) else a
        out.append((a, (a ^ (1 << (width - 1))) + rng.randint(-3, 3), rng.getrandbits(width)))
        out.append((a, one, minus_ab + rng.randint(-2, 2)))
        small = rng.getrandbits(width - 3)  # exponents at the bottom: subnormal results
        out.append((small, rng.getrandbits(width - 2), rng.getrandbits(width)))
    return out


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("fmt", [F32, F64], ids=["float", "double"])
def test_rounding_helpers_round_as_ieee(fmt: Fmt, tmp_path: Path) -> None:
    names = {f"{fmt.prefix}{op}_{mode}" for op in fmt.ops for mode in MODES}
    shims = {s.name: s for s in load_table() if s.name in names}
    assert sorted(shims) == sorted(names)
    t, u = fmt.ctype, "unsigned long long"
    lines = ["#include <cmath>", "#include <cstdio>", "#include <cstring>"]
    lines += ["using std::fabs;", "using std::signbit;", "using std::isinf;", "using std::isfinite;"]
    lines += ["static double __dsqrt_rn(double x) { return std::sqrt(x); }"]
    lines += ["static float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }"]
    lines += [
        "static double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }"
    ]
    lines += [definition(s, "7.2").decode() for s in shims.values()]
    lines += [f"static {u} bits_of({t} f) {{ {u} u = 0; std::memcpy(&u, &f, sizeof f); return u; }}"]
    lines += ["int main() {", f"  {u} x, y, z;", '  while (std::scanf("%llx %llx %llx", &x, &y, &z) == 3) {']
    lines += [f"    {t} a, b, c;", "    std::memcpy(&a, &x, sizeof a); std::memcpy(&b, &y, sizeof b);"]
    lines += ["    std::memcpy(&c, &z, sizeof c);"]
    for name in sorted(shims):
        op = name[3:].rsplit("_", 1)[0]
        args = "a" if op in ("rcp", "sqrt") else "a, b, c" if op == "maf" else "a, b"
        lines.append(f'    std::printf("%llx ", bits_of({name}({args})));')
    lines += ['    std::printf("\\n");', "  }", "  return 0;", "}"]
    src, exe = tmp_path / "rounding.cpp", tmp_path / "rounding"
    src.write_text("\n".join(lines))
    cmd = [CXX, "-std=c++17", "-O2", "-ffp-contract=off", "-D__device__=", str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    triples = _inputs(fmt, random.Random(31))
    feed = "".join(f"{a:x} {b:x} {c:x}\n" for a, b, c in triples)
    run = subprocess.run([str(exe)], input=feed, capture_output=True, text=True, check=True)
    rows = run.stdout.splitlines()
    assert len(rows) == len(triples)
    bad = []
    for (a_bits, b_bits, c_bits), row in zip(triples, rows, strict=True):
        a, b, c = (_val(fmt, v) for v in (a_bits, b_bits, c_bits))
        for name, got in zip(sorted(shims), row.split(), strict=True):
            op, mode = name[3:].rsplit("_", 1)
            want, value = model(fmt, op, mode, a, b, c), _val(fmt, int(got, 16))
            if math.isnan(want) and math.isnan(value):
                continue
            if math.isnan(want) or _bits(fmt, want) != int(got, 16):
                bad.append(f"{name}({a_bits:x}, {b_bits:x}, {c_bits:x}) = {got}, IEEE {want!r}")
    assert not bad, bad[:20]
