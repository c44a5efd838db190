"""libcu++ atomics on HIP's atomic builtins (mappings/hand-kept/header-shims.yaml): the translation computes
what CUDA does.

The fixture's program (tests/fixtures/shims/hip64/libcudacxx_atomic.cu) is translated for each hipcc
present, built and run (its main() runs every operation on the host; no GPU needed), and what it prints is
compared with CUDA's values, worked out below from the C++ atomics rules libcu++ follows (the same program
built with nvcc and CUDA's own <cuda/atomic> printed them on an H100)."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import Toolchain, params, run_translation

PROGRAM = Path(__file__).parent / "fixtures" / "shims" / "hip64" / "libcudacxx_atomic.cu"
# x = 5: fetch_add(3) gives 5 (x 8); CAS 8 -> 10 succeeds; CAS expecting 1 fails and loads 10 into it;
# max(10, 20) = 20, min(20, 15) = 15, -2 = 13, ++ = 14, | 0x100 = 270, & 0x1ff = 270, ^ 1 = 271.
# total: 4 + 6 = 10, exchange(9) gives 10; u: 3 - 5 wraps to 2^32 - 2; d: 1 + 0.25 - 0.5;
# cuda::atomic<int> is as large as an int (arrays of them alias device buffers of int).
CUDA_PRINTS = ["5", "1", "0", "10", "271", "10", "9", "4294967294", "0.75", "4"]


@pytest.mark.parametrize("chain", params())
def test_atomic_operations_compute_cudas_values(chain: Toolchain, tmp_path: Path) -> None:
    assert run_translation(chain, PROGRAM.read_bytes(), tmp_path, "libcudacxx_atomic") == CUDA_PRINTS
