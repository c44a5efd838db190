"""libcu++'s target dispatch on HIP (mappings/hand-kept/header-shims.yaml, analysis/nv_target.py): the
translation keeps the block CUDA keeps in each pass.

The fixture's program is translated for each hipcc present, built and run: main() prints the host pass's
choices, and its static_asserts (evaluated by the device pass) fail the build if the device pass keeps
another block. CUDA's host pass keeps the same blocks (no architecture query holds on the host); on
the device AMD keeps the blocks of an NVIDIA GPU older than sm_35, as ROCm's libhipcxx does."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import Toolchain, params, run_translation

PROGRAM = Path(__file__).parent / "fixtures" / "shims" / "hip52" / "nv_target.cu"
# pass(): 0 on the host; newest(): NV_IS_HOST's 2; only_host(): 3 + 4; either(): the else of SM_70
CUDA_PRINTS = ["0", "2", "7", "3"]


@pytest.mark.parametrize("chain", params())
def test_dispatch_keeps_the_block_of_each_pass(chain: Toolchain, tmp_path: Path) -> None:
    assert run_translation(chain, PROGRAM.read_bytes(), tmp_path, "nv_target") == CUDA_PRINTS
