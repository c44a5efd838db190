"""CUDA math functions HIP defines for the device only, called from host code (HIP217)."""

from __future__ import annotations

import pytest
from conftest import check_probe_table
from toolchains import Toolchain, params

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.detectors.host_math import device_only_math


@pytest.mark.parametrize("chain", params())
def test_committed_table_matches_each_hipcc(chain: Toolchain) -> None:
    check_probe_table("probe_host_math", chain, nvcc=True)  # CUDA's headers say what the host has


def test_host_callable_since_6_4() -> None:
    """rsqrtf, sinpi and cospi are host functions too in ROCm 6.4 and 7.2; erfcinv still is not."""
    for version in ("6.4", "7.2"):
        found, names = device_only_math(version)
        assert found == version and not names & {b"rsqrtf", b"sinpi", b"cospi"} and b"erfcinv" in names


def test_table() -> None:
    version, names = device_only_math("5.2")
    assert version == "5.2"
    assert {b"rsqrtf", b"sinpi", b"normcdf", b"erfcinv"} <= names
    # libm has them on the host, and atomics/intrinsics are device-only in CUDA as well
    assert not names & {b"sqrtf", b"exp10", b"atomicAdd", b"__fdividef"}


def _rules(code: str) -> list[str]:
    return [d.rule for d in translate(code.encode(), Options(hip_version="5.2")).diagnostics]


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ("int main() { return (int)rsqrtf(4.0f); }\n", True),
        ("struct S { float f(float x) { return sinpif(x); } };\n", True),
        ("__device__ float f(float x) { return rsqrtf(x); }\n", False),
        ("#define DEV __device__\nDEV float f(float x) { return rsqrtf(x); }\n", False),
        ("#define R(x) rsqrtf(x)\n", False),
        ("float g = rsqrtf(4.0f);\n", False),  # file scope: not said
        ("float rsqrtf(float x) { return 1 / x; }\nint main() { return rsqrtf(2); }\n", False),
        ("int main() { return (int)my::rsqrtf(4.0f); }\n", False),
        ("int main() { // rsqrtf(4.0f)\n return 0; }\n", False),
    ],
)
def test_host_calls(code: str, found: bool) -> None:
    assert ("HIP217" in _rules(code)) == found
