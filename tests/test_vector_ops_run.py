"""User operators on cuComplex.h's types and vector types (HIP127): the translation computes what CUDA does.

CUDA gives cuDoubleComplex/float2 no operators, so code defines complex ones; HIP's types have their own
(element-wise; HIP 5.2's hip_complex.h: complex ones), equally good matches, so each use was ambiguous.
The fixture's program (tests/fixtures/vector_ops/complex_ops.cu) is translated for each hipcc present,
built and run (host side of its `__host__ __device__` operators; no GPU needed), and what it prints is
compared with CUDA's values, worked out by hand below (not taken from a HIP run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import Toolchain, params, run_translation

PROGRAM = Path(__file__).parent / "fixtures" / "vector_ops" / "complex_ops.cu"
# poly(z, w) = z*z*w - z/w + 0.5 (the `+ 0.5` is the user's real addition: the real part only) with
# z = 1+2i, w = 3-i: (-3+4i)(3-i) = -5+15i; z/w = (1+7i)/10; so -4.6+14.3i. z*2.0 = 2+4i.
# (1+2i)^2 / 2i = (-3+4i)/(2i) = 2+1.5i. z == z, z == w.
CUDA_PRINTS = ["-4.6", "14.3", "2", "4", "2", "1.5", "1", "0"]


@pytest.mark.parametrize("chain", params())
def test_complex_operators_compute_cudas_values(chain: Toolchain, tmp_path: Path) -> None:
    assert run_translation(chain, PROGRAM.read_bytes(), tmp_path, "complex_ops") == CUDA_PRINTS
