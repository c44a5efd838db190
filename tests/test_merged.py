"""Merged CUDA types/enumerators (collisions.py) and user operators on vector types (vector_ops.py).

The fixture pairs (tests/fixtures/collisions, tests/fixtures/vector_ops) pin the edits; here the
promises behind them are checked with the real compiler: without the rules the outputs do not compile,
the operator forms the rule calls ambiguous are the ones hipcc rejects, and a non-broadcast scalar
operator really loses calls with other scalar types to HIP's template.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fixture_cases import FIXTURES, _options, hipcc_syntax
from toolchains import Toolchain, params, require

import hipify_py.pipeline.translate as translate_module
from hipify_py.analysis.context import Context
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import default_tables, translate
from hipify_py.rules.collisions import check_collisions, merge_candidates
from hipify_py.rules.vector_ops import check_vector_operators
from hipify_py.rules.vector_ops_data import AMBIGUOUS_COMPOUND, AMBIGUOUS_STEP

HIPCC = shutil.which("hipcc")
REPO = Path(__file__).resolve().parent.parent
needs_hipcc = pytest.mark.skipif(
    HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)"
)


def _ctx(source: bytes) -> Context:
    return Context(source=source, tables=default_tables(), options=Options())


def test_merge_sets_come_from_the_tables() -> None:
    _, merged = merge_candidates(_ctx(b"void f(cudaError_t); void f(CUresult);"))
    assert merged == {b"hipError_t"}
    _, merged = merge_candidates(_ctx(b"void f(cudaStream_t); void g(hipStream_t);"))
    assert merged == {b"hipStream_t"}  # a CUDA name next to its own HIP target (half-ported file)
    _, merged = merge_candidates(_ctx(b"void f(cudaError_t); void f(cudaStream_t);"))
    assert merged == set()
    # within one CUDA enum: two attributes HIP does not tell apart
    src = (
        b"int a = CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH + CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT;"
    )
    _, merged = merge_candidates(_ctx(src))
    assert merged == {b"hipDeviceAttributeMaxSurface2D"}


def test_a_comment_naming_both_is_not_a_collision() -> None:
    src = b'#include <cuda.h>\n// f(cudaError_t) and f(CUresult)\nconst char* s = "cudaError_t CUresult";\n'
    assert translate(src, Options(hip_version="5.2")).diagnostics == []


def _compile(path: Path) -> subprocess.CompletedProcess[str]:
    return hipcc_syntax(path)


def _without(rule: object, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = translate_module.translation_rules()
    monkeypatch.setattr(
        translate_module, "translation_rules", lambda: tuple(r for r in rules if r is not rule)
    )


@pytest.mark.hipcc
@needs_hipcc
@pytest.mark.parametrize(
    ("fixture", "rule", "error"),
    [
        ("collisions/error_names.cu", check_collisions, "redefinition of 'errorName'"),
        ("collisions/same_bodies.cu", check_collisions, "redefinition of 'destroy'"),
        ("collisions/attributes.cu", check_collisions, "duplicate case value"),
        ("vector_ops/helper_math.cu", check_vector_operators, "is ambiguous"),
    ],
)
def test_without_the_rule_the_output_does_not_compile(
    fixture: str, rule: object, error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = FIXTURES / fixture
    _without(rule, monkeypatch)
    out = tmp_path / "unfixed.hip"
    out.write_bytes(translate(source.read_bytes(), _options(source.parent)).text)
    proc = _compile(out)
    assert proc.returncode != 0 and error in proc.stderr, proc.stderr[-3000:]


@pytest.mark.hipcc
@needs_hipcc
def test_marked_operator_compiles_where_used(tmp_path: Path) -> None:
    """HIP127: the complex `*=` marked in not_hips.hip wins the tie with HIP's member `*=` once used
    (tests/test_vector_ops_run.py runs such operators); without the mark the use is ambiguous."""
    use = "\n__global__ void mul(float2 *z) { z[0] *= z[1]; }\n"
    text = (FIXTURES / "vector_ops/not_hips.hip").read_text()
    out = tmp_path / "use.hip"
    out.write_text(text + use)
    proc = _compile(out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out.write_text(text.replace('__attribute__((enable_if(true, "")))', "") + use)
    proc = _compile(out)
    assert proc.returncode != 0 and "is ambiguous" in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("chain", params())
def test_vector_operator_facts_match_each_hipcc(chain: Toolchain) -> None:
    """scripts/probe_vector_ops.py --check against the committed table of every target (~1 s each)."""
    hipcc = require(chain)
    table = REPO / "mappings" / "probed" / f"vector-ops-{chain.version}.yaml"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts/probe_vector_ops.py"),
            "--hipcc",
            hipcc,
            "--check",
            "--out",
            str(table),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("chain", params())
def test_void_handles_match_each_hipcc(chain: Toolchain) -> None:
    """scripts/probe_void_handles.py --check against the committed table of every target."""
    hipcc = require(chain)
    table = REPO / "mappings" / "probed" / f"void-handles-{chain.version}.yaml"
    script = [sys.executable, str(REPO / "scripts/probe_void_handles.py"), "--hipcc", hipcc, "--check"]
    proc = subprocess.run([*script, "--out", str(table)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rule_facts_are_the_hip_52_table() -> None:
    """vector_ops_data.py's ambiguous operators are what the HIP 5.2 probe found, form for form."""
    doc = yaml.safe_load((REPO / "mappings" / "probed" / "vector-ops-5.2.yaml").read_text())
    stated = {f"{op} vector" for op in AMBIGUOUS_COMPOUND}
    stated |= {f"{op} {fix}" for op in AMBIGUOUS_STEP for fix in ("prefix", "postfix")}
    assert set(doc["ambiguous"]) == stated


@pytest.mark.hipcc
@needs_hipcc
def test_non_broadcast_scalar_operator_loses_other_scalars_to_hip(tmp_path: Path) -> None:
    """HIP212's claim: `float2 + int` runs HIP's broadcast, not the user's (float2, float) operator."""
    src = tmp_path / "broadcast.hip"
    src.write_text(
        "#include <hip/hip_runtime.h>\n#include <cstdio>\n"
        "inline __host__ __device__ float2 operator+(float2 a, float b)\n"
        "{ return make_float2(a.x + b, a.y); }\n"
        "int main() { float2 a = make_float2(1, 1); float2 f = a + 1.0f, i = a + 1;\n"
        '  std::printf("%g %g %g %g\\n", f.x, f.y, i.x, i.y); return 0; }\n'
    )
    exe = tmp_path / "broadcast"
    assert HIPCC is not None
    build = subprocess.run(
        [HIPCC, "--offload-arch=gfx90a", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
        env=dict(os.environ, HIP_PLATFORM="amd"),
    )
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.stdout.split() == ["2", "1", "2", "2"]  # the int call added to both components
