"""Macros ROCm library headers read for CUDA's types (rules/library_macros.py, HIP136): the table against
the real headers of every present release, and the rule on small inputs. Fixtures: hipblas/hip64, hip72."""

from __future__ import annotations

import re

import pytest
from toolchains import Toolchain, params, require

from hipify_py.data.versions import compare_versions
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.library_macros import load_table


@pytest.mark.parametrize("chain", params())
def test_rows_match_the_headers(chain: Toolchain) -> None:
    """Every function of a row is declared by the row's header and takes a type the macro switches."""
    rows = [r for r in load_table() if r.holds_for(chain.version)]
    if not rows:
        pytest.skip(f"no row holds for HIP {chain.version}")
    require(chain)
    assert chain.include is not None
    for row in rows:
        text = (chain.include / row.header).read_text()
        assert f"defined({row.macro})" in text or f"ifdef {row.macro}" in text, row.macro
        for name in row.names:
            decl = re.search(rf"\b{name}\s*\(([^;]*?)\)\s*;", text, re.S)
            assert decl is not None and "hipblasHalf" in decl.group(1), name


def test_rows_start_at_a_probed_release() -> None:
    for row in load_table():
        assert row.since is not None and compare_versions(row.since, "6.4") >= 0  # read in 6.4 and 7.2


CALL = b"#include <cublas_v2.h>\nvoid f(cublasHandle_t h) { %s(h, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1); }\n"
DEFINE = b"#define HIPBLAS_USE_HIP_HALF\n"


@pytest.mark.parametrize(
    ("source", "added"),
    [
        (CALL % b"cublasHgemm", True),
        (b"// HIPBLAS_USE_HIP_HALF: a comment does not define it\n" + CALL % b"cublasHgemm", True),
        (DEFINE + CALL % b"cublasHgemm", False),  # the file defines it itself
        (CALL % b"cublasSgemm", False),  # single precision: no hipblasHalf
    ],
)
def test_macro_defined_when_a_function_needs_it(source: bytes, added: bool) -> None:
    out = translate(source, Options(hip_version="7.2")).text
    assert out.count(DEFINE) - source.count(DEFINE) == int(added)
    # before 6.4 no release was read: nothing is written
    assert translate(source, Options(hip_version="6.3")).text.count(DEFINE) == source.count(DEFINE)
