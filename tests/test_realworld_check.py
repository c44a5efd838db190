"""scripts/realworld_check.py: clean on examples/, and each check fails on a planted bug."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("realworld_check", ROOT / "scripts" / "realworld_check.py")
assert _spec is not None and _spec.loader is not None
rc = importlib.util.module_from_spec(_spec)
sys.modules["realworld_check"] = rc
_spec.loader.exec_module(rc)

SAMPLE = b"""#include <cuda_runtime.h>
// cudaMalloc in a comment stays
__global__ void k(float *p) { p[0] = 1; }
void run(float *d, cudaStream_t s) {
  const char *msg = "cudaFree";
  cudaMalloc(&d, 4);
  k<<<1, 1, 0, s>>>(d);
}
"""


def _real(source: bytes, options: Options) -> bytes:
    return translate(source, options).text


def _checks(tmp_path: Path, translator: rc.Translator) -> dict[str, list[str]]:
    (tmp_path / "a.cu").write_bytes(SAMPLE)
    summary = rc.run_checks([tmp_path], translator=translator)
    found: dict[str, list[str]] = {}
    for p in summary.problems:
        found.setdefault(p.check, []).append(p.detail)
    return found


@pytest.mark.slow
def test_examples_and_fixtures_are_clean() -> None:
    summary = rc.run_checks([ROOT / "examples", ROOT / "tests" / "fixtures"])
    assert summary.files >= 100 and summary.changed >= 90
    assert summary.problems == []


def test_real_translation_of_sample_is_clean(tmp_path: Path) -> None:
    assert _checks(tmp_path, _real) == {}


def test_internal_error_is_reported(tmp_path: Path) -> None:
    def broken(source: bytes, options: Options) -> bytes:
        raise RuntimeError("boom")

    assert _checks(tmp_path, broken) == {"internal": ["RuntimeError: boom"]}


def test_non_idempotent_translation_is_reported(tmp_path: Path) -> None:
    def appends(source: bytes, options: Options) -> bytes:
        return _real(source, options) + b"// again\n"

    assert set(_checks(tmp_path, appends)) >= {"idempotence"}


def test_edit_inside_comment_is_reported(tmp_path: Path) -> None:
    def in_comment(source: bytes, options: Options) -> bytes:
        return _real(source, options).replace(b"// cudaMalloc", b"// hipMalloc")

    found = _checks(tmp_path, in_comment)
    assert found["literals"] == ["// cudaMalloc in a comment stays -> // hipMalloc in a comment stays"]


def test_edit_inside_string_is_reported(tmp_path: Path) -> None:
    def in_string(source: bytes, options: Options) -> bytes:
        return _real(source, options).replace(b'"cudaFree"', b'"hipFree"')

    assert _checks(tmp_path, in_string)["literals"] == ['"cudaFree" -> "hipFree"']


@pytest.mark.parametrize(
    "old, new",
    [
        (b"p[0] = 1;", b"p[0] = 2;"),  # a byte changed far from any edit
        (b"float *d,", b"float* d,"),  # whitespace is not an edit kind either
        (b"(&d, 4)", b"(&d, 4, 0)"),  # next to a rename
        (b"hipLaunchKernelGGL(k,", b"hipLaunchKernelGGL(kk,"),  # inside a converted launch
    ],
)
def test_change_outside_edits_is_reported(tmp_path: Path, old: bytes, new: bytes) -> None:
    assert old in _real(SAMPLE, Options())

    def stray(source: bytes, options: Options) -> bytes:
        return _real(source, options).replace(old, new)

    found = _checks(tmp_path, stray)
    assert list(found) == ["outside"]


def test_multi_line_launch_is_one_hunk() -> None:
    canon = rc.Canon.of(__import__("hipify_py.pipeline.translate").pipeline.translate.default_tables())
    source = b"void f() {\n  kern<\n    float,\n    4\n  ><<<g, b>>>(x);\n}\n"
    assert rc.check_outside(source, _real(source, Options()), canon) is None


def test_torch_comparison_counts_names(tmp_path: Path) -> None:
    pytest.importorskip("torch.utils.hipify.hipify_python")
    (tmp_path / "a.cu").write_bytes(SAMPLE + b"int v = CUDA_VERSION;\ncudaMemoryAdvise adv;\n")
    summary = rc.run_checks([tmp_path], torch=True)
    # torch maps CUDA_VERSION to a torch macro; both rewrite cudaMalloc/cudaStream_t
    assert summary.torch_only["CUDA_VERSION"] == 1
    assert "cudaMalloc" not in summary.torch_only and "cudaMalloc" not in summary.ours_only


def test_cli_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.cu").write_bytes(SAMPLE)
    assert rc.main([str(tmp_path), "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "files: 1" in out and "internal=0  idempotence=0  literals=0  outside=0" in out
    assert (tmp_path / "r.json").exists()


REALWORLD = ROOT / "tests" / "fixtures" / "realworld"
# Outputs that are not meant to compile, and why.
NOT_COMPILED = {
    "kernel_already_hip.hip": "already-HIP input is kept byte-identical (it lacks hip_runtime.h)",
    "shim_without_hip_include.hip": "includes the shim's own header, which the case does not have",
}
HIPCC = shutil.which("hipcc")


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
@pytest.mark.parametrize(
    "output", sorted(p for p in REALWORLD.glob("*.hip") if p.name not in NOT_COMPILED), ids=lambda p: p.name
)
def test_realworld_fixture_output_compiles(output: Path) -> None:
    assert HIPCC is not None, "CI must have hipcc"
    assert rc.compile_one(output, HIPCC, []) == "ok"


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
def test_compile_sample_resolves_project_includes(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "bits.cuh").write_bytes(
        b"__device__ inline int bits(unsigned v) { return __popc(v); }\n"
    )
    (tmp_path / "k.cu").write_bytes(
        b'#include "bits.cuh"\n__global__ void k(int *p) { p[threadIdx.x] = bits(p[0]); }\n'
    )
    (tmp_path / "lost.cu").write_bytes(b'#include "missing.cuh"\n__global__ void k() {}\n')
    summary = rc.run_checks([tmp_path], compile_n=5, include_dirs=(tmp_path / "inc",))
    # lost.cu cannot resolve its include and is not sampled; k.cu and the header compile
    assert summary.compile_candidates == 2
    assert summary.compile_results == {"ok": 2}


def test_translator_markers_are_not_changes() -> None:
    marked = (
        b"#if 0 // hipify-py: same signature as line 1 after renaming\nint f() { return 1; }\n#endif\n"
        b"#ifdef X\nint g;\n#endif\n"
        b"switch (v) { case 1: /* hipify-py: duplicate after renaming: case 1: */ return 2; }\n"
    )
    assert rc.without_markers(marked) == (
        b"int f() { return 1; }\n#ifdef X\nint g;\n#endif\nswitch (v) { case 1: case 1: return 2; }\n"
    )


PASTED = b"""#include <cuda_runtime_api.h>
#define GPU_PREFIX(val) cuda##val
using Attributes = GPU_PREFIX(PointerAttributes);
using Status = GPU_PREFIX(Error_t);
"""


def test_wrong_name_for_pasted_use_is_reported(tmp_path: Path) -> None:
    def wrong(source: bytes, options: Options) -> bytes:
        return _real(source, options).replace(b"hipPointerAttribute_t", b"hipDeviceProp_t")

    (tmp_path / "a.h").write_bytes(PASTED)
    assert rc.run_checks([tmp_path], translator=_real).problems == []
    found = [p.check for p in rc.run_checks([tmp_path], translator=wrong).problems]
    assert found == ["outside"]
