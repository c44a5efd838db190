"""`x = {...}` on CUDA value types HIP's classes reject (rules/brace_assign.py) and its probe table."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import check_probe_table
from toolchains import Toolchain, params

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.brace_assign import load_facts

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("chain", params())
def test_committed_brace_facts_match_each_hipcc(chain: Toolchain) -> None:
    """~8-10 s per toolchain (it also builds and runs a program on the host)."""
    check_probe_table("probe_brace_assign", chain, nvcc=True, cuda_headers=True)


def test_float2_from_one_element_per_release() -> None:
    """`x = {1.5f}` on a float2: HIP rejects it everywhere; `float2{1.5f}` broadcasts in 6.4 (CUDA's
    assignment leaves y zero: unresolved) and sets x alone in 7.2 (the rewrite means CUDA's)."""
    assert 1 in load_facts("6.4")[b"float2"].unresolved
    assert 1 in load_facts("7.2")[b"float2"].rewrite


def test_table_knows_the_half2_ambiguity() -> None:
    facts = load_facts("5.2")
    assert 0 in facts[b"__half2"].rewrite and 0 in facts[b"half2"].rewrite
    assert 1 in facts[b"float4"].unresolved and 0 not in facts[b"float4"].rewrite


def _out(code: str) -> tuple[str, list[str]]:
    result = translate(code.encode(), Options(hip_version="5.2"))
    return result.text.decode(), [d.rule for d in result.diagnostics]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("__device__ void f() { __half2 x; x = {}; }", "x = __half2{};"),
        ("__device__ void f(half2 &x) { x = {}; }", "x = half2{};"),
        ("typedef __half2 h2; __device__ void f() { h2 x; x = {}; }", "x = __half2{};"),
        ("__device__ void f() { __half h; h = {1.0f}; }", "h = __half{1.0f};"),
        ("__device__ void f() { __nv_bfloat16 b; b = {1.0f}; }", "b = hip_bfloat16{1.0f};"),
        ("struct S { __half2 m; }; __device__ void f(S s) { s.m = {}; }", "s.m = __half2{};"),
        ("struct S { __half2 m; __device__ void r() { this->m = {}; } };", "this->m = __half2{};"),
        ("__device__ void f() { __half2 x; x = __half2{}; }", "x = __half2{};"),  # second run
        ("__device__ void f() { float4 x; x = {}; }", "x = {};"),  # HIP takes it
        ("__device__ void f(int x) { x = {}; }", "x = {};"),
        ("__device__ void f(__half2 *p) { p[0] = {}; }", "p[0] = {};"),  # element type: not looked up
        ("#define Z(v) v = {}\n__device__ void f() { __half2 x; Z(x); }", "v = {}"),  # macro: no type
        ("__device__ void f() { /* __half2 x; x = {}; */ }", "x = {}; */"),
    ],
)
def test_rewrite_only_where_the_type_is_stated(code: str, expected: str) -> None:
    text, rules = _out(code)
    assert expected in text
    assert "HIP130" not in rules


def test_unresolved_form_is_reported_not_rewritten() -> None:
    text, rules = _out("__device__ void f() { float4 v; v = {1.0f}; }")
    assert "v = {1.0f};" in text and rules.count("HIP130") == 1
