"""CUDA's cache-hint loads and stores (rules/cache_hints.py), its tables and the pointee types it reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import check_probe_table
from toolchains import NEEDS_NVCC, TARGETS, Toolchain, nvidia_platform, params

from hipify_py.analysis.declared import pointee_type
from hipify_py.engine.options import Options
from hipify_py.engine.parser import parse
from hipify_py.pipeline.translate import translate
from hipify_py.rules.cache_hints import hint_table, load_facts

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "cache_hints"


@pytest.mark.parametrize("chain", params())
def test_committed_overloads_match_each_hipcc(chain: Toolchain) -> None:
    """~12 s per toolchain (one device-side syntax check)."""
    check_probe_table("probe_cache_hints", chain)


def test_table_lists_cuda_s_intrinsics_and_types() -> None:
    table = hint_table()
    assert len(table.types) == 34 and len(set(table.types)) == 34
    assert sorted(n for n, k in table.kinds.items() if k == "store") == [
        "__stcg",
        "__stcs",
        "__stwb",
        "__stwt",
    ]
    assert table.aliases["half2"] == "__half2" and table.hip_spelling["__nv_bfloat16"] == "__hip_bfloat16"


@pytest.mark.parametrize("version", TARGETS)
def test_every_release_lacks_most_overloads(version: str) -> None:
    """What the probe found in HIP 5.2, ROCm 6.4 and 7.2 alike: __ldg for all but ushort4 and bf16,
    __ldcg/__ldca/__ldcs for __half/__half2 only, nothing else."""
    facts = load_facts(version)
    assert facts.version == version
    assert facts.lacks[b"__ldg"] == ("ushort4", "__nv_bfloat16", "__nv_bfloat162")
    assert facts.declared[b"__ldcs"] == {b"__half", b"__half2", b"half", b"half2"}
    for name in (b"__ldlu", b"__ldcv", b"__stwb", b"__stcg", b"__stcs", b"__stwt"):
        assert not facts.declared[name] and len(facts.lacks[name]) == 34


_DECLS = b"""
typedef unsigned long long u64;
struct S { const float* f; float** g; };
template <typename T> struct P { const T* t; const double* d; };
__global__ void k(const float4* in, float* __restrict__ s, const u64* u, float** pp,
                  S st, S* ps, P<int> pt, int i) {
  __shared__ double tile[32];
  __shared__ int grid[4][4];
  float x;
  use(EXPR);
}
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (b"in", b"float4"),
        (b"in + threadIdx.x", b"float4"),
        (b"i + in", b"float4"),
        (b"(s - 1)", b"float"),
        (b"&s[i]", b"float"),
        (b"&x", b"float"),
        (b"u + 2", b"unsigned long long"),
        (b"tile + i", b"double"),
        (b"&tile[3]", b"double"),
        (b"(const int2*)s", b"int2"),
        (b"reinterpret_cast<const longlong2*>(s)", b"longlong2"),
        (b"static_cast<__half*>(nullptr)", b"__half"),
        (b"pp[i]", None),  # a pointer read through a pointer: not stated by a declaration
        (b"pp", None),
        (b"st.f", b"float"),
        (b"ps->f + 1", b"float"),
        (b"st.g", None),
        (b"pt.d", b"double"),
        (b"pt.t", b"T"),  # the template's parameter: a type no HIP declares an overload for
        (b"grid[1]", None),
        (b"(float**)s", None),
        (b"i - in", None),
        (b"f(s)", None),
    ],
)
def test_pointee_type(expr: bytes, expected: bytes | None) -> None:
    source = _DECLS.replace(b"EXPR", expr)
    tree = parse(source)
    at = source.index(b"use(") + 4
    node = tree.root_node.descendant_for_byte_range(at, at + len(expr))
    while node.parent is not None and (node.parent.start_byte, node.parent.end_byte) == (at, at + len(expr)):
        node = node.parent
    assert pointee_type(source, node) == expected


def test_a_header_and_its_includer_define_a_helper_once() -> None:
    """The helper is guarded by its own macro: the second copy in one translation unit is skipped,
    and a file converted again keeps the one it has."""
    once = translate((FIXTURES / "hip64" / "issue_example.cu").read_bytes(), Options(hip_version="6.4")).text
    assert once.count(b"#define HIPIFY_PY_SHIM_hipify_py_ldcs") == 1
    assert translate(once, Options(hip_version="6.4")).text == once


@pytest.mark.slow
@NEEDS_NVCC
def test_helpers_keep_the_hint_on_the_nvidia_platform(tmp_path: Path) -> None:
    """On HIP's NVIDIA platform hip_runtime.h is CUDA's runtime header and hipcc runs nvcc: the
    helpers call CUDA's intrinsics, so the PTX keeps each cache operator. (Debian packages no HIP
    headers for that platform that CUDA 13 accepts: CUDA's headers stand in for them here.)"""
    text = translate((FIXTURES / "hip72" / "types.cu").read_bytes(), Options(hip_version="7.2")).text.decode()
    for hip, cuda in (
        ("hip_runtime.h", "cuda_runtime.h"),
        ("hip_fp16.h", "cuda_fp16.h"),
        ("hip_bf16.h", "cuda_bf16.h"),
    ):
        text = text.replace(f"<hip/{hip}>", f"<{cuda}>")
    proc = nvidia_platform(tmp_path, text.replace("__hip_bfloat162", "__nv_bfloat162"), "-ptx")
    assert proc.returncode == 0, proc.stderr[-3000:]
    ptx = (tmp_path / "nv.ptx").read_text()
    found = set(re.findall(r"\b(ld|st)\.global\.(nc|ca|cg|cs|lu|cv|wb|wt)\b", ptx))
    loads = {("ld", op) for op in ("nc", "ca", "cg", "cs", "lu", "cv")}
    assert found == loads | {("st", op) for op in ("wb", "cg", "cs", "wt")}
