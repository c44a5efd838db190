"""Call adaptations: the generated table, the probe facts, the rule's decisions (rules/calls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import check_probe_table, load_script
from toolchains import Toolchain, params

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.calls import load_call_table

REPO = Path(__file__).resolve().parent.parent
SRC = REPO.parent / "shared" / "data" / "hipify-call-adaptations" / "call-adaptations.yaml"


@pytest.mark.skipif(not SRC.is_file(), reason="HIPIFY call-adaptation data not present")
def test_generated_table_is_current() -> None:
    assert load_script("gen_call_adaptations").main(["--check"]) == 0, "run scripts/gen_call_adaptations.py"


def test_generator_refuses_prose_values(tmp_path: Path) -> None:
    src = tmp_path / "in.yaml"
    src.write_text(
        "calls:\n- cuda: f\n  target: hip\n  changes:\n"
        "  - {arg: 0, op: insert_const, value: 'the size, doubled'}\n"
    )
    gen = load_script("gen_call_adaptations")
    with pytest.raises(gen.GenerationError, match="neither a C token"):
        gen.generate(src)


def test_generated_rows_load() -> None:
    data = yaml.safe_load((REPO / "mappings" / "generated" / "call-adaptations.yaml").read_text())
    assert len(data["changes"]) >= 200 and len(data["overloads"]) == 4
    table = load_call_table("5.2")
    assert table.overloads[b"cudaEventCreate"][2] == b"hipEventCreateWithFlags"
    assert {c.target for c in table.changes[b"cusparseDcsrilu02"]} == {"roc"}


def test_probe_facts_are_used_for_the_target_version() -> None:
    table = load_call_table("5.2")
    assert table.probes_version == "5.2"
    waits = [c for c in table.changes[b"cudaStreamWaitEvent"] if c.source == "probe"]
    assert [(c.arguments, c.op, c.value) for c in waits] == [(2, "insert_const", "0")]
    assert table.arity[b"cudaMallocHost"] == (2, 3, 2)


def _out(code: str, **options: object) -> str:
    opts = Options(hip_version="5.2", **options)  # type: ignore[arg-type]
    return translate(code.encode(), opts).text.decode()


def test_appended_argument_only_for_the_c_declaration() -> None:
    assert "hipHostMalloc(&p, n, hipHostMallocDefault)" in _out(
        "void f(float* p, int n) { cudaMallocHost(&p, n); }"
    )
    three = _out("void f(float* p, int n) { cudaMallocHost(&p, n, cudaHostAllocPortable); }")
    assert "hipHostMalloc(&p, n, hipHostMallocPortable)" in three


def test_value_computed_from_the_target_version() -> None:
    code = 'void f(void** fn) { cudaGetDriverEntryPoint("cuInit", fn, cudaEnableDefault); }'
    assert "603" in translate(code.encode(), Options(hip_version="6.3")).text.decode()


def test_missing_argument_is_reported_not_guessed() -> None:
    code = b"void f(cusparseHandle_t h) { cusparseDcsrilu02(h, SOME_MACRO_ARGS); }"
    result = translate(code, Options(hip_version="5.2", roc=True))
    assert [d.rule for d in result.diagnostics if d.rule.startswith("HIP12")] == ["HIP122"]
    assert b"rocsparse_dcsrilu0(h, SOME_MACRO_ARGS)" in result.text


def test_a_call_no_cuda_declaration_matches_is_left_alone() -> None:
    assert "hipFuncSetCacheConfig(k)" in _out("void f() { cudaFuncSetCacheConfig(k); }")


def test_dropped_argument_is_reported() -> None:
    code = (
        b"void f(int* g, int* b, CUfunction k) { cuOccupancyMaxPotentialBlockSize(g, b, k, nullptr, 0, 0); }"
    )
    result = translate(code, Options(hip_version="5.2"))
    assert "hipModuleOccupancyMaxPotentialBlockSize(g, b, k, 0, 0)" in result.text.decode()
    assert [d.rule for d in result.diagnostics if d.rule == "HIP121"] == ["HIP121"]


def test_second_run_changes_nothing() -> None:
    once = _out(
        "void f(cudaStream_t s, cudaEvent_t e) { cudaStreamWaitEvent(s, e); cudaFuncSetCacheConfig(k, c); }"
    )
    assert _out(once) == once


CUDA = Path("/usr/local/cuda/include") if Path("/usr/local/cuda/include").is_dir() else None


@pytest.mark.parametrize("chain", params())
def test_committed_probe_facts_match_each_hipcc(chain: Toolchain) -> None:
    check_probe_table("probe_calls", chain, cuda_headers=True)


def test_probe_facts_per_release() -> None:
    """HIP 5.2 lacks hipStreamWaitEvent's default flags and hipHostAlloc's template overload; 6.4 and
    7.2 have both, so neither the `0` nor the cast is written for them."""
    both = {"cudaStreamWaitEvent", "cudaHostAlloc"}
    for version, needed in (("5.2", both), ("6.4", set()), ("7.2", set())):
        table = load_call_table(version)
        assert table.probes_version == version
        probes = {c.cuda for cs in table.changes.values() for c in cs if c.source == "probe"}
        assert probes & both == needed


def test_kept_names_keep_their_arguments() -> None:
    code = "void f(cudaStream_t s, cudaEvent_t e) { cudaStreamWaitEvent(s, e); }"
    assert "hipStreamWaitEvent(s, e, 0);" in _out(code, version_policy="keep")
    kept = translate(code.encode(), Options(hip_version="1.0", version_policy="keep")).text.decode()
    assert "cudaStreamWaitEvent(s, e);" in kept
