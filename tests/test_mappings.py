"""Mapping tables: generator (scripts/gen_mappings.py), loader (data/mappings.py), `mappings` command."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from click.testing import CliRunner

from hipify_py.cli.mappings_cmd import mappings_command
from hipify_py.data import mappings as mappings_module
from hipify_py.data.mappings import generated_dir, hand_kept_dir, load_mappings
from hipify_py.data.schema import FAMILY_ORDER, Entry, Mappings
from hipify_py.data.tables import compile_tables
from hipify_py.data.versions import compare_versions, parse_version

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO.parent / "shared" / "data" / "cuda2hip-tables"
NO_REFERENCE = f"reference tables not found at {REFERENCE} (they live outside the repo)"

SOURCES = {
    "runtime": "CUDA_Runtime_API_functions_supported_by_HIP.md",
    "driver": "CUDA_Driver_API_functions_supported_by_HIP.md",
    "device": "CUDA_Device_API_supported_by_HIP.md",
    "rtc": "CUDA_RTC_API_supported_by_HIP.md",
    "complex": "cuComplex_API_supported_by_HIP.md",
    "cublas": "CUBLAS_API_supported_by_HIP_and_ROC.md",
    "curand": "CURAND_API_supported_by_HIP_and_ROC.md",
    "cufft": "CUFFT_API_supported_by_HIP.md",
    "cusparse": "CUSPARSE_API_supported_by_HIP_and_ROC.md",
    "cusolver": "CUSOLVER_API_supported_by_HIP_and_ROC.md",
    "cub": "CUB_API_supported_by_HIP.md",
    "cudnn": "CUDNN_API_supported_by_HIP_and_MIOPEN.md",
}

# family: (rows, supported, unsupported, with ROC/MIOpen counterpart) -- from the 2024-10-24 snapshot
EXPECTED_COUNTS = {
    "runtime": (1436, 920, 516, 0),
    "driver": (2008, 1105, 903, 0),
    "device": (818, 513, 305, 0),
    "complex": (26, 26, 0, 0),
    "rtc": (36, 27, 9, 0),
    "cublas": (1473, 844, 629, 755),
    "curand": (151, 117, 34, 107),
    "cufft": (147, 87, 60, 0),
    "cusparse": (859, 684, 175, 612),
    "cusolver": (746, 342, 404, 32),
    "cub": (70, 11, 59, 0),
    "cudnn": (1162, 267, 895, 555),
}
TOTAL_ROWS = 8932
DISTINCT_CUDA_NAMES = 8922  # 10 names occur in two families (e.g. CUstream_st: runtime and driver)
# mappings/extras.yaml: names the tables lack (CUDART_CB, nvtx*, nvml*, CUDA 13 emulation, config macros,
# CUDA 12.8 data types)
EXTRA_NAMES = 194

ABSENT = object()  # spot check: "don't care about roc"

# (family, cuda, hip, roc, other expected attributes)
SPOT_CHECKS: list[tuple[str, str, str | None, object, dict[str, str]]] = [
    ("runtime", "cudaMalloc", "hipMalloc", None, {"group": "Memory Management", "hip_added": "1.5.0"}),
    ("runtime", "cudaMemcpy", "hipMemcpy", None, {"kind": "function"}),
    ("runtime", "cudaStream_t", "hipStream_t", None, {"kind": "type"}),
    ("runtime", "cudaSuccess", "hipSuccess", None, {"kind": ""}),
    ("runtime", "cudaGetDeviceProperties", "hipGetDeviceProperties", None, {"hip_added": "1.6.0"}),
    (
        "runtime",
        "cudaThreadGetLimit",
        None,
        None,
        {"group": "Thread Management", "group_status": "deprecated", "cuda_deprecated": "10.0"},
    ),
    (
        "runtime",
        "cudaBindTexture",
        "hipBindTexture",
        None,
        {"group_status": "removed", "cuda_removed": "12.0", "hip_deprecated": "3.8.0"},
    ),
    ("runtime", "CUDART_PI", "HIP_PI", None, {"kind": "define"}),
    ("driver", "cuInit", "hipInit", None, {"group": "Initialization"}),
    ("driver", "cuMemAlloc_v2", "hipMalloc", None, {}),
    ("driver", "CUdevice", "hipDevice_t", None, {}),
    ("driver", "cuCtxCreate_v2", "hipCtxCreate", None, {"hip_deprecated": "1.9.0"}),
    ("driver", "CUoccupancyB2DSize", "void*", None, {}),  # HIP cell is not an identifier: kept verbatim
    ("driver", "CUkern_st", None, None, {"cuda_added": "12.0"}),
    ("driver", "CUdevice_attribute_enum", "hipDeviceAttribute_t", None, {"kind": "enum"}),
    ("device", "__syncthreads", "__syncthreads", None, {}),
    ("device", "atomicAdd", "atomicAdd", None, {"kind": "function"}),
    ("device", "__ldg", "__ldg", None, {}),
    ("device", "__half", "__half", None, {"group": "Device Types"}),
    ("device", "__shfl_down_sync", None, None, {}),
    ("device", "__nv_fp8_e4m3", None, None, {"cuda_added": "11.8"}),
    ("rtc", "nvrtcCreateProgram", "hiprtcCreateProgram", None, {"cuda_changed": "8.0"}),
    ("rtc", "nvrtcCompileProgram", "hiprtcCompileProgram", None, {}),
    ("rtc", "nvrtcResult", "hiprtcResult", None, {}),
    ("rtc", "NVRTC_SUCCESS", "HIPRTC_SUCCESS", None, {}),
    ("rtc", "nvrtcGetCUBIN", "hiprtcGetBitcode", None, {"cuda_added": "11.1", "hip_added": "5.3.0"}),
    ("rtc", "nvrtcGetLTOIR", None, None, {"cuda_added": "12.0", "kind": "function"}),
    ("complex", "cuComplex", "hipComplex", None, {}),
    ("complex", "cuDoubleComplex", "hipDoubleComplex", None, {}),
    ("complex", "cuCaddf", "hipCaddf", None, {}),
    ("complex", "cuCabs", "hipCabs", None, {}),
    ("complex", "make_cuDoubleComplex", "make_hipDoubleComplex", None, {}),
    ("cublas", "cublasSgemm_v2", "hipblasSgemm", "rocblas_sgemm", {"roc_added": "1.5.0"}),
    ("cublas", "cublasCreate_v2", "hipblasCreate", "rocblas_create_handle", {}),
    ("cublas", "cublasHandle_t", "hipblasHandle_t", "rocblas_handle", {"kind": "type"}),
    ("cublas", "CUBLAS_OP_N", "HIPBLAS_OP_N", "rocblas_operation_none", {}),
    ("cublas", "CUBLAS_GEMM_ALGO0", None, None, {"cuda_added": "8.0"}),
    ("cublas", "cublasLtMatmul", "hipblasLtMatmul", None, {"group": "BLASLt Function Reference"}),
    (
        "cublas",
        "cublasCgemm_64",
        "hipblasCgemm_v2_64",
        "rocblas_cgemm_64",
        {"hip_experimental": "6.3.0", "roc_experimental": "6.3.0"},
    ),
    ("curand", "curand_init", "hiprand_init", "rocrand_init", {"group": "Device API Functions"}),
    ("curand", "curandCreateGenerator", "hiprandCreateGenerator", "rocrand_create_generator", {}),
    ("curand", "curandGenerateUniform", "hiprandGenerateUniform", "rocrand_generate_uniform", {}),
    ("curand", "curandStateMtgp32", "hiprandStateMtgp32", "rocrand_device::mtgp32_engine", {}),
    ("curand", "curandState", "hiprandState", None, {}),
    ("curand", "CURAND_3RD", None, None, {}),
    ("cufft", "cufftPlan1d", "hipfftPlan1d", None, {}),
    ("cufft", "cufftExecC2C", "hipfftExecC2C", None, {}),
    ("cufft", "cufftHandle", "hipfftHandle", None, {}),
    ("cufft", "CUFFT_SUCCESS", "HIPFFT_SUCCESS", None, {}),
    ("cufft", "cufftXtMalloc", None, None, {}),
    ("cusparse", "cusparseCreate", "hipsparseCreate", "rocsparse_create_handle", {}),
    ("cusparse", "cusparseSpMV", "hipsparseSpMV", "rocsparse_spmv", {"cuda_changed": "12.0"}),
    ("cusparse", "cusparseHandle_t", "hipsparseHandle_t", "rocsparse_handle", {}),
    ("cusparse", "cusparseScsrmv", "hipsparseScsrmv", "rocsparse_scsrmv", {"cuda_removed": "11.0"}),
    ("cusparse", "cusparseLoggerSetLevel", None, None, {"group": "CUSPARSE Logging"}),
    ("cusolver", "cusolverDnCreate", "hipsolverDnCreate", "rocblas_create_handle", {}),
    ("cusolver", "cusolverDnSpotrf", "hipsolverDnSpotrf", "rocsolver_spotrf", {"roc_added": "3.2.0"}),
    ("cusolver", "cusolverDnSgetrf", "hipsolverDnSgetrf", None, {}),
    ("cusolver", "cusolverDnHandle_t", "hipsolverHandle_t", "rocblas_handle", {}),
    ("cusolver", "cusolverDnIRSParamsCreate", None, None, {}),
    ("cub", "CUB_MAX", "CUB_MAX", ABSENT, {"kind": "define"}),
    ("cub", "CUB_PTX_ARCH", "HIPCUB_ARCH", ABSENT, {}),
    ("cub", "CUB_STDERR", "HIPCUB_STDERR", ABSENT, {}),
    ("cub", "CubDebug", "HipcubDebug", ABSENT, {}),
    ("cub", "CUB_ALIGN", None, ABSENT, {}),
    ("cudnn", "cudnnCreate", "hipdnnCreate", "miopenCreate", {"cuda_added": "1.0.0", "roc_added": "2.1.0"}),
    ("cudnn", "cudnnHandle_t", "hipdnnHandle_t", "miopenHandle_t", {}),
    ("cudnn", "cudnnConvolutionForward", "hipdnnConvolutionForward", "miopenConvolutionForward", {}),
    ("cudnn", "cudnnBackendCreateDescriptor", None, "miopenBackendCreateDescriptor", {}),
    ("cudnn", "cudnnRNNForward", None, None, {}),
]


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_mappings", REPO / "scripts" / "gen_mappings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = load_generator()


def md_row_count(path: Path) -> int:
    """Data rows of every Markdown table (header and alignment rows excluded), counted independently."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.startswith("|") and not line.startswith(("|**", "|:")))


def find(m: Mappings, family: str, cuda: str) -> list[Entry]:
    return [e for e in m.families[family] if e.cuda == cuda]


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hipify-py-cache")


@pytest.fixture
def fresh_loader(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Bypass the per-process lru_cache; the disk cache lives in a test-private directory."""
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(shared_cache))
    mappings_module._load.cache_clear()
    yield shared_cache
    mappings_module._load.cache_clear()


@pytest.fixture(scope="module")
def m() -> Mappings:
    return load_mappings()


# --- data: counts and spot checks -------------------------------------------------------------------


def test_every_family_is_present(m: Mappings) -> None:
    assert set(m.families) == set(FAMILY_ORDER) == set(EXPECTED_COUNTS)


@pytest.mark.parametrize("family", list(EXPECTED_COUNTS))
def test_family_counts(m: Mappings, family: str) -> None:
    entries = m.families[family]
    supported = sum(e.supported for e in entries)
    with_roc = sum(e.roc is not None for e in entries)
    assert (len(entries), supported, len(entries) - supported, with_roc) == EXPECTED_COUNTS[family]
    assert all(e.family == family for e in entries)


@pytest.mark.skipif(not REFERENCE.is_dir(), reason=NO_REFERENCE)
@pytest.mark.parametrize("family", list(SOURCES))
def test_family_rows_equal_reference_rows(m: Mappings, family: str) -> None:
    assert len(m.families[family]) == md_row_count(REFERENCE / SOURCES[family])


def test_totals(m: Mappings) -> None:
    assert sum(len(v) for v in m.families.values()) == TOTAL_ROWS
    assert len(m.by_cuda) == DISTINCT_CUDA_NAMES + EXTRA_NAMES


@pytest.mark.parametrize(("family", "cuda", "hip", "roc", "attrs"), SPOT_CHECKS, ids=lambda v: str(v))
def test_spot_check(
    m: Mappings, family: str, cuda: str, hip: str | None, roc: object, attrs: dict[str, str]
) -> None:
    (entry,) = find(m, family, cuda)
    assert entry.hip == hip
    assert entry.supported == (hip is not None)
    if roc is not ABSENT:
        assert entry.roc == roc
    for name, value in attrs.items():
        assert getattr(entry, name) == value, name


def test_spot_checks_cover_every_family() -> None:
    for family in FAMILY_ORDER:
        checks = [c for c in SPOT_CHECKS if c[0] == family]
        assert len(checks) >= 5, family
        # cuComplex has no unsupported row at all (asserted by its counts), so it is exempt
        assert family == "complex" or any(c[2] is None for c in checks), family
        if family in ("cublas", "curand", "cusparse", "cusolver", "cudnn"):
            assert any(isinstance(c[3], str) for c in checks), family


def test_library_blocks(m: Mappings) -> None:
    assert m.libraries["runtime"] == {"cuda": "CUDA Runtime", "hip": "HIP"}
    assert m.libraries["cublas"] == {"cuda": "cuBLAS", "hip": "hipBLAS", "roc": "rocBLAS"}
    assert m.libraries["cudnn"]["roc"] == "MIOpen"
    assert set(m.libraries) == set(FAMILY_ORDER)


def test_by_cuda_prefers_family_order(m: Mappings) -> None:
    assert m.by_cuda["CUstream_st"].family == "runtime"  # also in driver
    assert m.by_cuda["libraryPropertyType"].family == "runtime"  # also in cudnn
    assert m.by_cuda["cuMemAlloc_v2"].hip == "hipMalloc"
    assert not m.by_cuda["cudaThreadGetLimit"].supported


def test_by_hip_reverse_index(m: Mappings) -> None:
    assert {e.cuda for e in m.by_hip["hipMalloc"]} >= {"cudaMalloc", "cuMemAlloc", "cuMemAlloc_v2"}
    assert [e.cuda for e in m.by_hip["rocrand_init"]] == ["curand_init"]
    assert {e.cuda for e in m.by_hip["hipblasSgemm"]} == {"cublasSgemm", "cublasSgemm_v2"}
    assert None not in m.by_hip


def test_digest_and_latest_version(m: Mappings) -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", m.digest)
    assert m.latest_hip_version == "6.3.0"


def test_headers_are_loaded(m: Mappings) -> None:
    if not (hand_kept_dir() / "headers.yaml").is_file():
        pytest.skip("mappings/hand-kept/headers.yaml is not written yet")
    assert m.headers["cuda_runtime.h"].hip == "hip/hip_runtime.h"
    blas = m.headers["cublas_v2.h"]
    assert (blas.hip, blas.legacy, blas.roc, blas.family) == (
        "hipblas/hipblas.h",
        "hipblas.h",
        "rocblas/rocblas.h",
        "cublas",
    )


# --- versions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("6.2.0", (6, 2, 0)), ("11.3", (11, 3)), ("", ()), ("6.2.0-rc1", (6, 2, 0)), ("x", ())],
)
def test_parse_version(text: str, parsed: tuple[int, ...]) -> None:
    assert parse_version(text) == parsed


@pytest.mark.parametrize(
    ("a", "b", "result"),
    [("6.2.0", "6.3.0", -1), ("6.2", "6.2.0", 0), ("10.0", "9.2", 1), ("1.10.0", "1.9.9", 1), ("", "0", 0)],
)
def test_compare_versions(a: str, b: str, result: int) -> None:
    assert compare_versions(a, b) == result
    assert compare_versions(b, a) == -result


def test_namespaces_are_loaded(m: Mappings) -> None:
    by_name = {ns.cuda: ns for ns in m.namespaces}
    assert by_name["cub"].hip == "hipcub" and by_name["cub"].family == "cub"
    assert by_name["thrust"].hip == "thrust"  # rocThrust keeps the namespace
    assert by_name["cooperative_groups"].hip == "cooperative_groups"
    tables = compile_tables(m)
    assert tables.cuda_namespaces[b"cub"] == b"hipcub"
    assert b"cub" in tables.candidates.keys
    assert b"thrust" not in tables.candidates.keys  # identity namespaces are never edited


# --- the YAML files and the generator -----------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILY_ORDER)
def test_yaml_is_one_entry_per_line(family: str) -> None:
    text = (generated_dir() / f"{family}.yaml").read_text(encoding="utf-8")
    assert text.startswith("# Generated by scripts/gen_mappings.py from ")
    entry_lines = [line for line in text.splitlines() if line.startswith("  - ")]
    assert len(entry_lines) == EXPECTED_COUNTS[family][0]
    # one plain string per row: names, then field=value pairs with versions as dotted numbers
    row = re.compile(r"  - [A-Za-z_]\S* (~|\S+)( (~|\S+))?( [a-z_]+=[^\s=]+)*$")
    assert [line for line in entry_lines if not row.match(line)] == []
    doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    assert doc["family"] == family and doc["source"] == SOURCES[family]
    assert all(isinstance(r, str) for section in doc["sections"] for r in section["rows"])
    assert sum(len(section["rows"]) for section in doc["sections"]) == EXPECTED_COUNTS[family][0]


@pytest.mark.parametrize(
    "bad",
    [
        "sections:\n- group: G\n  rows:\n  - cudaFoo\n",  # no HIP column
        "sections:\n- group: G\n  rows:\n  - cudaFoo hipFoo hip_addd=1.0\n",  # unknown field
        "sections:\n- group: G\n  rows:\n  - cudaFoo hipFoo 1.0\n",  # not field=value
        "sections:\n- group: G\n  rows:\n  - cudaFoo hipFoo hip=x\n",  # names are positional
    ],
)
def test_compact_rows_are_validated(bad: str) -> None:
    doc = yaml.safe_load("family: runtime\ncolumns: [cuda, hip]\n" + bad)
    with pytest.raises(ValueError, match="cudaFoo"):
        mappings_module.compact_records(doc, "runtime", "bad.yaml")


@pytest.mark.skipif(not REFERENCE.is_dir(), reason=NO_REFERENCE)
def test_committed_yaml_equals_fresh_generation() -> None:
    generated = GEN.generate(REFERENCE)
    assert sorted(generated) == sorted(f"{f}.yaml" for f in FAMILY_ORDER)
    assert GEN.stale_files(generated, REPO / "mappings" / "generated") == []


@pytest.mark.slow
@pytest.mark.skipif(not REFERENCE.is_dir(), reason=NO_REFERENCE)
def test_check_mode_detects_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert GEN.main(["--src", str(REFERENCE), "--out", str(out)]) == 0
    assert GEN.main(["--src", str(REFERENCE), "--out", str(out), "--check"]) == 0
    rtc = out / "rtc.yaml"
    rtc.write_text(rtc.read_text(encoding="utf-8").replace("hiprtcCreateProgram", "x"), encoding="utf-8")
    assert GEN.main(["--src", str(REFERENCE), "--out", str(out), "--check"]) == 1
    assert "rtc.yaml" in capsys.readouterr().err


SYNTHETIC = """# Test
## **1. Foo Data types [DEPRECATED]**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|**ROC**|**A**|**D**|**C**|**R**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|
|`fooHandle_t`|11.0| | | |`hipfooHandle_t`|6.3.0| | | |6.3.0| | | | | | |
|`FOO_ON`| | | | | | | | | | |`yes`|1.0| | | | |

## **2. Foo Functions**

|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|**ROC**|**A**|**D**|**C**|**R**|**E**|
|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|
|`fooRun`| | | | |`hipfooRun`|1.0| | | | | | | | | | |
|`fooRun`| |12.0| | | | | | | | | | | | | | |
"""


def test_generator_parses_sections_and_keeps_duplicates() -> None:
    rows = list(GEN.parse_table_rows(SYNTHETIC, "foo.md"))
    assert [r.fields["cuda"] for r in rows] == ["fooHandle_t", "FOO_ON", "fooRun", "fooRun"]
    first = rows[0].fields
    assert first == {
        "cuda": "fooHandle_t",
        "hip": "hipfooHandle_t",
        "roc": None,
        "group": "Foo Data types",
        "group_status": "deprecated",
        "cuda_added": "11.0",
        "hip_added": "6.3.0",
        "hip_experimental": "6.3.0",
        "kind": "type",
    }
    family = GEN.Family("foo", "foo.md", (("cuda", "cuFOO"), ("hip", "hipFOO"), ("roc", "rocFOO")))
    text = GEN.render_family(family, rows)
    GEN.check_round_trip(text, rows, "foo.md")
    assert "  - FOO_ON ~ yes roc_added=1.0\n" in text
    assert "- group: Foo Data types\n  status: deprecated\n  rows:\n" in text
    assert text.count("# note: fooRun occurs 2 times") == 2
    assert "library: {cuda: cuFOO, hip: hipFOO, roc: rocFOO}" in text
    records = mappings_module.compact_records(yaml.safe_load(text), "foo", "foo.yaml")
    expected = Entry("fooRun", None, "foo", group="Foo Functions", cuda_deprecated="12.0", kind="function")
    assert Entry(*records[3]) == expected


@pytest.mark.parametrize(
    "bad_row",
    [
        "|`a`| | | | |hipA| | | | | |",  # counterpart not in backticks
        "|`a`|eleven| | | | | | | | | |",  # not a version
        "|`a`| | | | | | | | | |",  # cell count differs from the header
    ],
)
def test_generator_rejects_malformed_rows(bad_row: str) -> None:
    text = (
        "## **1. Things**\n|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n"
        f"|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n{bad_row}\n"
    )
    with pytest.raises(GEN.ParseError):
        list(GEN.parse_table_rows(text, "bad.md"))


# --- loader: user tables, cache, missing headers -------------------------------------------------------


def test_extra_user_tables_add_and_override(tmp_path: Path, fresh_loader: Path) -> None:
    user = tmp_path / "mine.yaml"
    user.write_text(
        "entries:\n"
        "- {cuda: cudaMalloc, hip: myMalloc, group: Mine, hip_added: 6.2}\n"
        "- {cuda: cudaBrandNew, hip: null}\n",
        encoding="utf-8",
    )
    base = load_mappings()
    m = load_mappings([user])
    assert m.by_cuda["cudaMalloc"] == Entry("cudaMalloc", "myMalloc", "custom", group="Mine", hip_added="6.2")
    assert not m.by_cuda["cudaBrandNew"].supported
    assert [e.cuda for e in m.families["custom"]] == ["cudaMalloc", "cudaBrandNew"]
    assert [e.cuda for e in m.by_hip["myMalloc"]] == ["cudaMalloc"]
    assert m.digest != base.digest
    assert base.by_cuda["cudaMalloc"].hip == "hipMalloc"  # the default tables are unaffected


def test_extra_user_table_with_unknown_field_is_rejected(tmp_path: Path, fresh_loader: Path) -> None:
    user = tmp_path / "bad.yaml"
    user.write_text("family: runtime\nentries:\n- {cuda: cudaFoo, hipp: hipFoo}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="hipp"):
        load_mappings([user])


def test_disk_cache_is_written_reused_and_survives_corruption(
    tmp_path: Path, fresh_loader: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "own-cache"
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(cache))
    first = load_mappings()
    cached = list(cache.glob("mappings-*.marshal"))
    assert len(cached) == 1
    mappings_module._load.cache_clear()
    assert load_mappings() == first  # served from the cache
    cached[0].write_bytes(b"\x00garbage")
    mappings_module._load.cache_clear()
    assert load_mappings() == first  # corrupt cache ignored (and rewritten)
    assert cached[0].read_bytes() != b"\x00garbage"


def test_unwritable_cache_dir_is_ignored(
    tmp_path: Path, fresh_loader: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(blocker / "sub"))
    assert len(load_mappings().by_cuda) == DISTINCT_CUDA_NAMES + EXTRA_NAMES


def test_missing_headers_file_is_tolerated(
    tmp_path: Path, fresh_loader: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    (data / "generated").mkdir(parents=True)
    for family in FAMILY_ORDER:
        shutil.copy(generated_dir() / f"{family}.yaml", data / "generated")
    monkeypatch.setattr(mappings_module, "mappings_dir", lambda: data)
    m = load_mappings()
    assert m.headers == {}
    assert len(m.by_cuda) == DISTINCT_CUDA_NAMES  # no extras.yaml either


# --- the `mappings` command ------------------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(mappings_command, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_exact_match() -> None:
    code, out, _ = run_cli("cudaMalloc")
    assert code == 0
    assert out.splitlines()[0] == "cudaMalloc  (runtime)"
    assert re.search(r"^  HIP +hipMalloc +added 1\.5\.0$", out, re.M)
    assert re.search(r"^  group +Memory Management$", out, re.M)
    assert re.search(r"^  status +supported$", out, re.M)


def test_cli_shows_roc_and_statuses() -> None:
    code, out, _ = run_cli("curand_init")
    assert code == 0
    assert re.search(r"^  rocRAND +rocrand_init +added 1\.5\.0$", out, re.M)
    code, out, _ = run_cli("cudaThreadGetLimit")
    assert re.search(r"^  CUDA Runtime +cudaThreadGetLimit +deprecated 10\.0$", out, re.M)
    assert re.search(r"^  HIP +-$", out, re.M)
    assert "status        unsupported, deprecated" in out
    _, out, _ = run_cli("cublasCgemm_64")
    assert "supported, experimental" in out


def test_cli_glob() -> None:
    code, out, _ = run_cli("cublasSgemm*")
    assert code == 0
    headers = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert "cublasSgemm_v2  (cublas)" in headers and "cublasSgemmBatched  (cublas)" in headers
    assert all(line.startswith("cublasSgemm") for line in headers)
    code, _, _ = run_cli("CUBLASSGEMM*")  # case-sensitive
    assert code == 1


def test_cli_hip_name_reverse_lookup() -> None:
    code, out, _ = run_cli("hipblasSgemm")
    assert code == 0
    assert "cublasSgemm  (cublas)" in out and "cublasSgemm_v2  (cublas)" in out
    code, out, _ = run_cli("miopenCreate")
    assert code == 0 and out.startswith("cudnnCreate  (cudnn)")


def test_cli_family_filter_and_duplicates_across_families() -> None:
    _, out, _ = run_cli("CUstream_st")
    assert "CUstream_st  (runtime)" in out and "CUstream_st  (driver)" in out
    _, out, _ = run_cli("CUstream_st", "--family", "driver")
    assert "(runtime)" not in out and "CUstream_st  (driver)" in out


def test_cli_json() -> None:
    code, out, _ = run_cli("cublasSgemm_v2", "--json")
    assert code == 0
    (item,) = json.loads(out)
    assert item["hip"] == "hipblasSgemm" and item["roc"] == "rocblas_sgemm"
    assert item["family"] == "cublas" and item["supported"] is True and item["status"] == ["supported"]
    assert item["roc_added"] == "1.5.0"
    assert item["absent_in_hip"] is None


def test_cli_no_match_exits_1() -> None:
    code, out, err = run_cli("noSuchCudaName")
    assert code == 1 and out == ""
    assert "no mapping matches 'noSuchCudaName'" in err
    code, out, _ = run_cli("noSuchCudaName", "--json")
    assert code == 1 and json.loads(out) == []


def test_cli_stats() -> None:
    code, out, _ = run_cli("--stats")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["family", "names", "supported", "unsupported", "with", "ROC"]
    rows = {
        line.split()[0]: line.split()[1:] for line in lines if line and line.split()[0] in EXPECTED_COUNTS
    }
    assert {f: tuple(int(v) for v in r) for f, r in rows.items()} == EXPECTED_COUNTS
    total = next(line for line in lines if line.startswith("total"))
    assert total.split() == ["total", "8932", "4943", "3989", "2061"]
    widths = {len(line) for line in lines[:-1]}
    assert len(widths) == 1  # aligned table


def test_cli_stats_json() -> None:
    code, out, _ = run_cli("--stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"]["names"] == TOTAL_ROWS
    assert data["families"][0] == {
        "family": "runtime",
        "names": 1436,
        "supported": 920,
        "unsupported": 516,
        "with_roc": 0,
    }


def test_cli_needs_query_or_stats() -> None:
    assert run_cli()[0] == 2
    assert run_cli("cudaMalloc", "--stats")[0] == 2


def test_cli_shows_names_checked_absent_from_installed_hip_headers() -> None:
    """mappings/hip-headers-*.yaml facts (scripts/check_hip_headers.py) are part of the lookup."""
    m = load_mappings()
    name, version = next(iter(sorted(m.absent_in.items())))
    entry = m.by_hip[name][0]
    code, out, _ = run_cli(entry.cuda, "--family", entry.family)
    assert code == 0
    assert re.search(rf"^  checked +not in the HIP {re.escape(version)} headers", out, re.M), out
    code, out, _ = run_cli(entry.cuda, "--family", entry.family, "--json")
    assert json.loads(out)[0]["absent_in_hip"] == version
    _, out, _ = run_cli("cudaMalloc")
    assert "checked" not in out


def test_extras_fill_gaps_and_never_replace_a_table_row(m: Mappings) -> None:
    extras = [e for e in m.by_cuda.values() if e.note]
    assert len(extras) == EXTRA_NAMES
    assert all(e.cuda not in {x.cuda for rows in m.families.values() for x in rows} for e in extras)
    assert m.by_cuda["nvtxRangePushA"].hip == "roctxRangePushA"
    assert m.by_cuda["CUDART_CB"].hip == ""
    assert m.by_cuda["__grid_constant__"].hip == ""


def test_an_extras_row_needs_reason_and_source(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("extras:\n- {cuda: fooBar, hip: hipFooBar, family: runtime, reason: why}\n")
    with pytest.raises(ValueError, match="source"):
        load_mappings([bad])
