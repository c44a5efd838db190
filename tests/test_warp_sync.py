"""Warp-sync adaptations: the table itself, pairs per target version, and outputs checked against the table.

Outputs of warp_sync/hip52, hip62 and hip70 are compiled with HIP 5.2, ROCm 6.4 and 7.2
(tests/test_hipcc_examples.py); they are also checked against the facts in the table: every warp-sync
call left in them exists at that target, takes a 64-bit mask, and the opt-in macro is defined where
needed. A project header using the builtins after a HIP header is compiled with ROCm 6.4 here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixture_cases import FIXTURES, cases

from hipify_py.data.adaptations import load_table, rows_for
from hipify_py.data.versions import compare_versions
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.warp_sync import full_mask_names, is_full_mask

VERSIONS = ("5.2", "6.0", "6.2", "6.3", "7.0", "7.1")


def test_table_rows_have_sources_and_do_not_overlap() -> None:
    rows = load_table()
    assert rows and all(r.source for r in rows)
    for version in VERSIONS:
        rows_for(version)  # raises when two rows for one name hold for one version
    assert rows_for("5.2")["__shfl_down_sync"].hip == "__shfl_down"
    assert rows_for("6.2")["__shfl_down_sync"].op == "drop-mask"
    assert rows_for("7.0")["__shfl_down_sync"].op == "widen-mask"
    assert rows_for("6.2")["__match_any_sync"].needs_enable("6.2")
    assert not rows_for("7.0")["__shfl_down_sync"].needs_enable("7.0")


@pytest.mark.parametrize(
    "text",
    [b"0xffffffff", b"0xFFFFFFFFu", b"~0", b"~0u", b"-1", b"(unsigned)-1", b"0xffffffffffffffffULL", b"FULL"],
)
def test_full_masks(text: bytes) -> None:
    assert is_full_mask(text, full_mask_names(b"#define FULL 0xffffffffU\n"))


@pytest.mark.parametrize("text", [b"mask", b"0xffff", b"0x0000ffff", b"1u << lane", b"~1", b"NOT_FULL"])
def test_not_full_masks(text: bytes) -> None:
    assert not is_full_mask(text, full_mask_names(b"#define NOT_FULL 0x7fffffff\nconst int mask = 3;\n"))


@pytest.mark.parametrize(
    ("version", "before", "after"),
    [
        ("5.2", b"v = __shfl_sync(0xffffffff, v, 0);", b"v = __shfl(v, 0);"),
        ("5.2", b"b = __ballot_sync(~0u, p);", b"b = __ballot(p);"),
        ("5.2", b"b = __ballot_sync(m, p);", b"b = (__ballot(p) & (m));"),
        ("5.2", b"n = __popc(__ballot_sync(-1, p));", b"n = __popcll(__ballot(p));"),
        ("5.2", b"a = __activemask();", b"a = __ballot(1);"),
        ("6.0", b"v = __shfl_xor_sync(0xffffffff, v, 1, 16);", b"v = __shfl_xor(v, 1, 16);"),
        ("6.3", b"v = __shfl_up_sync(0xffffffff, v, 1);", b"v = __shfl_up(v, 1);"),
        ("6.3", b"v = __shfl_sync(m, v, 0);", b"v = __shfl(v, 0);"),
        ("6.3", b"b = __ballot_sync(m, p);", b"b = (__ballot(p) & (m));"),
        ("6.3", b"a = __activemask();", b"a = __ballot(1);"),
        (
            "7.2",
            b"v = __shfl_up_sync(0xffffffff, v, 1);",
            b"v = __shfl_up_sync(0xffffffffffffffffULL, v, 1);",
        ),
        ("7.0", b"v = __shfl_sync(m, v, 0);", b"v = __shfl_sync(static_cast<unsigned long long>(m), v, 0);"),
        ("7.0", b"__syncwarp();", b"__syncwarp();"),
        (
            "7.0",
            b"r = __reduce_add_sync(0xffffffff, v);",
            b"r = __reduce_add_sync(0xffffffffffffffffULL, v);",
        ),
    ],
)
def test_pairs(version: str, before: bytes, after: bytes) -> None:
    wrap = b"#include <hip/hip_runtime.h>\n__device__ void f(int v, int p, unsigned m) {\n  %s\n}\n"
    text = translate(wrap % before, Options(hip_version=version)).text
    assert (wrap % after) in text.replace(
        b"#ifndef HIP_ENABLE_WARP_SYNC_BUILTINS\n#define HIP_ENABLE_WARP_SYNC_BUILTINS\n#endif\n", b""
    )


def test_inside_macro_bodies() -> None:
    src = b"#define WARP_SUM(v) \\\n  for (int o = 16; o; o /= 2) v += __shfl_down_sync(0xffffffff, v, o)\n"
    out = translate(src, Options(hip_version="5.2")).text
    assert b"v += __shfl_down(v, o)\n" in out


def test_no_target_misses_unknown_names() -> None:
    """A target version between table rows still gets one row per name (the ranges cover every version)."""
    names = {r.cuda for r in load_table()}
    for version in VERSIONS:
        assert set(rows_for(version)) == names


_CALL = re.compile(rb"\b(__\w+_sync|__syncwarp|__activemask)\s*\(([^,()]*(?:\([^()]*\))?[^,()]*)")


def _newer_cases() -> list:
    return [c for c in cases() if c.id.startswith("warp_sync/") and not c.id.startswith("warp_sync/hip52/")]


@pytest.mark.parametrize("case", _newer_cases(), ids=lambda c: c.id)
def test_newer_outputs_match_the_table(case) -> None:
    target = case.options.hip_version
    rows = rows_for(target)
    text = Path(case.expected).read_bytes()
    missing_reported = {
        d.start for d in translate(case.input.read_bytes(), case.options).diagnostics if d.rule == "HIP117"
    }
    uses_opt_in = False
    for m in _CALL.finditer(text):
        name = m.group(1).decode()
        row = rows[name]
        if row.op == "missing":
            assert missing_reported, f"{name} does not exist in HIP {target} but nothing says so"
            continue
        assert row.op == "widen-mask", f"{name} left in a HIP {target} output"
        uses_opt_in |= row.needs_enable(target)
        mask = m.group(2).strip()
        if row.mask and mask:
            assert mask.startswith(
                (b"0xffffffffffffffffULL", b"static_cast<unsigned long long>", b"__activemask()")
            )
    if uses_opt_in:
        assert text.index(b"#define HIP_ENABLE_WARP_SYNC_BUILTINS") < text.index(b"#include")
    if compare_versions(target, "7.0") >= 0:
        assert b"HIP_ENABLE_WARP_SYNC_BUILTINS" not in text


def test_fixture_folders_cover_each_version() -> None:
    folders = {p.name for p in (FIXTURES / "warp_sync").iterdir() if p.is_dir()}
    assert {"hip52", "hip62", "hip70"} <= folders


@pytest.mark.hipcc
@pytest.mark.rocm
def test_project_header_after_a_hip_header_compiles(tmp_path: Path) -> None:
    """A TU that includes the runtime (through common.h) before the project header that shuffles: the
    opt-in macro would come too late there, so a full mask takes the mask-free form on ROCm 6.x."""
    from click.testing import CliRunner
    from toolchains import by_version, require, syntax_check

    from hipify_py.cli.main import main

    hipcc = require(by_version("6.4"))
    (tmp_path / "common.h").write_text("#pragma once\n#include <cuda_runtime.h>\n")
    (tmp_path / "reduce.cuh").write_text(
        "#pragma once\n#define FULL_MASK 0xffffffff\n"
        "__device__ float warp_sum(float v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);\n"
        "  return v + __any_sync(FULL_MASK, v > 0) + __ballot_sync(FULL_MASK, v < 0);\n}\n"
    )
    (tmp_path / "main.cu").write_text(
        '#include "common.h"\n#include "reduce.cuh"\n'
        "__global__ void k(float* p) { p[threadIdx.x] = warp_sum(p[threadIdx.x]); }\n"
    )
    done = CliRunner().invoke(main, ["convert", str(tmp_path), "--in-place", "--hip-version", "6.4", "-q"])
    assert done.exit_code == 0, done.output
    assert b"HIP_ENABLE_WARP_SYNC_BUILTINS" not in (tmp_path / "reduce.cuh").read_bytes()
    proc = syntax_check(hipcc, tmp_path / "main.cu")
    assert proc.returncode == 0, proc.stderr[-3000:]
