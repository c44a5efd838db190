"""Device-call casts (rules/device_casts.py), their probe table, and the declared-type helper."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import check_probe_table
from toolchains import Toolchain, params

from hipify_py.analysis.declared import expression_type
from hipify_py.engine.options import Options
from hipify_py.engine.parser import parse
from hipify_py.pipeline.translate import translate
from hipify_py.rules.device_casts import load_casts

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("chain", params())
def test_committed_device_casts_match_each_hipcc(chain: Toolchain) -> None:
    check_probe_table("probe_device_calls", chain, cuda_headers=True)


def test_table_has_the_known_ambiguity() -> None:
    casts = load_casts("5.2").casts[b"__ffsll"]
    assert any(c.cast == b"long long" and b"unsigned long" in c.types and c.uniform for c in casts)


def _out(code: str, version: str = "5.2") -> str:
    return translate(code.encode(), Options(hip_version=version)).text.decode()


@pytest.mark.parametrize(
    ("code", "cast"),
    [
        ("__device__ int f(unsigned long x) { return __ffsll(x); }", True),
        ("__device__ int f(unsigned long long x) { return __ffsll(x); }", False),
        ("__device__ int f(long long x) { return __ffsll(x); }", False),
        ("__device__ int f() { return __ffsll(1ul); }", True),
        ("__device__ int f() { return __ffsll(1ll); }", False),
        ("__device__ int f(unsigned x, int y) { return __ffsll(x ^ y); }", True),  # type not stated
        ("__device__ int f(int x) { return __ffs(x); }", False),
        ("__device__ int f(long x) { return __ffs(x); }", True),
        ("struct S { __device__ int __ffsll(long); }; __device__ int f(S s) { return s.__ffsll(1); }", False),
        ("__device__ int f(unsigned long a, unsigned long b) { return __ffsll(a, b); }", False),  # not CUDA's
        ("__device__ int f(unsigned x) { return __ffsll(__popc(x)); }", True),  # __popc returns int
        ("__device__ int f(double d) { return __ffsll(__double_as_longlong(d)); }", False),  # long long
        ("__device__ int f() { return __ffs(__activemask()); }", False),  # the warp-sync rule's
    ],
)
def test_cast_only_where_needed(code: str, cast: bool) -> None:
    assert ("static_cast<" in _out(code)) == cast


def test_no_table_for_the_target_keeps_the_oldest_facts() -> None:
    # a target older than every probe file uses the oldest one (the facts most likely to hold)
    code = "__device__ int f(unsigned long x) { return __ffsll(x); }"
    assert "static_cast<long long>(x)" in _out(code, "4.0")


@pytest.mark.parametrize(
    ("decls", "expr", "expected"),
    [
        ("", "1", b"int"),
        ("", "1u", b"unsigned int"),
        ("", "0x10ULL", b"unsigned long long"),
        ("", "2.0f", b"float"),
        ("", "2.0", b"double"),
        ("", "(long long)v", b"long long"),
        ("", "static_cast<unsigned>(v)", b"unsigned int"),
        ("uint64_t v;", "v", b"unsigned long"),
        ("typedef unsigned long long u64; u64 v;", "v", b"unsigned long long"),
        ("using w = unsigned short int; w v;", "v", b"unsigned short"),
        ("const long int v = 1;", "v", b"long"),
        ("int *v;", "v", None),
        ("int v[3];", "v", None),
        ("auto v = 1;", "v", None),
        ("", "v", None),
        ("int v;", "v + 1", None),
    ],
)
def test_expression_type(decls: str, expr: str, expected: bytes | None) -> None:
    source = f"void g() {{ {decls} (void)({expr}); }}".encode()
    tree = parse(source)
    start = source.index(b"(void)(") + len(b"(void)(")
    node = tree.root_node.descendant_for_byte_range(start, start + len(expr))
    while node.parent is not None and (node.parent.start_byte, node.parent.end_byte) == (
        node.start_byte,
        node.end_byte,
    ):
        node = node.parent
    assert expression_type(source, node) == expected
