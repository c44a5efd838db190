"""Device code HIP lacks (scripts/probe_device_gaps.py -> mappings/device-gaps-<HIP>.yaml) and what
hipify-py writes for it: the atomicAdd overloads on 16-bit floats and the device hipGetErrorString /
hipGetErrorName of mappings/shims.yaml, `__trap` -> `__builtin_trap` (version-renames.yaml).

The tables agree with the probes of every release; the atomics are run on the host (atomicCAS and the
16-bit types stubbed, __device__ defined away) against a Python model of CUDA's semantics; the shims
are written for device uses only. Their fixtures (tests/fixtures/device) are compiled by each
release's hipcc (tests/test_hipcc_examples.py).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import check_probe_table
from toolchains import Toolchain, params

from hipify_py.data.renames import renames_for
from hipify_py.data.shim_table import definition, error_strings, load_table, shims_for
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

REPO = Path(__file__).resolve().parent.parent
CXX = shutil.which("c++") or shutil.which("g++")
PROBED = ("5.2", "6.4", "7.2")


@pytest.mark.parametrize("chain", params())
def test_probe_table_is_current(chain: Toolchain) -> None:
    check_probe_table("probe_device_gaps", chain)


def _probed(version: str) -> dict:
    return yaml.safe_load((REPO / "mappings" / "probed" / f"device-gaps-{version}.yaml").read_text())


@pytest.mark.parametrize("version", PROBED)
def test_tables_agree_with_the_probe(version: str) -> None:
    """A shim holds for a release exactly where its probe says the release lacks the function; the
    __trap rename's replacement compiles there."""
    probed = _probed(version)
    lacks, has = set(probed["lacks"]), set(probed["has"])
    shims = shims_for(version)
    for shim in load_table():
        if shim.overload is not None:
            fact = f"{shim.overload.call}({shim.overload.types[0]} *)"
            # 5.2 has no __hip_bfloat16 to probe: its rows start at 5.7 (hip_bf16.h)
            assert (shim.name in shims) == (fact in lacks), (version, fact)
        elif shim.device:
            assert (shim.name in shims) == (f"device {shim.name}" in lacks), (version, shim.name)
    assert "__trap" in lacks and "__builtin_trap" in has
    assert renames_for(version).names[b"__trap"].hip == "__builtin_trap"


def test_cuda_device_error_functions_have_no_hip_device_version() -> None:
    for version in PROBED:
        assert {"device hipGetErrorString", "device hipGetErrorName"} <= set(_probed(version)["lacks"])


# -- what the atomics compute ------------------------------------------------------------------------

_STUBS = r"""
#include <cstdio>
#include <cstring>
typedef _Float16 __half;
struct __half2 { _Float16 x, y; };
static __half __hadd(__half a, __half b) { return a + b; }  // GCC: in float, then rounded (exact)
static __half2 __hadd2(__half2 a, __half2 b) { return {(_Float16)(a.x + b.x), (_Float16)(a.y + b.y)}; }
struct __hip_bfloat16 { unsigned short bits; };
struct __hip_bfloat162 { __hip_bfloat16 x, y; };
static float __bfloat162float(__hip_bfloat16 b) {
  unsigned u = (unsigned)b.bits << 16; float f; memcpy(&f, &u, 4); return f;
}
static __hip_bfloat16 __float2bfloat16(float f) {  // round to nearest even (no NaN in these tests)
  unsigned u; memcpy(&u, &f, 4); u += 0x7fffu + ((u >> 16) & 1u); return {(unsigned short)(u >> 16)};
}
static unsigned atomicCAS(unsigned* p, unsigned compare, unsigned value) {
  unsigned old = *p; if (old == compare) *p = value; return old;
}
"""


def _f16_bits(x: float) -> int:
    return struct.unpack("<H", struct.pack("<e", x))[0]


def _f16(bits: int) -> float:
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def _bf16(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def _bf16_bits(x: float) -> int:
    """Round to nearest even from an exactly representable float (the test values' sums are)."""
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def _model_half(a: int, b: int) -> int:
    return _f16_bits(_f16(a) + _f16(b))  # the exact sum, rounded once (Python: binary64, then binary16)


def _model_bf16(a: int, b: int) -> int:
    return _bf16_bits(_bf16(a) + _bf16(b))


# (word's two 16-bit halves, value added): ties that round to even, carries, signs, subnormals
_HALF_CASES = [
    (_f16_bits(1.0), _f16_bits(2.0**-11)),  # a tie: stays 1.0
    (_f16_bits(1.0 + 2.0**-10), _f16_bits(2.0**-11)),  # a tie: rounds up to even
    (_f16_bits(-3.5), _f16_bits(1.25)),
    (_f16_bits(6.0e-8), _f16_bits(6.0e-8)),  # subnormals
    (_f16_bits(65504.0), _f16_bits(-0.5)),
]
_BF16_CASES = [
    (0x3F80, 0x3B80),  # 1 + 2^-8: a tie, stays 1.0
    (0x3F81, 0x3B80),  # (1 + 2^-7) + 2^-8: a tie, rounds up to even
    (0xC060, 0x3FA0),  # -3.5 + 1.25
    (0x4120, 0xBF00),  # 10 - 0.5
]


def _run(tmp_path: Path, body: list[str]) -> list[int]:
    assert CXX is not None
    shims = [s for s in load_table() if s.overload is not None and s.overload.call.startswith("atomic")]
    lines = [
        _STUBS,
        *(definition(s, "7.2").decode() for s in shims),
        "int main() {",
        *body,
        "  return 0;",
        "}",
    ]
    src, exe = tmp_path / "atomics.cpp", tmp_path / "atomics"
    src.write_text("\n".join(lines))
    cmd = [CXX, "-std=c++17", "-O1", "-D__device__=", "-D__HIP_PLATFORM_AMD__", str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return [int(word, 16) for word in out.split()]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_scalar_atomics_add_in_their_half_of_the_word(tmp_path: Path) -> None:
    """atomicAdd(__half*)/atomicAdd(__hip_bfloat16*): the old value back, the sum rounded to nearest
    even in its own 16 bits, the other half of the 32-bit word untouched, at either offset."""
    body, expected = [], []
    for kind, cases, model in (
        ("__half", _HALF_CASES, _model_half),
        ("__hip_bfloat16", _BF16_CASES, _model_bf16),
    ):
        for old, add in cases:
            for slot in (0, 1):
                other = 0xBEEF
                words = [old, other] if slot == 0 else [other, old]
                body += [
                    f"  {{ alignas(4) unsigned short m[2] = {{0x{words[0]:x}, 0x{words[1]:x}}};",
                    f"    unsigned short a = 0x{add:x}; {kind} v; memcpy(&v, &a, 2);",
                    f"    {kind} r = atomicAdd(reinterpret_cast<{kind}*>(&m[{slot}]), v);",
                    '    unsigned short rb; memcpy(&rb, &r, 2); printf("%x %x %x\\n", rb, m[0], m[1]); }',
                ]
                new = model(old, add)
                expected += [old, *([new, other] if slot == 0 else [other, new])]
    assert _run(tmp_path, body) == expected


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_pair_atomics_add_both_halves(tmp_path: Path) -> None:
    """atomicAdd(__half2*)/atomicAdd(__hip_bfloat162*): each half its own rounded sum, the old pair back."""
    body, expected = [], []
    for kind, cases, model in (
        ("__half2", _HALF_CASES, _model_half),
        ("__hip_bfloat162", _BF16_CASES, _model_bf16),
    ):
        for (old_lo, add_lo), (old_hi, add_hi) in zip(cases, cases[1:] + cases[:1], strict=True):
            body += [
                f"  {{ alignas(4) unsigned short m[2] = {{0x{old_lo:x}, 0x{old_hi:x}}};",
                f"    unsigned short a[2] = {{0x{add_lo:x}, 0x{add_hi:x}}}; {kind} v; memcpy(&v, a, 4);",
                f"    {kind} r = atomicAdd(reinterpret_cast<{kind}*>(m), v);",
                "    unsigned short rb[2]; memcpy(rb, &r, 4);",
                '    printf("%x %x %x %x\\n", rb[0], rb[1], m[0], m[1]); }',
            ]
            expected += [old_lo, old_hi, model(old_lo, add_lo), model(old_hi, add_hi)]
    assert _run(tmp_path, body) == expected


# -- where the shims are written ---------------------------------------------------------------------


def test_device_error_functions_only_for_device_uses() -> None:
    host = b'#include <cstdio>\nvoid f(cudaError_t e) { printf("%s", cudaGetErrorString(e)); }\n'
    assert b"HIPIFY_PY_SHIM_" not in translate(host, Options(hip_version="7.2")).text
    both = host + b'__host__ __device__ void g(cudaError_t e) { printf("%s", cudaGetErrorName(e)); }\n'
    result = translate(both, Options(hip_version="7.2"))
    assert b"#define HIPIFY_PY_SHIM_hipGetErrorName\n" in result.text
    assert b"HIPIFY_PY_SHIM_hipGetErrorString" not in result.text
    assert [d.rule for d in result.diagnostics] == ["HIP223"]
    assert translate(result.text, Options(hip_version="7.2")).text == result.text


@pytest.mark.parametrize("version", PROBED)
def test_error_strings_are_the_runtime_ones(version: str) -> None:
    rows, unknown = error_strings(version)
    probed = _probed(version)
    assert [list(map(str, r)) for r in probed["errors"]] == [list(r) for r in rows]
    assert list(unknown) == probed["unknown"]
    code = b"__device__ const char* f(cudaError_t e) { return cudaGetErrorString(e); }\n"
    text = translate(code, Options(hip_version=version)).text.decode()
    assert f'  case hipErrorInvalidValue: return "{rows[1][2]}";' in text
    assert f'  default: return "{unknown[1]}";' in text


def test_atomics_untyped_or_float_get_no_overload() -> None:
    """No guess: a pointer whose type the code does not spell, or a float one, writes nothing."""
    code = (
        b"#include <cuda_fp16.h>\n"
        b"template <class T> __device__ void add(T* p, T v) { atomicAdd(p, v); }\n"
        b"__global__ void k(float* f) { atomicAdd(f, 1.0f); }\n"
    )
    assert b"HIPIFY_PY_SHIM_" not in translate(code, Options(hip_version="7.2")).text


@pytest.mark.parametrize("chain", params())
def test_half_math_table_is_current(chain: Toolchain) -> None:
    """scripts/probe_half_math.py: the 16-bit float functions each release lacks (data/half_math.py)."""
    check_probe_table("probe_half_math", chain)


def test_half_math_helpers_follow_the_probe() -> None:
    """A helper for exactly the overloads the target lacks: __hmax2 on __half2 everywhere, the bf16
    `_nan` forms from 6.4, __hmax for __half before HIP 5.5 (the tables' hip_added)."""
    from hipify_py.data.shim_table import shims_for

    assert "__half2 __hmax2(" in shims_for("7.2")["__hmax2"].code
    assert "__hip_bfloat162 __hmax2(" not in shims_for("7.2")["__hmax2"].code
    assert "__hip_bfloat162 __hmax2_nan(" in shims_for("6.4")["__hmax2_nan"].code
    assert "__hmax" in shims_for("5.2") and "__hmax" not in shims_for("5.5")
    assert "__hadd_rn" in shims_for("6.4") and "__hadd_rn" not in shims_for("7.2")
