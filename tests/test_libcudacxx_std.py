"""libcu++'s cuda::std names (mappings/hand-kept/libcudacxx-std.yaml) are the C++ standard library's: every
exact name of the table is declared in namespace std by the header the table names, at C++17 under every
hipcc present, and the names it limits to C++20 (`device_limits`) at C++20, as the translation (HIP156,
HIP157) assumes; the C++20 names libcu++ has before C++20 (`backports`) compile and compute as the standard's
at C++17 and at C++20, in host and device code."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.libcudacxx_std import std_names

_CXX20 = frozenset({"span", "bit"})  # headers that C++17 does not have


def _probe(names: dict[str, str]) -> str:
    headers = sorted({h for h in names.values() if h not in _CXX20})
    lines = ["#include <hip/hip_runtime.h>", *(f"#include <{h}>" for h in headers)]
    lines += [f"#include <{h}>" for h in sorted(_CXX20 & set(names.values()))]
    lines += ["namespace probe {", *(f"using std::{n};" for n in sorted(names)), "}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("chain", params())
def test_every_name_is_the_standard_librarys(chain: Toolchain, tmp_path: Path) -> None:
    hipcc = require(chain)
    table = std_names()
    cxx17 = tmp_path / "cxx17.hip"
    cxx17.write_text(_probe(dict(table.headers)))
    done = syntax_check(hipcc, cxx17)
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize("chain", params())
def test_the_cxx20_names_are_cxx20s(chain: Toolchain, tmp_path: Path) -> None:
    hipcc = require(chain)
    table = std_names()
    names = {
        n: header for n, (header, why) in table.limited.items() if "C++20" in why and "-std=c++20" in why
    }
    assert {"span"} <= set(names)
    probe = tmp_path / "cxx20.hip"
    probe.write_text(_probe(names))
    if syntax_check(hipcc, probe, "-std=c++20").returncode != 0 and chain.version == "5.2":
        pytest.skip("HIP 5.2's clang and libstdc++ lack C++20's <span>/<bit> on this host")
    done = syntax_check(hipcc, probe, "-std=c++20")
    assert done.returncode == 0, done.stderr[-4000:]
    later = syntax_check(hipcc, probe)  # -std=c++17: they are not there
    assert later.returncode != 0


# Every backport, used as CUDA code uses it, with what it must compute asserted at compile time.
_BACKPORTS = b"""
#include <cstdio>
template <class T>
__host__ __device__ cuda::std::remove_cvref_t<T> copy_of(T&& v) { return v; }
template <class T>
void fill(typename cuda::std::type_identity<T>::type v, T* out) { *out = v; }
struct is_zero {
  __host__ __device__ constexpr bool operator()(int c) const { return c == 0; }
};
__global__ void k(const float* f, unsigned* u, int* i) {
  *u = cuda::std::bit_cast<unsigned>(*f);
  *i = cuda::std::identity{}(*i) + copy_of(*i);
  int pair[2] = {i[1], i[2]}, other[2] = {0, 0};
  cuda::std::swap(i[1], i[2]);
  cuda::std::swap(pair, other);
  i[3] = cuda::std::exchange(i[4], other[0]) + cuda::std::not_fn(is_zero{})(i[5]);
  u[1] = cuda::std::bit_ceil(u[1]) + cuda::std::popcount(u[2]) + cuda::std::rotl(u[3], 3);
  static_assert(cuda::std::is_bounded_array_v<int[3]> && !cuda::std::is_bounded_array<int[]>::value, "");
  static_assert(cuda::std::is_unbounded_array<int[]>::value && !cuda::std::is_unbounded_array_v<int[3]>, "");
}
static_assert(cuda::std::bit_cast<unsigned>(1.0f) == 0x3f800000u, "");
static_assert(cuda::std::identity{}(7) == 7, "");
static_assert(cuda::std::is_same<cuda::std::remove_cvref_t<const int&>, int>::value, "");
static_assert(cuda::std::is_same<cuda::std::type_identity_t<float>, float>::value, "");
constexpr int swapped() { int a = 1, b = 2; cuda::std::swap(a, b); return a * 10 + b; }
static_assert(swapped() == 21, "");
constexpr int exchanged() { int a = 1; int old = cuda::std::exchange(a, 5); return old * 10 + a; }
static_assert(exchanged() == 15, "");
static_assert(cuda::std::not_fn(is_zero{})(3) && !cuda::std::not_fn(is_zero{})(0), "");
static_assert(cuda::std::bit_ceil(5u) == 8u && cuda::std::bit_floor(5u) == 4u, "");
static_assert(cuda::std::bit_width(5u) == 3, "");
static_assert(cuda::std::bit_ceil(0u) == 1u && cuda::std::bit_floor(0u) == 0u, "");
static_assert(cuda::std::has_single_bit(8u) && !cuda::std::has_single_bit(6u), "");
static_assert(cuda::std::popcount(0xF0F0u) == 8 && cuda::std::countl_zero(1u) == 31, "");
static_assert(cuda::std::countr_zero(8u) == 3 && cuda::std::countl_zero(0ull) == 64, "");
static_assert(cuda::std::countl_zero(static_cast<unsigned char>(1)) == 7, "");
static_assert(cuda::std::countl_one(0xFF00FF00u) == 8 && cuda::std::countr_one(7u) == 3, "");
static_assert(cuda::std::rotl(0x80000001u, 1) == 3u && cuda::std::rotr(3u, 1) == 0x80000001u, "");
static_assert(cuda::std::rotl(1u, -1) == 0x80000000u, "");
constexpr bool folded = cuda::std::is_constant_evaluated();
static_assert(folded, "");
int main() {
  int x = 0;
  fill(2.5, &x);  // type_identity: T from the pointer only, 2.5 converted
  std::printf("%d %d\\n", x, cuda::std::is_constant_evaluated() ? 1 : 0);
}
"""


@pytest.mark.parametrize("chain", params())
@pytest.mark.parametrize("std", ["c++17", "c++20"])
def test_the_backports_compile_as_the_standards(chain: Toolchain, std: str, tmp_path: Path) -> None:
    hipcc = require(chain)
    table = std_names()
    used = {n for n in table.backports if f"cuda::std::{n}".encode() in _BACKPORTS}
    assert used == set(table.backports)  # the probe uses every name the table backports
    probe = tmp_path / "backports.hip"
    probe.write_bytes(translate(_BACKPORTS, Options(hip_version=chain.version)).text)
    done = syntax_check(hipcc, probe, f"-std={std}")
    if done.returncode != 0 and std == "c++20" and chain.version == "5.2":
        pytest.skip("HIP 5.2's clang and libstdc++ lack C++20's <bit> on this host")
    assert done.returncode == 0, done.stderr[-4000:]
