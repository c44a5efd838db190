"""Hand-kept header tables (guards.yaml, include-order.yaml): loading, version selection, and the
check of every row against the installed HIP with hipcc (scripts/check_hip_macros.py)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hipify_py.data.mappings import load_mappings
from hipify_py.data.schema import Guard
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import default_tables, translate

REPO = Path(__file__).resolve().parent.parent
SYSTEM = Path("/usr/include")
HAVE_HEADERS = (SYSTEM / "hip" / "hip_version.h").is_file()
HIPCC = shutil.which("hipcc")
need_hipcc = pytest.mark.skipif(
    (HIPCC is None or not HAVE_HEADERS) and not os.environ.get("CI"),
    reason="hipcc and HIP headers not installed (CI installs them)",
)


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_hip_macros", REPO / "scripts" / "check_hip_macros.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # why: dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_row_says_why() -> None:
    m = load_mappings()
    assert len(m.guards) >= 15 and len(m.include_needs) >= 5
    for rows in m.guards.values():
        for row in rows:
            assert row.reason and (row.hip is None or (row.hip_header and row.checked)), row
    assert all(need.reason and need.checked for need in m.include_needs.values())


def test_a_row_without_reason_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("guards:\n- {cuda: MY_H_, hip: HIP_MY_H}\n")
    with pytest.raises(ValueError, match="reason"):
        load_mappings([bad])


@pytest.mark.parametrize(
    ("since", "until", "version", "holds"),
    [
        ("", "", None, True),
        ("", "", "5.2", True),
        ("6.0", "", "5.2", False),
        ("6.0", "", "6.1", True),
        ("", "6.0", "5.7", True),
        ("", "6.0", "6.0", False),
        ("", "6.0", None, False),  # no target: the latest HIP
    ],
)
def test_guard_version_range(since: str, until: str, version: str | None, holds: bool) -> None:
    assert Guard("X", "Y", since=since, until=until).holds_for(version) is holds


def test_the_row_of_the_target_version_is_written(tmp_path: Path) -> None:
    table = tmp_path / "guards.yaml"
    table.write_text(
        "guards:\n"
        "- {cuda: LIBX_H_, hip: _HIPX_H_, hip_header: hipx.h, until: '6.0', reason: old guard}\n"
        "- {cuda: LIBX_H_, hip: HIPX_H, hip_header: hipx.h, since: '6.0', reason: renamed guard}\n"
    )
    tables = default_tables((table,))
    source = b"#ifdef LIBX_H_\nint x;\n#endif\n"
    old = translate(source, Options(hip_version="5.2"), tables)
    new = translate(source, Options(hip_version="6.2"), tables)
    assert old.text == b"#ifdef _HIPX_H_\nint x;\n#endif\n"
    assert new.text == b"#ifdef HIPX_H\nint x;\n#endif\n"
    assert not old.diagnostics and not new.diagnostics


def test_roc_macro_with_roc_option() -> None:
    source = b"#include <curand.h>\n#ifdef CURAND_H_\nint x;\n#endif\n"
    assert b"#ifdef ROCRAND_H_" in translate(source, Options(roc=True)).text
    assert b"#ifdef HIPRAND_H_" in translate(source).text


def test_unmapped_guard_makes_a_dead_branch_for_the_detectors() -> None:
    """NVJPEGAPI is never defined under hipcc: API findings inside `#ifdef NVJPEGAPI` are dropped
    (the guard's HIP307 says what ROCm drops), as for `#if __CUDA_ARCH__ >= 800`."""
    source = (
        b"#include <cuda_runtime.h>\n#ifdef NVJPEGAPI\n"
        b"void f() { cudaGraphExecKernelNodeSetParams(0, 0, 0); }\n#endif\n"
    )
    rules = [d.rule for d in translate(source, Options(hip_version="5.2")).diagnostics]
    assert rules == ["HIP307"]
    owned = b"#define NVJPEGAPI\n" + source
    assert "HIP307" not in [d.rule for d in translate(owned, Options(hip_version="5.2")).diagnostics]


@pytest.mark.hipcc
@need_hipcc
def test_every_guard_macro_is_defined_by_its_installed_hip_header() -> None:
    script = load_script()
    version = script.hip_version(SYSTEM)
    findings = script.check_guards(load_mappings(), SYSTEM, HIPCC or "hipcc", version)
    assert [f for f in findings if f.status == "ok"], "nothing was checked"
    assert not [f for f in findings if f.status in script.PROBLEMS]


@pytest.mark.hipcc
@need_hipcc
def test_every_include_order_row_holds_for_the_installed_hip() -> None:
    script = load_script()
    findings = script.check_include_order(load_mappings(), SYSTEM, HIPCC or "hipcc")
    assert [f for f in findings if f.status == "ok"], "nothing was checked"
    assert not [f for f in findings if f.status in script.PROBLEMS]
