"""CUDA runtime errors HIP never returns are written as their CUDA value (rules/never_returned.py): no
hipError_t enumerator of any release may have one of those values, or a test for the CUDA error would
hold for a HIP error."""

from __future__ import annotations

import re

import pytest
from toolchains import Toolchain, params

from hipify_py.data.detector_data import NEVER_RETURNED_ERRORS

_ENUM = re.compile(rb"typedef enum[^{]*\bhipError_t\s*\{(.*?)\}\s*hipError_t\s*;", re.S)
_VALUE = re.compile(rb"\b(hipError\w+)\s*=\s*(-?\d+)\b")


def hip_error_values(header: bytes) -> dict[bytes, int]:
    body = _ENUM.search(header)
    assert body is not None, "no hipError_t enum in hip_runtime_api.h"
    return {name: int(value) for name, value in _VALUE.findall(body.group(1))}


@pytest.mark.parametrize("chain", params())
def test_no_hip_error_has_a_never_returned_value(chain: Toolchain) -> None:
    if chain.include is None:
        pytest.skip(f"HIP {chain.version}'s headers are not here: run scripts/provision_rocm.py")
    values = hip_error_values((chain.include / "hip" / "hip_runtime_api.h").read_bytes())
    assert len(values) > 50, "hipError_t read incompletely"
    taken = {v: n for n, v in values.items()}
    clashes = {n: taken[v] for n, v in NEVER_RETURNED_ERRORS.items() if v in taken}
    assert not clashes, f"HIP {chain.version} has enumerators with these values: {clashes}"
    lacking = [n for n in NEVER_RETURNED_ERRORS if b"hip" + n[4:] in values]
    assert not lacking, f"HIP {chain.version} has a counterpart, map the name instead: {lacking}"
