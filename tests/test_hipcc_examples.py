"""Translate every portable example and compile it with the real HIP compiler (gfx90a)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fixture_cases import FIXTURES, hipcc_syntax

from hipify_py.options import Options
from hipify_py.target import installed_hip
from hipify_py.translate import translate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PORTABLE = sorted(p for p in EXAMPLES.glob("*/*.cu") if p.parent.name != "pitfalls")
HIPCC = shutil.which("hipcc")
# Examples are translated for the HIP they are compiled with, as the CLI does by default.
_INSTALLED = installed_hip()
TARGET = Options(hip_version=_INSTALLED.version if _INSTALLED else None)


@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
@pytest.mark.parametrize("example", PORTABLE, ids=[p.parent.name for p in PORTABLE])
def test_example_compiles_with_hipcc(example: Path, tmp_path: Path) -> None:
    assert HIPCC is not None, "CI must have hipcc"
    out_dir = tmp_path / example.parent.name
    out_dir.mkdir()
    for src in example.parent.iterdir():
        if src.suffix in (".cu", ".cuh", ".h"):
            (out_dir / src.name).write_bytes(translate(src.read_bytes(), TARGET).text)
    env = dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run(
        [HIPCC, "--offload-arch=gfx90a", "-c", str(out_dir / example.name), "-o", str(tmp_path / "x.o")],
        capture_output=True,
        text=True,
        env=env,
    )
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
    "warp_sync/hip52",  # adaptations for HIP 5.2, the HIP installed in CI
    "shims/hip52",  # equivalents written for names HIP 5.2 lacks
    "renames/hip52",  # counterparts that depend on the target (bfloat16 before HIP 5.7)
    "calls",
    "calls_roc",
    "cxx",
    "false_alarms",
    "collisions",
    "vector_ops",
    "overloads",
    "option_macros",
)
# Outputs that are not meant to compile, and why (everything else in COMPILED_TOPICS must).
NOT_COMPILABLE = {
    "macros/token_pasting.hip": "cuda##name builds CUDA names on purpose (reported as HIP102)",
    "mixed/off_on.hip": "hipify-py: off keeps CUDA code on purpose",
    "mixed/platform_branches.hip": "the protected HIP branch holds deliberate CUDA lookalikes",
    "includes/all_headers.hip": "hipBLAS/hipFFT/hipSOLVER/hipCUB and hip_bf16.h are not in Debian's HIP 5.2",
    "includes/already_hip.hip": "hipblas/hipblas.h is not packaged in Debian",
    "includes/comments_and_quotes.hip": "includes a user header that does not exist",
    "guards/libraries_not_packaged.hip": "hipBLAS/hipFFT/hipSOLVER are not in Debian's HIP 5.2",
    "extras/grid_constant.hip": "__grid_constant__ has no HIP counterpart (reported as HIP101)",
    "extras/nvtx_ranges.hip": "roctracer/roctx.h is not in Debian's HIP 5.2",
    "extras/thrust_backend.hip": "rocThrust is not in Debian's HIP 5.2",
    "warp_sync/hip52/match_reduce.hip": "__match_*_sync/__reduce_*_sync have no HIP 5.2 equivalent (HIP117)",
    "renames/hip52/bfloat16_pairs.hip": "__nv_bfloat162 has no counterpart before HIP 5.7 (HIP101)",
    "calls_roc/miopen.hip": "MIOpen is not packaged in Debian",
    "calls_roc/cusparse_batch.hip": "rocSPARSE wants an enum where cuSPARSE takes an int algorithm",
    "collisions/unfixable.hip": "collisions the tool reports (HIP125/HIP126) but cannot edit safely",
    "overloads/missing_overload.hip": "16-bit float overloads HIP 5.2 lacks (reported as HIP215)",
    "overloads/dim3_from_uint3.hip": "HIP's dim3 has no conversion from uint3 (reported as HIP216)",
    "option_macros/defined_in_file.hip": "inline PTX its own #define PTX switches on (HIP204)",
    "cxx/brace_assign_unresolved.hip": "braced assignments the tool reports (HIP130) or cannot type",
}
FIXTURE_OUTPUTS = sorted(
    p
    for topic in COMPILED_TOPICS
    for p in (FIXTURES / topic).glob("*.hip")
    if p.relative_to(FIXTURES).as_posix() not in NOT_COMPILABLE
)


@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
@pytest.mark.parametrize(
    "output", FIXTURE_OUTPUTS, ids=[str(o.relative_to(FIXTURES)) for o in FIXTURE_OUTPUTS]
)
def test_fixture_output_compiles_with_hipcc(output: Path) -> None:
    proc = hipcc_syntax(output)
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_not_compilable_list_is_current() -> None:
    for name in NOT_COMPILABLE:
        assert (FIXTURES / name).is_file(), f"stale entry {name}"


def test_examples_idempotent() -> None:
    for src in EXAMPLES.rglob("*.cu*"):
        once = translate(src.read_bytes()).text
        assert translate(once).text == once, src
