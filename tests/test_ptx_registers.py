"""Reads of PTX special registers (rules/ptx_equivalents.py, helpers of mappings/hand-kept/shims.yaml):
which asm forms are read as one, and what the helpers compile to on HIP's NVIDIA platform."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixture_cases import FIXTURES
from toolchains import NEEDS_NVCC, nvidia_platform

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.ptx_equivalents import special_reads


@pytest.mark.parametrize(
    "text,assignment",
    [
        (b'asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));', b"((lane) = hipify_py_laneid())"),
        (b'asm ("mov.u32 %0, %%smid;" : "=r"(ret) : );', b"((ret) = hipify_py_smid())"),
        (b'__asm__ __volatile__("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");', b"((t) = clock64())"),
        (b'asm("mov.b32 %0, %%lanemask_ge;" : "=r"(m[i]));', b"((m[i]) = hipify_py_lanemask_ge())"),
        (b'asm("mov.u32 %0, %%globaltimer_lo;" : "=r"(t));', None),  # no counterpart
        (b'asm("mov.u32 %0, %%warpid;" : "=r"(w));', None),
        (b'asm("mov.u32 %0, %%laneid;" : "=r"(a), "=r"(b));', None),  # a second output: not one read
    ],
)
def test_special_register_reads(text: bytes, assignment: bytes | None) -> None:
    found = special_reads(text)
    if assignment is None:
        assert found == []
    else:
        assert found == [(0, len(text) - 1, assignment)]


@pytest.mark.slow
@NEEDS_NVCC
def test_helpers_read_the_register_on_the_nvidia_platform(tmp_path: Path) -> None:
    """On HIP's NVIDIA platform the helpers keep CUDA's PTX register reads (CUDA's runtime header stands
    in for hip_runtime.h, as in tests/test_cache_hints.py)."""
    source = (FIXTURES / "device" / "ptx_equivalents_special.cu").read_bytes()
    text = translate(source, Options(hip_version="7.2")).text.decode()
    proc = nvidia_platform(tmp_path, text.replace("<hip/hip_runtime.h>", "<cuda_runtime.h>"), "-ptx")
    assert proc.returncode == 0, proc.stderr[-3000:]
    ptx = (tmp_path / "nv.ptx").read_text()
    registers = set(re.findall(r"%(laneid|smid|lanemask_\w+|clock64)\b", ptx))
    assert registers == {"laneid", "smid", "lanemask_le", "lanemask_lt", "clock64"}
