"""scripts/check_hip_headers.py (mapping tables vs a real HIP install) and the hip-headers-*.yaml facts.

A synthetic include root makes every classification occur; the real Debian headers (CI installs them)
check that the committed facts file is what the script derives, that the scanner agrees with hipcc on
every name, and that no mapping rewrites silently to a name the installed headers lack.

Hermetic: a machine may have more ROCm libraries than CI's (librocsparse-dev, librocprim-dev, ...). The
tests on the real headers check the libraries the committed facts cover (CI's set), nothing beyond.
HIPIFY_PY_TEST_INCLUDE points them at another include root, e.g. a view of exactly CI's packages made by
scripts/ci_include_view.py, to run them as CI would on a machine that has more.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from toolchains import TOOLCHAINS, Toolchain, require

from hipify_py.data.mappings import load_mappings
from hipify_py.data.renames import renames_for
from hipify_py.data.schema import Entry, Header
from hipify_py.data.versions import compare_versions
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

REPO = Path(__file__).resolve().parent.parent
FACTS = REPO / "mappings" / "probed" / "hip-headers-5.2.yaml"
SYSTEM = Path(os.environ.get("HIPIFY_PY_TEST_INCLUDE") or "/usr/include")
HAVE_HEADERS = (SYSTEM / "hip" / "hip_version.h").is_file()
HIPCC = shutil.which("hipcc")
need_headers = pytest.mark.skipif(
    not HAVE_HEADERS and not os.environ.get("CI"),
    reason="Debian HIP headers not installed (CI installs them)",
)
need_hipcc = pytest.mark.skipif(
    (HIPCC is None or not HAVE_HEADERS) and not os.environ.get("CI"),
    reason="hipcc and HIP headers not installed (CI installs them)",
)


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_hip_headers", REPO / "scripts" / "check_hip_headers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # why: dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


CHK = load_script()

# -- synthetic install -----------------------------------------------------------------------------
RUNTIME_API = """\
#pragma once
#ifndef HIP_RUNTIME_API_H  // a header guard: undecided, so kept
#define HIP_RUNTIME_API_H
#include <hip/hip_version.h>
#define hipMacroOld 1
#define DECLARE_STATE(name) struct name { int x; }; typedef struct name name ## _t;
typedef int hipError_t;
typedef struct ihipStream_t* hipStream_t;
typedef enum hipOldEnum { hipOldA = 0, hipOldB HIP_DEPRECATED("x") = 2, } hipOldEnum;
hipError_t hipOldFunction(int value);
hipError_t hipStaleRemoved(void);
hipError_t hipPessimistic(void);
DECLARE_STATE(hipMacroState)
/* hipInComment(int); */
static const char* text = "hipInString";
#if defined(__HIP_PLATFORM_NVIDIA__)
hipError_t hipNvidiaOnly(void);
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
hipError_t hipAmdBranch(void);
#else
hipError_t hipNeitherBranch(void);
#endif
#if 0
hipError_t hipIfZero(void);
#endif
#ifdef __HIP_DEVICE_COMPILE__
__device__ int hipDeviceOnly(int);
#endif
#endif
"""
HIPRAND = """\
#pragma once
typedef enum hiprandStatus { HIPRAND_STATUS_SUCCESS = 0 } hiprandStatus_t;
hiprandStatus_t hiprandNew(void);
"""


def synthetic_root(tmp_path: Path, major: int = 5, minor: int = 2) -> Path:
    root = tmp_path / "include"
    (root / "hip" / "nvidia_detail").mkdir(parents=True)
    (root / "hiprand").mkdir()
    version = f"#define HIP_VERSION_MAJOR {major}\n#define HIP_VERSION_MINOR {minor}\n"
    (root / "hip" / "hip_version.h").write_text(version + "#define HIP_VERSION_PATCH 21153\n")
    (root / "hip" / "hip_runtime_api.h").write_text(RUNTIME_API)
    (root / "hip" / "nvidia_detail" / "nvidia_hip_runtime_api.h").write_text("int hipNvidiaDetail(void);\n")
    (root / "hiprand" / "hiprand.h").write_text(HIPRAND)
    return root


def entry(cuda: str, hip: str | None, family: str = "runtime", **versions: str) -> Entry:
    return Entry(cuda=cuda, hip=hip, family=family, **versions)


FAMILIES = {
    "runtime": (
        entry("cudaOldFunction", "hipOldFunction", hip_added="1.6.0"),
        entry("cudaMacroOld", "hipMacroOld", hip_added="5.2.0"),
        entry("cudaOldB", "hipOldB", hip_added="3.0.0"),
        entry("cudaMacroState_t", "hipMacroState_t"),  # declared only through a ## macro
        entry("cudaAmdBranch", "hipAmdBranch", hip_added="4.0"),
        entry("cudaNeitherBranch", "hipNeitherBranch", hip_added="4.0"),
        entry("cudaDeviceOnly", "hipDeviceOnly", hip_added="4.0"),
        entry("cudaNew", "hipNew", hip_added="6.0.0"),
        entry("cudaGone", "hipGone", hip_added="1.0", hip_removed="5.0"),
        entry("cudaPessimistic", "hipPessimistic", hip_added="5.3.0"),
        entry("cudaStaleRemoved", "hipStaleRemoved", hip_removed="5.1"),
        entry("cudaDangerous", "hipDangerous", hip_added="4.3.0"),
        entry("cudaUndated", "hipUndated"),  # no version: the tool treats it as always there
        entry("cudaInComment", "hipInComment", hip_added="1.0"),
        entry("cudaInString", "hipInString", hip_added="1.0"),
        entry("cudaNvidiaOnly", "hipNvidiaOnly", hip_added="1.0"),
        entry("cudaNvidiaDetail", "hipNvidiaDetail", hip_added="1.0"),
        entry("cudaIfZero", "hipIfZero", hip_added="1.0"),
        entry("cudaUnsupported", None),
        entry("cudaPointer", "void*"),
    ),
    "curand": (
        entry("curandCreateGenerator", "hiprandNew", "curand", hip_added="1.5.0"),
        entry("CURAND_STATUS_SUCCESS", "HIPRAND_STATUS_SUCCESS", "curand", hip_added="1.5.0"),
        entry("curandMissing", "hiprandMissing", "curand", hip_added="5.3.0"),
    ),
    "cublas": (entry("cublasCreate", "hipblasCreate", "cublas", hip_added="1.0"),),  # not installed
}
EXPECTED = {
    "hipOldFunction": "agree-present",
    "hipMacroOld": "agree-present",
    "hipOldB": "agree-present",
    "hipMacroState_t": "agree-present",
    "hipAmdBranch": "agree-present",
    "hipNeitherBranch": "dangerous",
    "hipDeviceOnly": "agree-present",
    "hipNew": "agree-absent",
    "hipGone": "agree-removed",
    "hipPessimistic": "pessimistic",
    "hipStaleRemoved": "stale-removed",
    "hipDangerous": "dangerous",
    "hipUndated": "dangerous",
    "hipInComment": "dangerous",
    "hipInString": "dangerous",
    "hipNvidiaOnly": "dangerous",
    "hipNvidiaDetail": "dangerous",
    "hipIfZero": "dangerous",
    "hiprandNew": "agree-present",
    "HIPRAND_STATUS_SUCCESS": "agree-present",
    "hiprandMissing": "agree-absent",
}


def test_every_classification_on_a_synthetic_install(tmp_path: Path) -> None:
    result = CHK.run_check(synthetic_root(tmp_path), families=FAMILIES)
    assert result.hip_version == "5.2"
    assert {c.name: c.klass for c in result.checks} == EXPECTED
    assert set(EXPECTED.values()) == set(CHK.CLASSES)
    counts = CHK.counts_by_family(result.checks)
    assert set(counts) == {"runtime/hip", "curand/hip"}  # cublas is not installed: not checked
    assert counts["curand/hip"] == {"agree-present": 2, "agree-absent": 1}


HEADERS = [
    Header("cuda_runtime_api.h", "hip/hip_runtime_api.h", "runtime"),
    Header("cuda_bf16.h", "hip/hip_bf16.h", "device", hip_added="5.7.0"),
    Header("cuda_missing.h", "hip/hip_missing.h", "runtime"),
    Header("curand.h", "hiprand/hiprand.h", "curand", roc="rocrand/rocrand.h"),  # rocRAND not installed
    Header("cublas_v2.h", "hipblas/hipblas.h", "cublas"),  # not installed
]


def test_header_targets(tmp_path: Path) -> None:
    result = CHK.run_check(synthetic_root(tmp_path), families={}, headers=HEADERS)
    assert {(c.cuda, c.side, c.klass) for c in result.header_checks} == {
        ("cuda_runtime_api.h", "hip", "agree-present"),
        ("cuda_bf16.h", "hip", "agree-absent"),
        ("cuda_missing.h", "hip", "dangerous"),
        ("curand.h", "hip", "agree-present"),
    }
    assert CHK.main(["--include", str(tmp_path / "include"), "--no-hipcc"], {}) == 0  # nothing dangerous


def test_library_version_override(tmp_path: Path) -> None:
    """hipRAND headers from a newer ROCm than HIP: a name added in that release is then expected."""
    root = synthetic_root(tmp_path)
    (root / "hiprand" / "hiprand.h").write_text(HIPRAND + "hiprandStatus_t hiprandMissing(void);\n")
    as_hip = CHK.run_check(root, families=FAMILIES)
    as_53 = CHK.run_check(root, {"hiprand": "5.3"}, families=FAMILIES)
    klass = {c.name: c.klass for c in as_hip.checks}, {c.name: c.klass for c in as_53.checks}
    assert (klass[0]["hiprandMissing"], klass[1]["hiprandMissing"]) == ("pessimistic", "agree-present")
    assert as_53.versions == {"hip": "5.2", "hiprand": "5.3"}


def test_not_a_hip_root(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"hip_version\.h"):
        CHK.run_check(tmp_path, families=FAMILIES)


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("defined(__HIP_PLATFORM_AMD__)", True),
        ("defined __HIP_PLATFORM_NVIDIA__", False),
        ("!defined(__HIP_PLATFORM_NVCC__) && defined(__HIP_PLATFORM_HCC__)", True),
        ("defined(__HIP_PLATFORM_NVIDIA__) && defined(SOMETHING)", False),
        ("defined(__HIP_PLATFORM_AMD__) || defined(SOMETHING)", True),
        ("defined(SOMETHING)", None),
        ("__HIP_DEVICE_COMPILE__", None),
        ("0", False),
        ("1", True),
        ("__HIP_PLATFORM_AMD__ == 1", True),
    ],
)
def test_platform_conditions(expr: str, value: bool | None) -> None:
    assert CHK.evaluate_condition(expr) is value


def test_cli_writes_facts_the_loader_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1 when something is dangerous; the facts file lists absent names (not the removed one)."""
    root = synthetic_root(tmp_path)
    facts = tmp_path / "hip-headers-test.yaml"
    argv = ["--include", str(root), "--no-hipcc", "--write-facts", str(facts), "--source", "test"]
    code = CHK.main(argv, FAMILIES)
    assert code == 1
    out = capsys.readouterr().out
    assert "dangerous (8)" in out and "cudaDangerous -> hipDangerous (added 4.3.0)" in out
    doc = yaml.safe_load(facts.read_text())
    assert facts.read_text().startswith("# Generated by scripts/check_hip_headers.py")
    blocks = {b["library"]: b for b in doc["hip_headers"]}
    absent_expected = {n for n, k in EXPECTED.items() if k in ("agree-absent", "dangerous")}
    assert set(blocks["hip"]["absent"]) | set(blocks["hiprand"]["absent"]) == absent_expected
    assert (blocks["hip"]["version"], blocks["hiprand"]["version"]) == ("5.2", "5.2")
    loaded = load_mappings([facts])
    assert loaded.absent_in["hipDangerous"] == "5.2" and "hipGone" not in loaded.absent_in


def test_later_facts_win(tmp_path: Path) -> None:
    """Absent in a later release implies absent earlier, up to a checked release that declares the name:
    the highest such version is kept; an absence after a release that declares it is a removal."""
    old, new = tmp_path / "hip-headers-a.yaml", tmp_path / "hip-headers-b.yaml"
    old.write_text("hip_headers:\n- {library: hiptest, version: '5.2', absent: [hipX, hipY]}\n")
    new.write_text("hip_headers:\n- {library: hiptest, version: '6.0', absent: [hipX]}\n")
    loaded = load_mappings([new, old])
    assert (loaded.absent_in["hipX"], loaded.absent_in["hipY"]) == ("6.0", "5.2")
    # hipZ is declared by 6.0 (its check lists hiptest without it) and gone in 7.0: removed, not "not
    # yet added" (a library of its own: the shipped facts' checks of `hip` would count as well)
    newest = tmp_path / "hip-headers-c.yaml"
    newest.write_text("hip_headers:\n- {library: hiptest, version: '7.0', absent: [hipX, hipY, hipZ]}\n")
    loaded = load_mappings([new, old, newest])
    assert (loaded.absent_in["hipX"], loaded.removed_in.get("hipX")) == ("7.0", None)
    assert (loaded.absent_in["hipY"], loaded.removed_in["hipY"]) == ("5.2", "7.0")  # back in 6.0
    assert ("hipZ" not in loaded.absent_in, loaded.removed_in["hipZ"]) == (True, "7.0")
    bad = tmp_path / "bad.yaml"
    bad.write_text("hip_headers:\n- {library: hip, absent: [hipX]}\n")
    with pytest.raises(ValueError, match="needs a `version`"):
        load_mappings([bad])


# -- the committed facts and the tool --------------------------------------------------------------
def rules_for(source: str, **options: str) -> dict[str, list[str]]:
    result = translate(source.encode(), Options(**options))
    found: dict[str, list[str]] = {}
    for d in result.diagnostics:
        found.setdefault(d.rule, []).append(d.message)
    return found


def test_tool_warns_for_names_the_headers_lack() -> None:
    """cudaErrorLossyQuery -> hipErrorLossyQuery: the tables give no HIP version, and Debian's 5.2, 6.4
    and 7.2 all lack it."""
    assert load_mappings().absent_in.get("hipErrorLossyQuery") == "7.2"
    source = "#include <cuda_runtime.h>\nint f() { return cudaErrorLossyQuery; }\n"
    at_52 = rules_for(source, hip_version="5.2")
    assert at_52["HIP103"] == [
        "cudaErrorLossyQuery -> hipErrorLossyQuery is not in the HIP 7.2 headers "
        "(the tables give no version; target 5.2); rewritten"
    ]
    assert "HIP103" in rules_for(source, hip_version="6.4")
    assert "HIP103" not in rules_for(source, hip_version="7.3")  # newer than any release checked
    assert "HIP103" not in rules_for(source)  # no target: the latest HIP is assumed
    kept = translate(source.encode(), Options(hip_version="5.0", version_policy="keep"))
    assert b"cudaErrorLossyQuery" in kept.text and b"hipErrorLossyQuery" not in kept.text


def test_table_version_still_wins_for_its_own_message() -> None:
    """A name the tables already date later gets one HIP103 (the tables' 'needs HIP >=' message)."""
    source = "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSetLimit(cudaLimitStackSize, 1); }\n"
    messages = rules_for(source, hip_version="5.2")["HIP103"]
    assert len(messages) == 2 and all("needs HIP >= 5.3.0" in m for m in messages)


# -- the real Debian headers -----------------------------------------------------------------------
def committed_facts() -> dict[str, dict]:
    doc = yaml.safe_load(FACTS.read_text(encoding="utf-8"))
    return {block["library"]: block for block in doc["hip_headers"]}


@pytest.fixture(scope="module")
def real_scan() -> object:  # a scan of every installed HIP header (seconds): its tests are marked slow
    versions = {lib: str(block["version"]) for lib, block in committed_facts().items()}
    return CHK.run_check(SYSTEM, versions)


def covered(checks: list) -> list:
    """Checks of the libraries the committed facts cover: what the tool knows. Other installed libraries
    (more than CI installs) have no facts to compare with, and the tool promises nothing about them."""
    libraries = committed_facts()
    return [c for c in checks if c.library in libraries]


@need_headers
@pytest.mark.slow
def test_committed_facts_match_the_installed_headers(real_scan: object) -> None:
    """The scan alone re-derives the committed file (made with hipcc confirmation) for every library it
    covers: regenerate with the command in its header comment when the tables or those packages change."""
    committed = {lib: set(block["absent"] or ()) for lib, block in committed_facts().items()}
    missing = sorted(set(committed) - set(real_scan.versions))
    assert not missing, f"not installed here, but CI installs them (.ci/run): {missing}"
    derived = CHK.absent_by_library(covered(real_scan.checks))
    assert derived == committed, f"regenerate {FACTS.name} with the command in its header comment"
    assert real_scan.hip_version == "5.2"
    # the dating check: names the tables date after this install that its headers declare
    present = {lib: set(block.get("present") or ()) for lib, block in committed_facts().items()}
    late = {lib: names for lib, names in real_scan.dated_late.items() if lib in present}
    assert late == present, f"regenerate {FACTS.name}: the tables' dates and the headers disagree"


def test_names_dated_too_late_get_no_version_finding() -> None:
    """HIP_R_32F is in HIP 5.2's library_types.h although the tables date it 5.7; HIP_R_8I is not."""
    from hipify_py.engine.options import Options
    from hipify_py.pipeline.translate import translate

    found = translate(b"int a = CUDA_R_32F; int b = CUDA_R_8I;\n", Options(hip_version="5.2")).diagnostics
    assert [(d.col, d.rule) for d in found] == [(29, "HIP103")]
    assert translate(b"int a = CUDA_R_32F;\n", Options(hip_version="5.0")).diagnostics[0].rule == "HIP103"


@need_headers
@pytest.mark.slow
def test_libraries_beyond_the_facts_are_ignored(real_scan: object, tmp_path: Path) -> None:
    """A library the facts do not cover (here: a fake rocsparse beside the real headers) changes nothing
    the tests check, however many names it lacks."""
    root = tmp_path / "include"
    root.mkdir()
    for child in SYSTEM.iterdir():
        if child.name not in ("rocsparse", "rocsparse.h"):
            (root / child.name).symlink_to(child)
    (root / "rocsparse").mkdir()
    (root / "rocsparse" / "rocsparse.h").write_text("#pragma once\n")  # declares nothing at all
    versions = {lib: str(block["version"]) for lib, block in committed_facts().items()}
    wider = CHK.run_check(root, versions)
    assert "rocsparse" in wider.versions and "rocsparse" not in committed_facts()
    assert any(c.library == "rocsparse" and c.klass == "dangerous" for c in wider.checks)
    assert CHK.absent_by_library(covered(wider.checks)) == CHK.absent_by_library(covered(real_scan.checks))


@need_headers
@pytest.mark.slow
def test_every_header_the_tool_writes_exists_or_is_dated_later(real_scan: object) -> None:
    """headers.yaml targets of installed libraries: none is missing while dated at or before the install."""
    assert covered(real_scan.header_checks)
    assert [c for c in covered(real_scan.header_checks) if c.klass == "dangerous"] == []


@need_headers
@pytest.mark.slow
def test_no_silent_rewrite_to_a_missing_name(real_scan: object) -> None:
    """Every name the tables call available but the headers lack is known to the tool as absent."""
    absent_in = load_mappings().absent_in
    dangerous = [c for c in covered(real_scan.checks) if c.klass == "dangerous"]
    assert dangerous, "the data dates some names too early (see the facts file); if none, drop this test"
    version = real_scan.versions
    unknown = [
        c.name for c in dangerous if compare_versions(absent_in.get(c.name, ""), version[c.library]) < 0
    ]
    assert not unknown


@pytest.mark.hipcc
@need_hipcc
def test_scanner_agrees_with_hipcc_on_every_name() -> None:
    versions = {lib: str(block["version"]) for lib, block in committed_facts().items()}
    result = CHK.run_check(SYSTEM, versions, hipcc=HIPCC or "hipcc")
    assert result.compiler
    assert (result.scan_missed, result.scan_invented) == (set(), set())


@pytest.mark.hipcc
@need_hipcc
def test_translated_dangerous_names_do_not_compile_and_are_flagged(real_scan: object, tmp_path: Path) -> None:
    """Translate one use of each too-early-dated CUDA name for HIP 5.2: hipcc rejects every rewritten name,
    and the translation reports HIP103 for every one of them. Names version-renames.yaml writes otherwise
    for 5.2 (CU_JIT_* -> the runtime's hipJitOption*) are not the table's to date."""
    renamed = {name.decode() for name in renames_for("5.2").names}
    dangerous = sorted(
        {
            (c.cuda, c.name)
            for c in covered(real_scan.checks)
            if c.klass == "dangerous" and c.cuda not in renamed
        }
    )
    body = "\n".join(f"  {cuda};" for cuda, _ in dangerous)
    source = f"#include <cuda_runtime.h>\n#include <cuda.h>\nvoid uses() {{\n{body}\n}}\n"
    result = translate(source.encode(), Options(hip_version="5.2"))
    flagged = {d.message.split(" -> ")[0] for d in result.diagnostics if d.rule == "HIP103"}
    assert flagged == {cuda for cuda, _ in dangerous}
    out = tmp_path / "uses.hip"
    out.write_bytes(result.text)
    proc = subprocess.run(
        [HIPCC or "hipcc", "--offload-arch=gfx90a", "-fsyntax-only", "-w", "-ferror-limit=0", str(out)],
        capture_output=True,
        text=True,
        env=dict(os.environ, HIP_PLATFORM="amd"),
        check=False,
    )
    undeclared = set(CHK.undeclared_names(proc.stderr))
    assert {hip for _, hip in dangerous} <= undeclared, proc.stderr[-3000:]


@pytest.mark.parametrize("chain", [pytest.param(t, id=t.id) for t in TOOLCHAINS if t.version != "5.2"])
def test_committed_facts_match_each_rocm_toolchain(chain: Toolchain, tmp_path: Path) -> None:
    """hip-headers-6.4/7.2.yaml are what the script writes with that toolchain's hipcc (~25 s each).
    HIP 5.2's comes from CI's include view (the tests above)."""
    hipcc = require(chain)
    out = tmp_path / f"hip-headers-{chain.version}.yaml"
    with contextlib.redirect_stdout(io.StringIO()):
        CHK.main(["--hipcc", hipcc, "--write-facts", str(out)])
    committed = REPO / "mappings" / "probed" / out.name
    fresh, kept = yaml.safe_load(out.read_text()), yaml.safe_load(committed.read_text())
    assert (fresh["source"], fresh["hip_headers"]) == (kept["source"], kept["hip_headers"]), (
        f"regenerate {committed.name} with the command in its header comment"
    )


def test_ci_include_view_reads_the_ci_package_list(tmp_path: Path) -> None:
    """scripts/ci_include_view.py takes CI's packages from .ci/run's apt-get line (the view's roots)."""
    spec = importlib.util.spec_from_file_location("ci_include_view", REPO / "scripts" / "ci_include_view.py")
    assert spec is not None and spec.loader is not None
    view = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(view)
    assert {"hipcc", "libamdhip64-dev", "libhipsparse-dev"} <= set(view.ci_packages(REPO / ".ci" / "run"))
    script = tmp_path / "run"
    script.write_text("apt-get update -qq\napt-get install -y -qq a-dev b-dev >/dev/null  # c-dev\n")
    assert view.ci_packages(script) == ["a-dev", "b-dev"]
