"""A macro that pastes an argument after `->` (IREE's `IREE_CURESULT_TO_STATUS(syms, cuX(...))`, which is
`syms->cuX(...)`) calls a member of a symbol table: the CUDA name opening that argument stays, as the
table's entries do (rules/symbol_tables.py), also where the macro is defined in a header of the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.analysis.member_macros import may_use, member_starts, pasted
from hipify_py.cli.main import main

HEADER = b"""#pragma once
#include <cuda.h>
typedef struct syms_t {
#define PFN_DECL(name, ...) CUresult (*name)(__VA_ARGS__);
  PFN_DECL(cuCtxCreate, CUcontext*, unsigned int, CUdevice)
  PFN_DECL(cuFuncSetAttribute, CUfunction, CUfunction_attribute, int)
#undef PFN_DECL
} syms_t;
#define SYMS_CALL(syms, expr) to_status((syms), ((syms)->expr), __FILE__, __LINE__)
int to_status(const syms_t* syms, CUresult r, const char* file, int line);
"""
SOURCE = b"""#include "syms.h"
int make(syms_t* syms, CUdevice dev, CUfunction f) {
  CUcontext ctx;
  int s = SYMS_CALL(syms, cuCtxCreate(&ctx, 0, dev));
  s |= SYMS_CALL(syms,
                 cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024));
  return s | (int)cuCtxSynchronize();
}
"""


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "syms.h").write_bytes(HEADER)
    (root / "src" / "make.c").write_bytes(SOURCE)
    return root


def _convert(root: Path, out: Path, version: str) -> bytes:
    args = ["convert", str(root), "-o", str(out), "--hip-version", version, "-j", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return (out / "src" / "make.c").read_bytes()


@pytest.mark.parametrize("chain", params())
def test_a_member_macro_of_a_header(
    chain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    text = _convert(_project(tmp_path / "proj"), tmp_path / "out", chain.version)
    assert b"SYMS_CALL(syms, cuCtxCreate(&ctx, 0, dev))" in text
    assert b"cuFuncSetAttribute(f, HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES" in text
    assert b"hipCtxSynchronize()" in text  # a plain call is HIP's
    assert b"HIPIFY_PY_SHIM" not in text  # no helper for the member
    out = tmp_path / "out" / "src"
    proc = syntax_check(require(chain), out / "make.c", f"-I{out}")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_the_cache_follows_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    root = _project(tmp_path / "proj")
    first = _convert(root, tmp_path / "out1", "7.2")
    assert b"SYMS_CALL(syms, cuCtxCreate(" in first
    assert _convert(root, tmp_path / "out2", "7.2") == first
    (root / "src" / "syms.h").write_bytes(HEADER.replace(b"((syms)->expr)", b"(expr)"))
    after = _convert(root, tmp_path / "out3", "7.2")
    assert b"SYMS_CALL(syms, hipCtxCreate(" in after


def test_pasted_parameters() -> None:
    text = b"""#define A(syms, expr, ...) f((syms), ((syms)->expr), __FILE__)
#define B(s, x) s.x + s. y
#define C(x) g(x)
#define D(p, x) 1.x + p -> x
#define E(x, ...) x->__VA_ARGS__
"""
    assert pasted(text) == {b"A": frozenset({1}), b"B": frozenset({1}), b"D": frozenset({1})}


def test_argument_starts() -> None:
    source = b'A(syms, cuX(a, "x,)", (b, c)), d);\nA(s,\\\n  cuY());\nA(cuZ(), s);\nB(s, cuW());'
    starts = member_starts(source, {b"A": (1,)})
    assert sorted(source[i : i + 3] for i in starts) == [b"cuX", b"cuY", b"s);"]


def test_which_files_look() -> None:
    assert may_use(b"IREE_CUDA_CALL(syms, cuCtxCreate(&c, 0, d));")
    assert may_use(b"CALL(\n  syms,\n  cudaMalloc(&p, n));")
    assert not may_use(b"CUDA_CHECK(cudaMalloc(&p, n));")
    assert not may_use(b"CUDA_CHECK(cudaMemcpy(a, b, n, cudaMemcpyDeviceToHost));")
