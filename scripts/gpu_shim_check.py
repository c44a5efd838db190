#!/usr/bin/env python3
# ruff: noqa: E501  (the CUDA program it writes is kept as written, long lines and all)
"""Run the helpers hipify-py writes against CUDA's own functions on an NVIDIA GPU.

    python3 scripts/gpu_shim_check.py -o shim_check.cu [--hip-version 7.2]
    # on a machine with an NVIDIA GPU and nvcc (HIP's NVIDIA-platform headers: run-equivalence's hip-nvidia):
    nvcc -std=c++17 -arch=sm_90 -I hip-nvidia/include -D__HIP_PLATFORM_NVIDIA__ shim_check.cu -o shim_check
    ./shim_check        # one line per helper: PASS/FAIL and the mismatches; exit 1 on any FAIL

A translation guards each helper off on HIP's NVIDIA platform (CUDA's own is used there), so running a
translated program on NVIDIA cannot show whether a helper computes what CUDA does. This program takes the
helpers' code from mappings/shims.yaml (as data/shim_table.py writes it for the target), renames each defined
function `shim_<name>` and compares it with CUDA's function of that name on the same inputs:
- the SIMD video intrinsics (`__vadd4`, `__vcmpgts2`, `__vsads4`, ...) and `__dp4a`/`__dp2a_*`: 2^20 pseudo-random
  argument pairs plus edge values (0, 1, 0x7f..., 0x80..., 0xff...);
- bf16 to integer conversions: every one of the 65,536 bf16 bit patterns;
- the PTX bit-field helpers (`hipify_py_bfe_u32`, `hipify_py_bfi_b64`, ...) against the `bfe`/`bfi`
  instructions themselves: 2^20 pseudo-random and edge values, positions and lengths 0..80 and 32-bit;
  `hipify_py_prmt_b32` against `prmt.b32` (selectors as lengths are: some small, most 32-bit) and
  `hipify_py_lop3_b32` against `lop3.b32` for each of the 256 truth tables;
- `__float2bfloat162_rn`/`__floats2bfloat162_rn`: pseudo-random float bits, NaNs compared as NaN;
- the 16-bit float min/max, saturating, _rn, fma_relu and comparison helpers (`__hmax2`, `__hmin_nan`,
  `__hadd_sat`, `__hequ2`, `__heq2_mask`, ...): each overload on edge values (zeros, infinities, NaNs,
  denormals) and 2^20 pseudo-random bit patterns, results compared bit for bit;
- the directed-rounding float arithmetic (`__fadd_rd`, `__fdiv_ru`, `__fsqrt_rz`, ...): float edge values
  (zeros, infinities, NaN, denormals, FLT_MAX), pseudo-random bits and near-cancelling pairs, results
  compared bit for bit (any NaN equals any NaN);
- `atomicAdd` on `__half`, `__half2`, `__nv_bfloat16`, `__nv_bfloat162`: many threads adding to a few
  addresses (both halves of one 32-bit word for the scalars) with values whose sums are exact, so the
  final values and the set of returned old values do not depend on the order; compared with CUDA's.
Helpers without an exact CUDA counterpart to compare (tanh approximations, device error strings whose
codes differ between the platforms) are listed as SKIP with the reason.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipify_py.data.shim_table import Shim, definition, shims_for  # noqa: E402

SKIP = {
    "htanh": "approximation allowed to differ by a few ulp",
    "h2tanh": "approximation allowed to differ by a few ulp",
    "htanh_approx": "approximation allowed to differ by a few ulp",
    "h2tanh_approx": "approximation allowed to differ by a few ulp",
    "hipGetErrorString": "HIP's and CUDA's error codes differ",
    "hipGetErrorName": "HIP's and CUDA's error codes differ",
    "make_bfloat162": "a constructor (no arithmetic)",
}

PRELUDE = r"""#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstring>
#include <cstdint>
static int failures = 0;
static void report(const char* name, long long bad, long long total) {
  printf("%s %s %lld/%lld\n", bad ? "FAIL" : "PASS", name, bad, total);
  if (bad) ++failures;
}
__device__ inline unsigned int lcg(unsigned long long i, unsigned int salt) {
  unsigned long long x = (i + 1) * 6364136223846793005ULL + salt * 1442695040888963407ULL;
  x ^= x >> 29; x *= 0xbf58476d1ce4e5b9ULL; x ^= x >> 32;
  return (unsigned int)x;
}
__device__ inline unsigned int edge(unsigned long long i, unsigned int salt) {
  const unsigned int e[] = {0u, 1u, 0x7f7f7f7fu, 0x80808080u, 0xffffffffu, 0x7fff7fffu, 0x80008000u, 0x00ff00ffu};
  return i < 64 ? e[(i >> (salt & 1 ? 3 : 0)) & 7] : lcg(i, salt);
}
#define N_PAIRS (1u << 20)
template <class U> __device__ inline U wide(unsigned long long i, unsigned int salt) {
  return sizeof(U) == 4 ? (U)lcg(i, salt) : (U)(((unsigned long long)lcg(i, salt) << 32) | lcg(i, salt + 100));
}
"""


def helper_code(shim: Shim, target: str) -> str:
    """The helper's definition without its guard, each defined function renamed shim_<name>."""
    text = definition(shim, target).decode()
    body = [ln for ln in text.splitlines() if not ln.startswith(("#if", "#define HIPIFY", "#endif", "//"))]
    code = "\n".join(body)
    name = shim.function
    # why not after `::`: a helper calls the platform's own overload that way (`::atomicCAS` on 32 bits)
    return re.sub(rf"(?<![\w$:]){re.escape(name)}(?=\s*\()", f"shim_{name}", code, count=0)


def _binary_check(name: str, argtype: str, arity: int) -> str:
    args = ", ".join(f"({argtype})edge(i, {k})" for k in range(arity))
    return f"""
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  if (shim_{name}({args}) != {name}({args})) atomicAdd(bad, 1ULL);
}}"""


# the PTX instruction each bit-field helper stands for: (asm template, output constraint, inputs' constraints)
_PTX_OF = {
    "hipify_py_bfe_u32": ("bfe.u32 %0, %1, %2, %3;", "unsigned int", "r", "rrr"),
    "hipify_py_bfe_s32": ("bfe.s32 %0, %1, %2, %3;", "int", "r", "rrr"),
    "hipify_py_bfe_u64": ("bfe.u64 %0, %1, %2, %3;", "unsigned long long", "l", "lrr"),
    "hipify_py_bfe_s64": ("bfe.s64 %0, %1, %2, %3;", "long long", "l", "lrr"),
    "hipify_py_bfi_b32": ("bfi.b32 %0, %1, %2, %3, %4;", "unsigned int", "r", "rrrr"),
    "hipify_py_bfi_b64": ("bfi.b64 %0, %1, %2, %3, %4;", "unsigned long long", "l", "llrr"),
    "hipify_py_prmt_b32": ("prmt.b32 %0, %1, %2, %3;", "unsigned int", "r", "rrr"),
    "hipify_py_bfind_u32": ("bfind.u32 %0, %1;", "unsigned int", "r", "r"),
    "hipify_py_bfind_s32": ("bfind.s32 %0, %1;", "unsigned int", "r", "r"),
    "hipify_py_bfind_u64": ("bfind.u64 %0, %1;", "unsigned int", "r", "l"),
    "hipify_py_bfind_s64": ("bfind.s64 %0, %1;", "unsigned int", "r", "l"),
    "hipify_py_bfind_shiftamt_u32": ("bfind.shiftamt.u32 %0, %1;", "unsigned int", "r", "r"),
    "hipify_py_bfind_shiftamt_s32": ("bfind.shiftamt.s32 %0, %1;", "unsigned int", "r", "r"),
    "hipify_py_bfind_shiftamt_u64": ("bfind.shiftamt.u64 %0, %1;", "unsigned int", "r", "l"),
    "hipify_py_bfind_shiftamt_s64": ("bfind.shiftamt.s64 %0, %1;", "unsigned int", "r", "l"),
}


def _ptx_check(name: str) -> str:
    """The helper against the PTX instruction itself: values pseudo-random and edge, positions and
    lengths 0..80 (past the width) and pseudo-random 32-bit (only their low 8 bits count)."""
    template, out, oc, ins = _PTX_OF[name]
    args = []
    for k, c in enumerate(ins):
        if c == "l":
            args.append(f"wide<unsigned long long>(i, {k})")
        elif k >= len(ins) - 2:  # position, length
            args.append(f"(i & 1 ? lcg(i, {k}) : lcg(i, {k}) % 81u)")
        else:
            args.append(f"(unsigned int)edge(i, {k})")
    decls = "; ".join(
        f"const {'unsigned long long' if c == 'l' else 'unsigned int'} x{k} = {a}"
        for k, (c, a) in enumerate(zip(ins, args, strict=True))
    )
    operands = ", ".join(f'"{c}"(x{k})' for k, c in enumerate(ins))
    call = ", ".join(f"x{k}" for k in range(len(ins)))
    return f"""
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  {decls};
  {out} ptx;
  asm("{template}" : "={oc}"(ptx) : {operands});
  {out} mine = shim_{name}({call});
  if (mine != ptx && atomicAdd(bad, 1ULL) == 0) printf("  first: i %llu shim 0x%llx ptx 0x%llx\\n", i, (unsigned long long)mine, (unsigned long long)ptx);
}}"""


def _lop3_check(name: str) -> str:
    """lop3's truth table is an immediate: every one of the 256, each on 2^20 / 256 value triples."""
    cases = "\n".join(
        f'    case {lut}: asm("lop3.b32 %0, %1, %2, %3, {lut};" : "=r"(ptx) : "r"(a), "r"(b), "r"(c)); break;'
        for lut in range(256)
    )
    return f"""
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  const unsigned int lut = (unsigned int)(i & 255u), a = edge(i, 0), b = edge(i, 1), c = lcg(i, 2);
  unsigned int ptx = 0u;
  switch (lut) {{
{cases}
  }}
  unsigned int mine = shim_{name}(a, b, c, lut);
  if (mine != ptx && atomicAdd(bad, 1ULL) == 0) printf("  first: lut %u a 0x%x b 0x%x c 0x%x shim 0x%x ptx 0x%x\\n", lut, a, b, c, mine, ptx);
}}"""


def _dp_check(name: str) -> str:
    third = "(int)edge(i, 2)"
    return f"""
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  int a = (int)edge(i, 0), b = (int)edge(i, 1), c = {third};
  unsigned int ua = edge(i, 3), ub = edge(i, 4), uc = edge(i, 5);
  if (shim_{name}(a, b, c) != {name}(a, b, c)) atomicAdd(bad, 1ULL);
  if (shim_{name}(ua, ub, uc) != {name}(ua, ub, uc)) atomicAdd(bad, 1ULL);
}}"""


def _bf16_int_check(name: str) -> str:
    return f"""
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536u) return;
  unsigned short bits = (unsigned short)i;
  __nv_bfloat16 v; memcpy(&v, &bits, 2);
  long long s = (long long)shim_{name}(v), c = (long long){name}(v);
  if (s != c && atomicAdd(bad, 1ULL) == 0) printf("  first: bits 0x%04x shim %lld cuda %lld\\n", bits, s, c);
}}"""


_ROUNDED = re.compile(r"__f(add|sub|mul|div|rcp|sqrt|maf)_r[duz]|__d(add|sub|mul|div|rcp|sqrt)_r[duz]")


def _rounding_check(name: str) -> str:
    unary = name.startswith(("__frcp", "__fsqrt", "__drcp", "__dsqrt"))
    args = "a" if unary else "a, b, c" if name.startswith("__fmaf") else "a, b"
    if name.startswith("__f"):
        return _ROUNDING_KERNEL.format(
            name=name, args=args, t="float", u="unsigned int", w="%08x", edges=_F32_EDGES
        )
    tiny = "  if ((i & 7) == 3) { ba >>= 3; bb = (bb >> 2) | (1ULL << 62) * (i & 8 ? 1 : 0); }  // subnormal results\n"
    return (
        _ROUNDING_KERNEL.format(
            name=name, args=args, t="double", u="unsigned long long", w="%016llx", edges=_F64_EDGES
        )
        .replace("  float a,", tiny + "  float a,")
        .replace("float", "double")
    )


_F32_EDGES = """0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu,
    0x00800000u, 0x00000001u, 0x80000003u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
    0x3f800001u, 0x4b800001u, 0x3eaaaaabu, 0x0da24260u"""
_F64_EDGES = """0x0ULL, 0x8000000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL,
    0x7fefffffffffffffULL, 0xffefffffffffffffULL, 0x0010000000000000ULL, 0x0000000000000001ULL,
    0x8000000000000003ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL, 0x7ff8000000000000ULL,
    0x3ff0000000000001ULL, 0x4340000000000001ULL, 0x07b0000000000000ULL, 0x2000000000000001ULL"""
# one kernel per function: edge pairs, pseudo-random bits, near-cancelling pairs, fma triples whose c is
# near -a*b; results compared bit for bit, any NaN equal to any NaN
_ROUNDING_KERNEL = """
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  const {u} e[] = {{{edges}}};
  const {u} sign = ({u})1 << (8 * sizeof({u}) - 1);
  {u} ba = i < 256 ? e[i & 15] : wide<{u}>(i, 11), bb = i < 256 ? e[i >> 4] : wide<{u}>(i, 12);
  if (i >= 256 && (i & 3) == 0) bb = (ba ^ sign) + (lcg(i, 13) & 7) - 3;  // near-cancelling
  float a, b; memcpy(&a, &ba, sizeof a); memcpy(&b, &bb, sizeof b);
  {u} bc = (i & 3) == 1 ? e[i & 15] : wide<{u}>(i, 14);
  float c; memcpy(&c, &bc, sizeof c);
  if ((i & 3) == 2) {{ b = 1.0f + (float)(int)(lcg(i, 15) & 63) * 1.0e-7f; c = -(a * b) * (1.0f + (float)(int)(lcg(i, 16) & 3) * 6.0e-8f); }}
  (void)b; (void)c;
  float s = shim_{name}({args}), n = {name}({args});
  {u} bs, bn; memcpy(&bs, &s, sizeof s); memcpy(&bn, &n, sizeof n);
  if (bs != bn && !(s != s && n != n) && atomicAdd(bad, 1ULL) == 0) {{
    memcpy(&bb, &b, sizeof b); memcpy(&bc, &c, sizeof c);
    printf("  first {name}: {w} {w} {w} shim {w} cuda {w}\\n", ba, bb, bc, bs, bn);
  }}
}}"""


def _float2bf162_check(name: str) -> str:
    two = name.startswith("__floats")
    args = "a, b" if two else "a"
    return f"""
__device__ inline bool same_bf16(__nv_bfloat16 x, __nv_bfloat16 y) {{
  unsigned short p, q; memcpy(&p, &x, 2); memcpy(&q, &y, 2);
  bool nx = (p & 0x7f80) == 0x7f80 && (p & 0x7f), ny = (q & 0x7f80) == 0x7f80 && (q & 0x7f);
  return (nx && ny) || p == q;
}}
__global__ void k_{name}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
  unsigned int ba = edge(i, 6), bb = edge(i, 7);
  float a, b; memcpy(&a, &ba, 4); memcpy(&b, &bb, 4);
  (void)b;
  __nv_bfloat162 s = shim_{name}({args}), c = {name}({args});
  if (!same_bf16(s.x, c.x) || !same_bf16(s.y, c.y)) atomicAdd(bad, 1ULL);
}}"""


HALF_EDGES = r"""
__device__ inline unsigned int hedge(unsigned long long i, unsigned int salt) {
  // half and bf16 zeros, ones, infinities, NaNs (quiet, canonical, negative), denormals
  const unsigned short e[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7fff,
                              0xfe00, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001};
  if (i >= 4096) return lcg(i, salt);
  return e[(i >> (4 * salt)) & 15] | ((unsigned int)e[(i >> (4 * salt + 2)) & 15] << 16);
}
"""
_HALF_SIGNATURE = re.compile(
    r"static __device__ inline [\w ]+? shim_(__h\w+)\((const (__half2?|__hip_bfloat162?) a[^)]*)\)"
)


def _half_checks(shim_code: str) -> list[tuple[str, str]]:
    """(kernel name, kernel) per overload of a 16-bit float helper (data/half_math.py): every argument
    drawn from edge values and pseudo-random bits, results compared bit for bit (canonical NaNs too)."""
    found = []
    for m in _HALF_SIGNATURE.finditer(shim_code):
        name, params, type_ = m.group(1), m.group(2), m.group(3)
        if "hipify_py" in name:
            continue
        arity = params.count("const ")
        tag = f"{name.removeprefix('__')}_{type_.removeprefix('__')}"
        draws = "".join(
            f"  unsigned int w{k} = hedge(i, {k}); {type_} {v}; memcpy(&{v}, &w{k}, sizeof {v});\n"
            for k, v in enumerate("abc"[:arity])
        )
        args = ", ".join("abc"[:arity])
        found.append(
            (
                f"k_{tag}",
                f"""
__global__ void k_{tag}(unsigned long long* bad) {{
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i >= N_PAIRS) return;
{draws}  auto s = shim_{name}({args}); auto n = {name}({args});
  unsigned int bs = 0, bn = 0; memcpy(&bs, &s, sizeof s); memcpy(&bn, &n, sizeof n);
  if (bs != bn && atomicAdd(bad, 1ULL) == 0) printf("  first {tag}: args 0x%08x 0x%08x shim 0x%x cuda 0x%x\\n", w0, {"w1" if arity > 1 else "0u"}, bs, bn);
}}""",
            )
        )
    return found


ATOMICS = r"""
#define A_THREADS 8192
template <class T, class Add, class Native>
__global__ void k_atomic(T* shim_cells, T* native_cells, T* shim_old, T* native_old, int cells, T v, Add add, Native nat) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= A_THREADS) return;
  shim_old[i] = add(shim_cells + i % cells, v);
  native_old[i] = nat(native_cells + i % cells, v);
}
struct AddHalf2 { __device__ __half2 operator()(__half2* p, __half2 v) const { return shim_atomicAdd(p, v); } };
struct NatHalf2 { __device__ __half2 operator()(__half2* p, __half2 v) const { return atomicAdd(p, v); } };
struct AddHalf { __device__ __half operator()(__half* p, __half v) const { return shim_atomicAdd(p, v); } };
struct NatHalf { __device__ __half operator()(__half* p, __half v) const { return atomicAdd(p, v); } };
struct AddBf162 { __device__ __nv_bfloat162 operator()(__nv_bfloat162* p, __nv_bfloat162 v) const { return shim_atomicAdd(p, v); } };
struct NatBf162 { __device__ __nv_bfloat162 operator()(__nv_bfloat162* p, __nv_bfloat162 v) const { return atomicAdd(p, v); } };
struct AddBf16 { __device__ __nv_bfloat16 operator()(__nv_bfloat16* p, __nv_bfloat16 v) const { return shim_atomicAdd(p, v); } };
struct NatBf16 { __device__ __nv_bfloat16 operator()(__nv_bfloat16* p, __nv_bfloat16 v) const { return atomicAdd(p, v); } };
template <class Cas> __device__ unsigned short cas_increment(unsigned short* p, Cas cas) {
  unsigned short old = *p, assumed;  // failed compares (a neighbour's or this cell's change) retry
  do { assumed = old; old = cas(p, assumed, (unsigned short)(assumed + 1)); } while (old != assumed);
  return old;
}
struct ShimCas16 { __device__ unsigned short operator()(unsigned short* p, unsigned short c, unsigned short v) const { return shim_atomicCAS(p, c, v); } };
struct NatCas16 { __device__ unsigned short operator()(unsigned short* p, unsigned short c, unsigned short v) const { return atomicCAS(p, c, v); } };
struct AddU16 { __device__ unsigned short operator()(unsigned short* p, unsigned short) const { return cas_increment(p, ShimCas16()); } };
struct NatU16 { __device__ unsigned short operator()(unsigned short* p, unsigned short) const { return cas_increment(p, NatCas16()); } };
template <class T>
static unsigned long long bits_of(const T& x) { unsigned long long b = 0; memcpy(&b, &x, sizeof x); return b; }
#include <algorithm>
#include <vector>
template <class T, class Add, class Nat>
static void run_atomic(const char* name, int cells, T v) {
  T *sc, *nc, *so, *no;
  cudaMallocManaged(&sc, cells * sizeof(T)); cudaMallocManaged(&nc, cells * sizeof(T));
  cudaMallocManaged(&so, A_THREADS * sizeof(T)); cudaMallocManaged(&no, A_THREADS * sizeof(T));
  memset(sc, 0, cells * sizeof(T)); memset(nc, 0, cells * sizeof(T));
  k_atomic<<<A_THREADS / 256, 256>>>(sc, nc, so, no, cells, v, Add(), Nat());
  cudaError_t e = cudaDeviceSynchronize();
  long long bad = e != cudaSuccess;
  for (int c = 0; c < cells; ++c) bad += bits_of(sc[c]) != bits_of(nc[c]);
  for (int c = 0; c < cells; ++c) {
    std::vector<unsigned long long> a, b;
    for (int i = c; i < A_THREADS; i += cells) { a.push_back(bits_of(so[i])); b.push_back(bits_of(no[i])); }
    std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
    bad += a != b;
  }
  report(name, bad, cells * 2);
  cudaFree(sc); cudaFree(nc); cudaFree(so); cudaFree(no);
}
"""

ATOMIC_MAIN = r"""
  // sums stay exact: half integers to 2048, bf16 integers to 256; cells are 16-bit neighbours in one word
  run_atomic<__half2, AddHalf2, NatHalf2>("atomicAdd(__half2*)", 16, __halves2half2(__float2half(1.0f), __float2half(0.5f)));
  run_atomic<__half, AddHalf, NatHalf>("atomicAdd(__half*)", 8, __float2half(1.0f));
  run_atomic<__nv_bfloat162, AddBf162, NatBf162>("atomicAdd(__nv_bfloat162*)", 64, __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(0.5f)));
  run_atomic<__nv_bfloat16, AddBf16, NatBf16>("atomicAdd(__nv_bfloat16*)", 64, __float2bfloat16(1.0f));
  run_atomic<unsigned short, AddU16, NatU16>("atomicCAS(unsigned short*) increments", 8, (unsigned short)1);
"""


def _without(text: str, marks: tuple[str, ...]) -> str:
    return "\n".join(line for line in text.split("\n") if not any(m in line for m in marks))


def program(target: str) -> str:
    shims = shims_for(target)
    parts, launches, skipped = [PRELUDE], [], []
    atomics = False
    for name in sorted(shims):
        shim = shims[name]
        if shim.function in SKIP or name in SKIP:
            skipped.append(f'  printf("SKIP {name}: {SKIP.get(shim.function) or SKIP[name]}\\n");')
            continue
        if shim.name.startswith("hip") and shim.function not in (*_PTX_OF, "hipify_py_lop3_b32"):
            continue
        if shim.overload is not None and shim.overload.call in ("atomicAdd", "atomicCAS"):
            parts.append(helper_code(shim, target))
            atomics = True
            continue
        parts.append(helper_code(shim, target))
        fn = shim.function
        if re.fullmatch(r"__v\w+", fn):
            unary = re.search(rf"{re.escape('shim_' + fn)}\(unsigned int a\)", parts[-1]) is not None
            parts.append(_binary_check(fn, "unsigned int", 1 if unary else 2))
            grid = "(N_PAIRS + 255) / 256"
        elif fn in _PTX_OF:
            parts.append(_ptx_check(fn))
            grid = "(N_PAIRS + 255) / 256"
        elif fn == "hipify_py_lop3_b32":
            parts.append(_lop3_check(fn))
            grid = "(N_PAIRS + 255) / 256"
        elif fn.startswith("__dp"):
            parts.append(_dp_check(fn))
            grid = "(N_PAIRS + 255) / 256"
        elif _ROUNDED.fullmatch(fn):
            parts.append(_rounding_check(fn))
            grid = "(N_PAIRS + 255) / 256"
        elif fn.startswith("__bfloat162"):
            parts.append(_bf16_int_check(fn))
            grid = "65536 / 256"
        elif _half_checks(parts[-1]):
            if HALF_EDGES not in parts:
                parts.insert(1, HALF_EDGES)
            for kernel, text in _half_checks(parts[-1]):
                parts.append(text)
                launches.append(
                    f"  {{ cudaMemset(bad, 0, 8); {kernel}<<<(N_PAIRS + 255) / 256, 256>>>(bad); cudaError_t e = cudaDeviceSynchronize();"
                    f' report("{kernel[2:]}", e != cudaSuccess ? -1 : (long long)*bad, N_PAIRS); }}'
                )
            continue
        elif fn in ("__float2bfloat162_rn", "__floats2bfloat162_rn"):
            parts.append(
                _float2bf162_check(fn)
                .replace("__device__ inline bool same_bf16", f"__device__ inline bool same_bf16_{fn}")
                .replace("same_bf16(", f"same_bf16_{fn}(")
            )
            grid = "(N_PAIRS + 255) / 256"
        else:
            skipped.append(f'  printf("SKIP {name}: no comparison written\\n");')
            continue
        total = (
            "65536"
            if fn.startswith("__bfloat162")
            else ("2LL * N_PAIRS" if fn.startswith("__dp") else "N_PAIRS")
        )
        launches.append(
            f"  {{ cudaMemset(bad, 0, 8); k_{fn}<<<{grid}, 256>>>(bad); cudaError_t e = cudaDeviceSynchronize();"
            f' report("{fn}", e != cudaSuccess ? -1 : (long long)*bad, {total}); }}'
        )
    # the bf16 pairs only where the target's helper covers them (HIP 5.2 has no bf16 type: no helper)
    # and the 16-bit CAS only where the target lacks it (ROCm 7.0+ has its own: no helper, no shim_ name)
    absent = (() if any(n.startswith("atomicAdd") and "bf" in n for n in shims) else ("Bf16",)) + (
        () if "atomicCAS_ushort" in shims else ("Cas16", "U16")
    )
    if atomics:
        parts.append(_without(ATOMICS, absent))
    main = ["int main() {", "  unsigned long long* bad; cudaMallocManaged(&bad, 8);", *launches]
    if atomics:
        main.append(_without(ATOMIC_MAIN, absent))
    main += [*skipped, '  printf("%d failing\\n", failures);', "  return failures != 0;", "}"]
    return "\n".join(parts) + "\n" + "\n".join(main) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--hip-version", default="7.2", help="the target whose helpers are checked")
    args = parser.parse_args(argv)
    args.out.write_text(program(args.hip_version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
