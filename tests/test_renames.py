"""Version-dependent renames (mappings/version-renames.yaml): the table against the tables and headers.

Fixtures: tests/fixtures/renames/hip52 (compiled with hipcc in tests/test_hipcc_examples.py) and
renames/hip70 (a newer target, checked against the table here and by the fixture test).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hipify_py.data.renames import load_table, renames_for
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import default_tables, translate

VERSIONS = ("5.2", "5.6", "5.7", "6.0", "7.0")


def test_rows_name_known_cuda_names_and_do_not_overlap() -> None:
    names, headers = load_table()
    tables = default_tables()
    assert names and headers
    for row in names:
        assert row.cuda.encode() in tables.names, row.cuda  # the identifier rule only sees table names
        assert row.source
    for row in headers:
        assert row.cuda.encode() in tables.headers, row.cuda
    for version in VERSIONS:
        renames_for(version)  # raises when two rows for one name hold at one version


def test_header_rows_name_installed_headers() -> None:
    """At the installed HIP's version, each header a row writes exists under its include root."""
    root = Path(os.environ.get("HIPIFY_PY_TEST_INCLUDE", "/usr/include"))
    version_h = root / "hip" / "hip_version.h"
    if not version_h.is_file():
        pytest.skip(f"{version_h} not installed")
    from hipify_py.data.target import parse_version_header, short_version

    full = parse_version_header(version_h.read_bytes())
    assert full is not None
    for row in renames_for(short_version(full)).headers.values():
        assert (root / row.hip).is_file(), row.hip


@pytest.mark.parametrize("version", VERSIONS)
def test_each_target_gets_its_rows(version: str) -> None:
    source = (
        b"#include <cuda_bf16.h>\n"
        b"__global__ void k(__nv_bfloat16* x) { x[0] = __float2bfloat16(2.0f * __bfloat162float(x[0])); }\n"
    )
    result = translate(source, Options(hip_version=version))
    rows = renames_for(version)
    for cuda, row in [*rows.names.items(), *rows.headers.items()]:
        if cuda in source:
            assert row.hip.encode() in result.text, (version, cuda)
    assert not [d for d in result.diagnostics if d.rule in ("HIP101", "HIP103")]
    assert translate(result.text, Options(hip_version=version)).text == result.text


@pytest.mark.hipcc
@pytest.mark.rocm
@pytest.mark.parametrize("script_name", ["gen_hipblas3_renames", "gen_blas64_renames"])
def test_hipblas_tables_are_what_the_headers_say(script_name: str) -> None:
    """mappings/version-renames-{hipblas3,blas64}.yaml are regenerated from the hipBLAS headers of ROCm
    6.4 and 7.2."""
    from conftest import load_script
    from toolchains import by_version, require

    old, new = by_version("6.4"), by_version("7.2")
    require(old), require(new)
    assert old.include is not None and new.include is not None
    script = load_script(script_name)
    assert script.main(["--old", str(old.include.parent), "--new", str(new.include.parent), "--check"]) == 0


def test_hipblas3_names_from_rocm7_only() -> None:
    assert renames_for("6.4").names.get(b"cublasCgemm") is None  # the reference table's _v2 name holds
    assert renames_for("7.0").names[b"cublasCgemm"].hip == "hipblasCgemm"
    assert renames_for("7.2").names[b"cublasGemmEx"].hip == "hipblasGemmEx"


@pytest.mark.hipcc
@pytest.mark.rocm
def test_spelled_table_is_what_the_headers_say() -> None:
    """mappings/version-renames-spelled.yaml is regenerated from the HIP headers of ROCm 6.4 and 7.2."""
    from conftest import load_script
    from toolchains import by_version, require

    chains = [by_version("6.4"), by_version("7.2")]
    for chain in chains:
        require(chain)
    prefixes = [arg for c in chains if c.include is not None for arg in ("--prefix", str(c.include.parent))]
    assert load_script("gen_spelled_renames").main([*prefixes, "--check"]) == 0


def test_fp8_names_from_rocm64_only() -> None:
    assert renames_for("6.3").names.get(b"__nv_fp8_e4m3") is None
    assert renames_for("6.4").names[b"__nv_fp8_e4m3"].hip == "__hip_fp8_e4m3"
    assert renames_for("7.2").names[b"__NV_SATFINITE"].hip == "__HIP_SATFINITE"


def test_counterpart_table_is_what_the_probes_say() -> None:
    """mappings/version-renames-counterparts.yaml is regenerated from the committed identifier probes."""
    from conftest import load_script

    assert load_script("gen_counterpart_renames").main(["--check"]) == 0


def test_counterparts_hold_from_the_release_that_declares_them() -> None:
    assert renames_for("5.2").names[b"cuFuncSetCacheConfig"].hip == "hipFuncSetCacheConfig"
    assert renames_for("6.4").names.get(b"cudaStreamGetId") is None
    assert renames_for("7.2").names[b"cudaStreamGetId"].hip == "hipStreamGetId"
    alias = b"CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED"
    assert renames_for("5.2").names.get(alias) is None
    assert renames_for("6.4").names[alias].hip == "hipDeviceAttributeVirtualMemoryManagementSupported"


def test_blas64_names_per_hipblas_generation() -> None:
    """cuBLAS's unmapped `_64` functions: hipBLAS 2's `_v2_64` names, hipBLAS 3's `_64` ones."""
    assert renames_for("5.2").names.get(b"cublasCdgmm_64") is None  # no int64_t API in that hipBLAS
    assert renames_for("6.4").names[b"cublasCdgmm_64"].hip == "hipblasCdgmm_v2_64"
    assert renames_for("7.2").names[b"cublasCdgmm_64"].hip == "hipblasCdgmm_64"
    assert renames_for("7.2").names[b"cublasChemm_v2_64"].hip == "hipblasChemm_64"
