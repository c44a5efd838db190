"""Arithmetic on a CUdeviceptr (an integer in CUDA, `void*` as hipDeviceptr_t on AMD) is computed on the
address, also where the CUdeviceptr is a member or accessor a header of the file declares (OpenMM's
`getDevicePointer() + offset`, OCCA's `b->cuPtr + offset`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.analysis.deviceptr_names import declared, used
from hipify_py.cli.main import main

HEADER = b"""#pragma once
#include <cuda.h>
#include <cstddef>
class DeviceArray {
 public:
  CUdeviceptr& getDevicePointer() { return pointer; }
  size_t elementSize;
 private:
  CUdeviceptr pointer;
};
"""
SOURCE = b"""#include "DeviceArray.h"
CUresult upload(DeviceArray& a, const void* data, size_t offset, size_t count) {
  return cuMemcpyHtoD(a.getDevicePointer() + offset * a.elementSize, data, count * a.elementSize);
}
"""


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "DeviceArray.h").write_bytes(HEADER)
    (root / "src" / "upload.cpp").write_bytes(SOURCE)
    return root


def _convert(root: Path, out: Path, version: str) -> bytes:
    args = ["convert", str(root), "-o", str(out), "--hip-version", version, "-j", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return (out / "src" / "upload.cpp").read_bytes()


@pytest.mark.parametrize("chain", params())
def test_an_accessor_declared_in_a_header(
    chain: Toolchain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    text = _convert(_project(tmp_path / "proj"), tmp_path / "out", chain.version)
    out = tmp_path / "out"
    assert (
        b"((hipDeviceptr_t)((uintptr_t)(a.getDevicePointer()) + (uintptr_t)(offset * a.elementSize)))" in text
    )
    proc = syntax_check(require(chain), out / "src" / "upload.cpp", f"-I{out / 'src'}")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_the_cache_follows_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    root = _project(tmp_path / "proj")
    first = _convert(root, tmp_path / "out1", "7.2")
    assert b"(uintptr_t)(a.getDevicePointer())" in first
    assert _convert(root, tmp_path / "out2", "7.2") == first
    (root / "src" / "DeviceArray.h").write_bytes(HEADER.replace(b"CUdeviceptr&", b"char*&"))
    after = _convert(root, tmp_path / "out3", "7.2")
    assert b"uintptr_t" not in after


def test_declared_names() -> None:
    text = b"""CUdeviceptr a, b;
struct S { CUdeviceptr cuPtr; char* ptr; CUdeviceptr ptr2; };
CUdeviceptr& get() { return a; }
CUdeviceptr base(int i) const;
CUresult f(CUdeviceptr dst, CUdeviceptr* out);
void* ptr2;
"""
    assert declared(text) == {b"a", b"b", b"cuPtr", b"get", b"base", b"dst"}  # ptr2: also a void*
    assert used(b"x = s.cuPtr + 1; char* dst = 0;", declared(text)) == {b"cuPtr"}
    # a header an in-place run converted before the file that includes it
    assert declared(b"struct B { hipDeviceptr_t cuPtr; char* ptr; };") == {b"cuPtr"}
