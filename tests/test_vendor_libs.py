"""NCCL -> RCCL, NVTX -> roctx, NVML -> ROCm SMI: the tables hold together and match the real headers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import check_probe_table, load_script
from toolchains import Toolchain, params

from hipify_py.data.mappings import load_mappings
from hipify_py.data.vendor_libs import load_facts
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

MAPPINGS = Path(__file__).resolve().parent.parent / "mappings"


@pytest.mark.parametrize("chain", params())
def test_vendor_libs_table_matches_the_release(chain: Toolchain) -> None:
    check_probe_table("probe_vendor_libs", chain)


def test_nccl_api_table_is_current() -> None:
    gen = load_script("gen_nccl_api")
    if not (gen.DEFAULT_GIT / "HEAD").exists():
        pytest.skip("no clone of NVIDIA/nccl to re-read")
    assert gen.build(gen.DEFAULT_GIT) == (MAPPINGS / "generated" / "nccl-api.yaml").read_text(), (
        "run scripts/gen_nccl_api.py"
    )


def test_exact_nvml_rows_are_the_renames() -> None:
    """nvml-rsmi.yaml's exact rows and extras.yaml's NVML renames are the same set, to the same names."""
    rows = yaml.safe_load((MAPPINGS / "hand-kept" / "nvml-rsmi.yaml").read_text())["nvml"]
    exact = {r["nvml"]: r["rsmi"][0] for r in rows if r["exact"]}
    names = load_mappings().by_cuda
    renamed = {e.cuda: e.hip for e in names.values() if e.family == "nvml" and e.hip}
    assert exact == renamed
    assert len({r["nvml"] for r in rows}) == len(rows), "one row per NVML name"


def test_probed_releases_declare_every_rsmi_counterpart() -> None:
    for version in ("6.4", "7.2"):
        smi = load_facts(version).libraries["nvml"]
        assert smi.installed and smi.release == version and not smi.lacks


def test_rccl_lacks_only_names_newer_than_the_nccl_it_follows() -> None:
    facts = load_facts("7.2")
    rccl = facts.libraries["nccl"]
    follows = tuple(int(p) for p in rccl.version.split(".")[:2])
    assert rccl.lacks and all(tuple(map(int, facts.nccl_added[n].split("."))) > follows for n in rccl.lacks)


def test_a_target_between_probed_releases_gets_no_packaging_finding() -> None:
    """6.3 reads 5.2's table (the newest probed not newer): Debian 12's packaging says nothing of 6.3."""
    source = b"#include <nccl.h>\n#include <nvToolsExt.h>\n"
    rules = {d.rule for d in translate(source, Options(hip_version="6.3")).diagnostics}
    assert "HIP140" not in rules
    assert "HIP140" in {d.rule for d in translate(source, Options(hip_version="5.2")).diagnostics}


def test_nothing_is_reported_where_hip128_already_is() -> None:
    source = b"#include <nccl.h>\n"
    options = Options(hip_version="5.2", missing_headers=frozenset({"rccl/rccl.h"}))
    assert [d.rule for d in translate(source, options).diagnostics] == ["HIP128"]


def test_user_names_and_macros_are_not_reported() -> None:
    source = (
        b"#include <nccl.h>\n#define nvtxRangePushEx(a)\n"
        b"void ncclPutSignal(int);\nvoid f() { nvtxRangePushEx(0); ncclPutSignal(1); obj.nvmlInit(); }\n"
    )
    rules = [d.rule for d in translate(source, Options(hip_version="7.2")).diagnostics]
    assert not {"HIP141", "HIP142"} & set(rules), rules
