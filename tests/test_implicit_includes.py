"""C headers nvcc includes implicitly (rules/implicit_includes.py, HIP135): the probe tables against each
real hipcc, and the rule on small inputs. Fixtures: tests/fixtures/implicit_includes/hip64, hip72."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO, load_script
from toolchains import Toolchain, params, require

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.implicit_includes import implicit_headers


@pytest.mark.parametrize("chain", params())
def test_probe_table_matches_each_hipcc(chain: Toolchain) -> None:
    """scripts/probe_implicit_includes.py --check against the committed table of every target."""
    hipcc = require(chain)
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed: it says what CUDA declares implicitly")
    probe = load_script("probe_implicit_includes")
    out = REPO / "mappings" / "probed" / f"{probe.PREFIX}{chain.version}.yaml"
    assert probe.main(["--hipcc", hipcc, "--check", "--out", str(out)]) == 0


def test_table_per_target() -> None:
    for target in ("5.2", "6.4", "7.2"):
        version, table, cxx = implicit_headers(target)
        assert version == target and table[b"isfinite"] == table[b"signbit"] == b"math.h"
        assert b"math.h" not in cxx  # <cmath> declares std::isfinite only
    assert b"strlen" not in implicit_headers("6.4")[1]
    version, table, cxx = implicit_headers("7.2")
    assert table[b"strlen"] == b"string.h" and table[b"memcpy"] == b"string.h" and b"string.h" in cxx


SYNC = b"void sync() { cudaDeviceSynchronize(); }\n"  # CUDA code elsewhere: the file is converted


@pytest.mark.parametrize(
    ("source", "added"),
    [
        (b"__global__ void k() {}\nvoid f(char* s) { k<<<1, 1>>>(); (void)strlen(s); }\n", True),
        (b"#include <string.h>\nvoid f(char* s) { cudaDeviceSynchronize(); (void)strlen(s); }\n", False),
        (b"void f(char* s) { cudaDeviceSynchronize(); /* strlen(s) */ }\n", False),  # a comment
        (b"void f(S& s) { cudaDeviceSynchronize(); s.memcpy(1); }\n", False),  # a member
        (b"void f(char* s) { (void)strlen(s); }\n", False),  # no CUDA: the file stays as it is
        (b"__device__ void f(char* s) { memcpy(s, s + 1, 1); }\n" + SYNC, False),  # HIP's device memcpy
        (b"__host__ __device__ void f(char* s) { memcpy(s, s + 1, 1); }\n" + SYNC, True),  # host pass too
    ],
)
def test_added_only_for_calls_in_converted_code(source: bytes, added: bool) -> None:
    out = translate(source, Options(hip_version="7.2")).text
    assert (b"#include <string.h>" in out and b"#include <string.h>" not in source) is added


@pytest.mark.parametrize(
    ("source", "added"),
    [
        (b"#include <cmath>\nvoid f(float x) { cudaDeviceSynchronize(); (void)isfinite(x); }\n", True),
        (b"#include <math.h>\nvoid f(float x) { cudaDeviceSynchronize(); (void)isnan(x); }\n", False),
        (b"void f(float x) { cudaDeviceSynchronize(); (void)std::isnan(x); }\n", False),  # <cmath>'s
        (b"__global__ void k(float* x) { x[0] = isnan(x[1]); }\n" + SYNC, False),  # HIP's device overloads
        (b"__host__ __device__ bool ok(float x) { return !isinf(x); }\n" + SYNC, True),
    ],
)
@pytest.mark.parametrize("target", ["5.2", "6.4", "7.2"])
def test_math_h_for_host_classification(source: bytes, added: bool, target: str) -> None:
    out = translate(source, Options(hip_version=target)).text
    assert (b"#include <math.h>" in out and b"#include <math.h>" not in source) is added


def test_derived_round_trip(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from hipify_py.data import derived
    from hipify_py.rules.implicit_includes import _build

    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path))
    built = derived.load("implicit-includes", _build, "7.2")
    assert (
        derived.load("implicit-includes", lambda *a: pytest.fail("rebuilt"), "7.2") == built == _build("7.2")
    )


def test_thrust_table_per_target() -> None:
    from hipify_py.rules.implicit_includes import thrust_headers

    version, table = thrust_headers("6.4")
    assert version == "6.4" and table[b"copy"][0] == b"copy.h" and b"device_vector.h" in table[b"copy"][1]
    assert thrust_headers("7.2") == ("7.2", {})  # ROCm 7.2's rocThrust brings along what CUDA 13's does


@pytest.mark.parametrize(
    ("source", "added"),
    [
        (
            b"#include <thrust/device_vector.h>\nvoid f(thrust::device_vector<int>& v, int* o) {"
            b" thrust::copy(v.begin(), v.end(), o); cudaDeviceSynchronize(); }\n",
            True,
        ),
        (
            b"#include <thrust/device_vector.h>\n#include <thrust/copy.h>\n"
            b"void f(thrust::device_vector<int>& v, int* o) { thrust::copy(v.begin(), v.end(), o);"
            b" cudaDeviceSynchronize(); }\n",
            False,
        ),
        (
            b"#include <thrust/transform.h>\nvoid f(int* v, int* o) { thrust::copy(v, v + 1, o);"
            b" cudaDeviceSynchronize(); }\n",
            False,
        ),  # CUDA's transform.h does not bring copy.h either
        (
            b"#include <thrust/device_vector.h>\nvoid f(int* v, int* o) { /* thrust::copy(v, v, o) */"
            b" cudaDeviceSynchronize(); }\n",
            False,
        ),
    ],
)
def test_thrust_header_after_the_including_one(source: bytes, added: bool) -> None:
    out = translate(source, Options(hip_version="6.4")).text
    assert (out.count(b"#include <thrust/copy.h>") > source.count(b"#include <thrust/copy.h>")) is added
    assert translate(source, Options(hip_version="7.2")).text.count(b"thrust/copy.h") == source.count(
        b"thrust/copy.h"
    )
