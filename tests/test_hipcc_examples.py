"""Translate every portable example for each target HIP and compile it with that release's hipcc
(gfx90a): Debian 12's HIP 5.2 on the host, ROCm 6.4 and 7.2 from scripts/provision_rocm.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path

import pytest
from fixture_cases import FIXTURES, hipcc_syntax
from toolchains import TARGETS, Toolchain, by_version, marks, params, require, syntax_check

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PORTABLE = sorted(p for p in EXAMPLES.glob("*/*.cu") if p.parent.name != "pitfalls")
HIPCC = shutil.which("hipcc")


def _compile_example(example: Path, chain: Toolchain) -> subprocess.CompletedProcess[str]:
    assert chain.hipcc is not None
    target = Options(hip_version=chain.version)
    out_dir = Path(tempfile.mkdtemp(prefix="example-")) / example.parent.name
    out_dir.mkdir()
    for src in example.parent.iterdir():
        if src.suffix in (".cu", ".cuh", ".h"):
            (out_dir / src.name).write_bytes(translate(src.read_bytes(), target).text)
    if chain.version == "5.2":  # a full compile (device code generation too) on the fast host compiler
        env = dict(os.environ, HIP_PLATFORM="amd")
        obj = out_dir.parent / "x.o"
        cmd = [chain.hipcc, "--offload-arch=gfx90a", "-c", str(out_dir / example.name), "-o", str(obj)]
        return subprocess.run(cmd, capture_output=True, text=True, env=env)
    return syntax_check(chain.hipcc, out_dir / example.name)


@pytest.mark.parametrize("chain", params())
@pytest.mark.parametrize("example", PORTABLE, ids=[p.parent.name for p in PORTABLE])
def test_example_compiles_with_hipcc(example: Path, chain: Toolchain, compiled: Compiled) -> None:
    """Translated for the release that compiles it, as the CLI does by default (the installed HIP)."""
    require(chain)
    proc = compiled()
    assert proc.returncode == 0, proc.stderr[-4000:]


# Adaptations that are facts of C++ and clang, not of one HIP release (the `template` keyword, the
# dropped `__grid_constant__`): translated for each target and compiled by that release's hipcc.
EVERY_RELEASE = (
    "cxx/template_keyword.cu",
    "includes/computed_include.cu",
    "identifiers/symbol_table.cu",
    "identifiers/member_macro.cu",
    "overloads/dim3_from_uint3_return.cu",
    "guards/device_pass_ptx_equivalent.cu",
    "guards/pass_qualifiers.cu",
    "guards/device_pass_adapted_name.cu",
    "device/ptx_equivalents_bitfield.cu",
    "device/ptx_equivalents_logic.cu",
    "device/half_raw_init.cu",
    "device/ptx_equivalents_find.cu",
    "device/ptx_equivalents_load.cu",
    "device/surface_modes.cu",
    "extras/grid_constant.cu",
    "vector_ops/compound_void_prototypes.cu",
    "mixed/else_branch_definition.cu",
    "mixed/if_branch_definition.cu",
    "pointer_attributes/memory_type.cu",  # `type` or `memoryType`, as each release's struct names it
    "cxx/mixed_minmax.cu",
    "cxx/mixed_minmax_negative.cu",
    "cxx/mixed_minmax_arithmetic.cu",
    "host_minmax/host_types.cu",
    "host_minmax/template_first.cu",
    "host_minmax/evident_int.cu",
    "host_minmax/own_macro.cu",
    "host_minmax/own_function.cu",
    "host_minmax/device_only.cu",
    "device/ptx_equivalents_special.cu",  # HIP's lane, multiprocessor, clock and lane-mask functions
    "cxx/vla_pointer_casts.cu",  # a pointer to a variable-length array, declared with auto
    "cxx/builtin_declarations.cu",  # CUDA's built-in variables declared for the host pass
)


def _compile_release_independent(name: str, chain: Toolchain) -> subprocess.CompletedProcess[str]:
    assert chain.hipcc is not None
    out = Path(tempfile.mkdtemp(prefix="fixture-")) / Path(name).with_suffix(".hip").name
    out.write_bytes(translate((FIXTURES / name).read_bytes(), Options(hip_version=chain.version)).text)
    return syntax_check(chain.hipcc, out)


@pytest.mark.parametrize("chain", params())
@pytest.mark.parametrize("name", EVERY_RELEASE)
def test_release_independent_fixture_compiles(name: str, chain: Toolchain, compiled: Compiled) -> None:
    require(chain)
    proc = compiled()
    assert proc.returncode == 0, proc.stderr[-4000:]


# Fixture outputs that use only the runtime/device API must compile too (extra confidence).
COMPILED_TOPICS = (
    "identifiers",
    "launch",
    "launch_spaced",
    "guards",
    "include_order",
    "extras",
    "keep_launch",
    "negative",
    "symbols",
    "macros",
    "mixed",
    "includes",
    "encoding",
    "calls",
    "calls_roc",
    "cxx",
    "false_alarms",
    "collisions",
    "vector_ops",
    "overloads",
    "option_macros",
    "insertions",
)
# Outputs that are not meant to compile, and why (everything else in COMPILED_TOPICS must).
NOT_COMPILABLE = {
    "renames/hip72/removed_memset_params.hip": "ROCm 7.2 removed HIP_MEMSET_NODE_PARAMS (its finding)",
    "macros/pasted_prefix_blas.hip": "hipBLAS is not in Debian's HIP 5.2 (compiles with ROCm 6.4 and 7.2)",
    "mixed/off_on.hip": "hipify-py: off keeps CUDA code on purpose",
    "mixed/platform_branches.hip": "the protected HIP branch holds deliberate CUDA lookalikes",
    "includes/all_headers.hip": "hipBLAS/hipFFT/hipSOLVER/hipCUB and hip_bf16.h are not in Debian's HIP 5.2",
    "includes/already_hip.hip": "hipblas/hipblas.h is not packaged in Debian",
    "includes/comments_and_quotes.hip": "includes a user header that does not exist",
    "includes/runtime_late_conditional.hip": "includes a user header that does not exist",
    "includes/no_counterpart_libs.hip": "cuBLASXt, libcu++ and NVSHMEM have no HIP counterpart (HIP101)",
    "includes/libcudacxx_only.hip": "libcu++'s <cuda/stream_ref> has no HIP counterpart (HIP101)",
    "identifiers/hip64/wmma_through_header.hip": "WMMA has no HIP counterpart (HIP101); its header is ours",
    "identifiers/hip64/wmma_used.hip": "WMMA has no HIP counterpart (HIP101)",
    "device/ptx_equivalents_move_cross.hip": "inline PTX that reinterprets a float's bits (HIP204)",
    "device/ptx_equivalents_prefetch_offset.hip": "inline PTX prefetch of an address plus an offset (HIP204)",
    "device/ptx_equivalents_special_none.hip": "PTX special registers HIP has no function for (HIP204)",
    "device/ptx_equivalents_logic_kept.hip": "inline PTX, sources out of order or two instructions (HIP204)",
    "renames/hip64/blaslt_block_scaling.hip": "cuBLASLt block scaling: no counterpart before 7.2 (HIP101)",
    "guards/libraries_not_packaged.hip": "hipBLAS/hipFFT/hipSOLVER are not in Debian's HIP 5.2",
    "extras/nvtx_ranges.hip": "roctracer/roctx.h is not in Debian's HIP 5.2",
    "extras/thrust_backend.hip": "rocThrust is not in Debian's HIP 5.2",
    "extras/memory_compression.hip": "compressible memory has no HIP counterpart (HIP101)",
    "extras/thrust_backend_only.hip": "rocThrust is not in Debian's HIP 5.2",
    "mixed/library_hip_arm.hip": "hipCUB is not in Debian's HIP 5.2",
    "warp_sync/hip52/match_reduce.hip": "__match_*_sync/__reduce_*_sync have no HIP 5.2 equivalent (HIP117)",
    "warp_sync/hip62/match_reduce.hip": "__reduce_*_sync has no HIP 6.x equivalent (HIP117)",
    "detectors/hip72/warp_size_constant.hip": "HIP code using warpSize as a constant (HIP218 on ROCm 7)",
    "detectors/hip52/device_prop_fields.hip": "cudaDeviceProp fields HIP 5.2 lacks (HIP115)",
    "detectors/hip64/half_shuffles.hip": "bf16 shuffles: no overload in ROCm 6.4 (HIP215)",
    "detectors/hip72/half_shuffles.hip": "__hip_bfloat162 shuffle: no overload in ROCm 7.2 (HIP215)",
    "detectors/hip72/half_bf16_casts.hip": "bf16 <-> half casts: ambiguous on ROCm 6.4/7.2 (HIP220)",
    "renames/hip52/bfloat16_pairs.hip": "__nv_bfloat162 has no counterpart before HIP 5.7 (HIP101)",
    "calls_roc/miopen.hip": "MIOpen is not packaged in Debian",
    "calls_roc/cusparse_batch.hip": "rocSPARSE wants an enum where cuSPARSE takes an int algorithm",
    "collisions/unfixable.hip": "collisions the tool reports (HIP125/HIP126) but cannot edit safely",
    "collisions/hip72/void_handles.hip": "overloads on cuSPARSE descriptors, all void* in HIP (HIP125)",
    "collisions/hip72/void_conversions.hip": "conversions to cuBLAS/cuSOLVER handles, void* in HIP (HIP125)",
    "overloads/missing_overload.hip": "16-bit float overloads HIP 5.2 lacks (reported as HIP215)",
    "overloads/declared_whole_word.hip": "a __half2 shuffle HIP 5.2 lacks (reported as HIP215)",
    "overloads/atomic_minmax_signed64.hip": "signed 64-bit atomicMax/atomicMin HIP 5.2 lacks (HIP215)",
    "option_macros/defined_in_file.hip": "inline PTX its own #define PTX switches on (HIP204)",
    "cxx/brace_assign_unresolved.hip": "braced assignments the tool reports (HIP130) or cannot type",
    "vendor_libs/hip52/nccl_not_packaged.hip": "Debian 12 has no RCCL (HIP140)",
    "vendor_libs/hip52/nvtx3_not_packaged.hip": "Debian 12 has no roctx (HIP140)",
    "vendor_libs/hip52/nvml_telemetry.hip": "NVML calls to port (HIP142); no ROCm SMI on the host",
    "vendor_libs/hip64/nccl_not_packaged.hip": "Debian's RCCL 5.4 needs HIP 5 (HIP140)",
    "vendor_libs/hip72/nccl_newer.hip": "NCCL names newer than ROCm 7.2's RCCL (HIP141)",
    "vendor_libs/hip72/nccl_net_plugin.hip": "Debian's RCCL 7.2: nccl_net.h lacks its includes (HIP140)",
    "vendor_libs/hip72/nvml_telemetry.hip": "NVML calls whose ROCm SMI counterparts differ (HIP142)",
    "vendor_libs/hip72/nvtx3_unported.hip": "NVTX beyond roctx's ranges and marks (HIP101, HIP141)",
    "version_errors/hip72/both_branches_error.hip": "a CUDA version test with an #error either way (HIP224)",
    "identifiers/hip64/lacking_case_macros_fallthrough.hip": "a label macro call code falls into (HIP101)",
    "renames/hip64/cusolver_sp_qr.hip": "the complex sparse QR solves come with ROCm 7.2 (HIP101 on 6.4)",
    "cache_hints/hip64/not_called.hip": "the address of __ldcs, which ROCm lacks for float (HIP139)",
}
FIXTURE_OUTPUTS = sorted(
    p
    for topic in COMPILED_TOPICS
    for p in (FIXTURES / topic).glob("*.hip")
    if p.relative_to(FIXTURES).as_posix() not in NOT_COMPILABLE
)


@pytest.mark.hipcc
@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
@pytest.mark.parametrize(
    "output", FIXTURE_OUTPUTS, ids=[str(o.relative_to(FIXTURES)) for o in FIXTURE_OUTPUTS]
)
def test_fixture_output_compiles_with_hipcc(output: Path, compiled: Compiled) -> None:
    proc = compiled()
    assert proc.returncode == 0, proc.stderr[-4000:]


def _pinned_release(folder: str) -> str | None:
    """`hipMN` (a folder pinned to HIP M.N by its options.yaml) -> the present-or-provisioned release
    that compiles it: the same major, the first release at or after M.N among the targets."""
    m = re.fullmatch(r"hip(\d)(\d)", folder)
    if m is None:
        return None
    major, minor = int(m.group(1)), int(m.group(2))
    later = [v for v in TARGETS if int(v.split(".")[0]) == major and int(v.split(".")[1]) >= minor]
    return min(later, key=lambda v: int(v.split(".")[1]), default=None)


PINNED_OUTPUTS = sorted(
    (p, release)
    for p in FIXTURES.glob("**/hip[0-9][0-9]/*.hip")
    if (release := _pinned_release(p.parent.name)) is not None
    and p.relative_to(FIXTURES).as_posix() not in NOT_COMPILABLE
)


@pytest.mark.hipcc
@pytest.mark.parametrize(
    ("output", "release"),
    [pytest.param(o, r, marks=marks(r), id=f"{o.relative_to(FIXTURES)}@{r}") for o, r in PINNED_OUTPUTS],
)
def test_pinned_fixture_compiles_with_its_release(output: Path, release: str, compiled: Compiled) -> None:
    """Outputs of folders pinned to a target (hip52, hip62, hip70, hip72...) compile with that release."""
    with open(output.parent / "options.yaml") as f:
        pinned = f.read()
    assert output.parent.name[3:] in pinned.replace(".", ""), "folder name and options.yaml disagree"
    require(by_version(release))
    proc = compiled()
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_not_compilable_list_is_current() -> None:
    for name in NOT_COMPILABLE:
        assert (FIXTURES / name).is_file(), f"stale entry {name}"


def test_examples_idempotent() -> None:
    for src in EXAMPLES.rglob("*.cu*"):
        once = translate(src.read_bytes()).text
        assert translate(once).text == once, src


# The compiles of this module's collected tests, started together on every CPU when the first of them
# runs (each is one hipcc process; one at a time, the module took most of the suite's time): a test
# waits for its own. A test whose hipcc is absent gets none and is left to require() (skip, or fail
# under CI).
Proc = subprocess.CompletedProcess[str]
Compiled = Callable[[], Proc]


def _example_job(example: Path, chain: Toolchain) -> Compiled | None:
    return partial(_compile_example, example, chain) if chain.hipcc else None


def _release_independent_job(name: str, chain: Toolchain) -> Compiled | None:
    return partial(_compile_release_independent, name, chain) if chain.hipcc else None


def _output_job(output: Path) -> Compiled | None:
    return partial(hipcc_syntax, output) if HIPCC else None


def _pinned_job(output: Path, release: str) -> Compiled | None:
    hipcc = by_version(release).hipcc
    return partial(syntax_check, hipcc, output) if hipcc else None


_JOBS: dict[str, Callable[..., Compiled | None]] = {
    "test_example_compiles_with_hipcc": _example_job,
    "test_release_independent_fixture_compiles": _release_independent_job,
    "test_fixture_output_compiles_with_hipcc": _output_job,
    "test_pinned_fixture_compiles_with_its_release": _pinned_job,
}


@pytest.fixture(scope="module")
def _compiles(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[Proc]]]:
    module = request.node.nodeid
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {}
        for item in request.session.items:
            job_of = _JOBS.get(getattr(item, "originalname", ""))
            if job_of is None or not item.nodeid.startswith(module):
                continue
            job = job_of(**item.callspec.params)
            if job is not None:
                futures[item.nodeid] = pool.submit(job)
        yield futures
        for future in futures.values():
            future.cancel()


@pytest.fixture
def compiled(request: pytest.FixtureRequest, _compiles: dict[str, Future[Proc]]) -> Compiled:
    """This test's compile: its result, waited for."""
    return lambda: _compiles[request.node.nodeid].result()
