"""hipify_py.data.installed: which ROCm library headers an installed HIP lacks (HIP128's fact)."""

from __future__ import annotations

from pathlib import Path

from hipify_py.data.installed import include_roots, is_missing, library_headers, missing_headers
from hipify_py.data.mappings import load_mappings
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate


def _root(tmp_path: Path, *headers: str) -> Path:
    root = tmp_path / "include"
    for h in ("hip/hip_runtime.h", *headers):
        (root / h).parent.mkdir(parents=True, exist_ok=True)
        (root / h).write_text("")
    return root


def test_library_headers_come_from_the_tables() -> None:
    names = library_headers(load_mappings())
    assert {"hipcub/hipcub.hpp", "hipblas/hipblas.h", "rocblas/rocblas.h", "hipblas.h", "thrust/"} <= names
    assert not any(n.startswith("hip/") for n in names)  # the runtime's own headers are HIP103's business
    assert "atomic" not in names  # <cuda/atomic> -> <atomic>: C++'s own header, never a HIP package's


def test_a_standard_header_is_never_missing(tmp_path: Path) -> None:
    """A project's own `#include <atomic>` is not a ROCm library header (a false HIP128 error before)."""
    missing = missing_headers(load_mappings(), [_root(tmp_path)])
    assert "hipcub/hipcub.hpp" in missing and "atomic" not in missing


def test_missing_headers_against_an_install(tmp_path: Path) -> None:
    root = _root(tmp_path, "hiprand/hiprand.h", "hipsparse/hipsparse.h", "thrust/sort.h")
    missing = missing_headers(load_mappings(), [root])
    assert {"hipcub/hipcub.hpp", "hipblas/hipblas.h", "hipfft/hipfft.h"} <= missing
    assert not {"hiprand/hiprand.h", "hipsparse/hipsparse.h", "thrust/"} & missing
    assert missing_headers(load_mappings(), []) == frozenset()  # no HIP installed: nothing to say


def test_is_missing_by_name_and_prefix() -> None:
    missing = frozenset({"hipcub/hipcub.hpp", "thrust/", "hipblas.h"})
    assert is_missing("hipcub/hipcub.hpp", missing) and is_missing("thrust/sort.h", missing)
    assert is_missing("hipblas.h", missing)
    assert not is_missing("hipcub/util.hpp", missing) and not is_missing("mythrust.h", missing)
    assert not is_missing("thrust/sort.h", frozenset())


def test_include_roots_need_a_hip_runtime_header(tmp_path: Path) -> None:
    rocm = tmp_path / "rocm"
    (rocm / "include" / "hip").mkdir(parents=True)
    env = {"PATH": str(tmp_path / "nothing"), "ROCM_PATH": str(rocm)}
    assert rocm / "include" not in include_roots(env)
    (rocm / "include" / "hip" / "hip_runtime.h").write_text("")
    assert rocm / "include" in include_roots(env)


def _fake_rocm(tmp_path: Path, version: tuple[int, int]) -> Path:
    """A ROCm prefix with the runtime headers of `version` and no library (no hipCUB)."""
    rocm = tmp_path / "rocm"
    (rocm / "include" / "hip").mkdir(parents=True)
    (rocm / "include" / "hip" / "hip_runtime.h").write_text("")
    major, minor = version
    (rocm / "include" / "hip" / "hip_version.h").write_text(
        f"#define HIP_VERSION_MAJOR {major}\n#define HIP_VERSION_MINOR {minor}\n#define HIP_VERSION_PATCH 0\n"
    )
    return rocm


def test_hip128_only_for_the_installed_target(tmp_path: Path) -> None:
    """HIP128 claims absence only for the HIP that is installed; for another target it cannot know."""
    from click.testing import CliRunner

    from hipify_py.cli.main import main

    rocm = _fake_rocm(tmp_path, (7, 2))
    src = tmp_path / "a.cu"
    src.write_text("#include <cub/cub.cuh>\n__global__ void k() {}\n")
    env = {
        "PATH": str(tmp_path / "no-hipcc"),
        "ROCM_PATH": str(rocm),
        "HIPIFY_PY_CACHE_DIR": str(tmp_path / "c"),
    }
    runner = CliRunner()
    same = runner.invoke(
        main, ["convert", str(src), "--check", "--hip-version", "7.2", "--show", "info"], env=env
    )
    assert "error: HIP128" in same.output and "not checked" not in same.output
    other = runner.invoke(
        main, ["convert", str(src), "--check", "--hip-version", "6.4", "--show", "info"], env=env
    )
    assert "error: HIP128" not in other.output
    assert (
        "target HIP 6.4 is not the installed HIP 7.2" in other.output
        and "not checked (HIP128)" in other.output
    )


def test_hip128_names_the_modern_header_where_only_the_flat_one_is_missing() -> None:
    """ROCm 7 ships hipfft/hipfft.h but no flat hipfft.h: the finding says which to include."""
    source = b"#include <hipfft.h>\nint x;\n"
    rocm7 = Options(hip_version="7.2", missing_headers=frozenset({"hipfft.h"}))
    (finding,) = [d for d in translate(source, rocm7).diagnostics if d.rule == "HIP128"]
    assert "<hipfft/hipfft.h>" in finding.message and "<hipfft/hipfft.h>" in finding.hint
    bare = Options(hip_version="7.2", missing_headers=frozenset({"hipfft.h", "hipfft/hipfft.h"}))
    (finding,) = [d for d in translate(source, bare).diagnostics if d.rule == "HIP128"]
    assert "no `hipfft` package" in finding.message
