"""--verify with the real hipcc: a small tree with a TU that compiles, one failing in its own code (and in
a header it includes), one failing inside a HIP header because of a user macro, one that needs its
compile-database flags. Few compiles on purpose (each takes seconds): the cache serves the re-runs."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hipify_py.cli.main import main

HIPCC = shutil.which("hipcc")
pytestmark = [
    pytest.mark.hipcc,
    pytest.mark.skipif(
        HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)"
    ),
]

UTIL = """#pragma once
#include <cuda_runtime.h>
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) return 1; } while (0)
#ifdef WITH_RDMA_FLUSH
inline cudaError_t flush_rdma() { return cudaDeviceFlushGPUDirectRDMAWrites(0, 0); }
#endif
"""
GOOD = """#include <cstdio>
#include "inc/util.cuh"

__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }

int main() {
  float* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  scale<<<1, 64>>>(d,
                   2.0f);
  CHECK(cudaDeviceSynchronize());
  printf("done\\n");
  return 0;
}
"""
BAD = """#include <cstdio>
#define WITH_RDMA_FLUSH
#include "inc/util.cuh"

__global__ void fill(float* p, float v) { p[threadIdx.x] = v; }

int main() {
  float* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  fill<<<1, 64>>>(d,
                  not_declared_anywhere);
  return 0;
}
"""
# CUDA's cuda_fp16.h does not use the name T, HIP's hip_fp16.h does (a template parameter): the macro is
# harmless with nvcc and breaks HIP's header (before the runtime header the translator moves that above it)
WSIZE = """#include <cuda_runtime.h>
#define T float
#include <cuda_fp16.h>
__global__ void lanes(T* out) { out[threadIdx.x] = T(threadIdx.x % warpSize); }
int main() { return 0; }
"""
CONFIG = "#pragma once\n#define CONFIG_SEEN 1\n"
DBONLY = """#include "config.h"
#if !defined(FEATURE_LEVEL) || FEATURE_LEVEL < 2 || !CONFIG_SEEN
#error "FEATURE_LEVEL must come from the build"
#endif
__global__ void k(int* p) { p[0] = FEATURE_LEVEL; }
int main() { int* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _cache_env(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(cache))


def test_convert_verify_maps_errors_to_cuda_lines_and_caches(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path / "tree",
        {
            "inc/util.cuh": UTIL,
            "good.cu": GOOD,
            "bad.cu": BAD,
            "wsize.cu": WSIZE,
            "cfg/config.h": CONFIG,
            "dbonly.cu": DBONLY,
        },
    )
    plain = "nvcc -O2 -arch=sm_80 -c {0} -o {0}.o"
    special = (
        "nvcc -arch=sm_80 -Xcompiler -Wall -Icfg -DFEATURE_LEVEL=2 --expt-relaxed-constexpr -c {0} -o {0}.o"
    )
    database = [
        {
            "directory": str(tree),
            "file": name,
            "command": (special if name == "dbonly.cu" else plain).format(name),
        }
        for name in ("good.cu", "bad.cu", "wsize.cu", "dbonly.cu")
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(database))
    out, report = tmp_path / "out", tmp_path / "report"
    args = ["convert", tree, "-o", out, "--verify", "-p", tmp_path, "-j", "2", "--show", "error"]
    args += ["--report", f"{report}.json", "--report", f"{report}.sarif", "--report", f"{report}.md"]
    first = _run(*args)
    assert first.exit_code == 0, first.output  # not --check: the conversion itself succeeded
    assert "translation units compiled: 2/4" in first.output, first.output

    data = json.loads(Path(f"{report}.json").read_text())
    verify = data["verify"]
    assert (verify["units"], verify["compiled"], verify["cache_hits"]) == (4, 2, 0)
    assert sorted(Path(f["path"]).name for f in verify["failures"]) == ["bad.cu", "wsize.cu"]
    found: dict[tuple, list[dict]] = {}
    for f in data["files"]:
        for d in f["diagnostics"]:
            if d["rule"].startswith("HIP5"):
                found.setdefault((Path(f["path"]).name, d["line"], d["col"], d["rule"]), []).append(d)
    # own code, on the CUDA line of a launch split over two lines, below the inserted runtime include
    (own,) = found[("bad.cu", 11, 19, "HIP501")]
    assert (
        "not_declared_anywhere" in own["message"] and own["source_line"].strip() == "not_declared_anywhere);"
    )
    # in an included header, at the column of the CUDA name (cudaError_t -> hipError_t moved it), predicted
    (header,) = found[("util.cuh", 5, 42, "HIP501")]
    assert header["predicted_by"] == ["HIP101"] and "cudaDeviceFlushGPUDirectRDMAWrites" in header["message"]
    # inside HIP's runtime header, attributed to the user's macro that broke it
    macro = found[("wsize.cu", 2, 11, "HIP502")]
    assert all("/include/hip/" in d["message"] for d in macro)
    assert macro[0]["source_line"] == "#define T float"
    assert not any(
        name in ("good.cu", "dbonly.cu") for name, *_ in found
    )  # dbonly needs the database's flags

    sarif = json.loads(Path(f"{report}.sarif").read_text())
    assert {"HIP501", "HIP502"} <= {r["ruleId"] for r in sarif["runs"][0]["results"]}
    markdown = Path(f"{report}.md").read_text()
    assert "Translation units compiled: **2/4**" in markdown

    again = _run(*args)  # nothing changed: every compile result comes from the cache
    assert "translation units compiled: 2/4 (4 from cache)" in again.output, again.output
    rerun = json.loads(Path(f"{report}.json").read_text())
    assert [f["diagnostics"] for f in rerun["files"]] == [f["diagnostics"] for f in data["files"]]


def test_diff_verify_writes_nothing_and_check_verify_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path / "tree", {"inc/util.cuh": UTIL, "good.cu": GOOD, "bad.cu": BAD})
    before = _snapshot(tree)
    temp = tmp_path / "tmp"  # a private temp dir: other processes' files in /tmp are none of our business
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    diff = _run("convert", tree, "--diff", "--verify", "-j", "2")
    assert diff.exit_code == 0, diff.output
    assert "+#include <hip/hip_runtime.h>" in diff.output  # the diff is still printed
    assert "translation units compiled: 1/2" in diff.output
    assert "bad.cu:11:19: error: HIP501" in diff.output
    assert _snapshot(tree) == before
    assert list(temp.iterdir()) == []  # the mirror and the dependency files are gone

    check = _run("convert", tree, "--check", "--verify", "-q")
    assert check.exit_code == 1
    assert "translation units compiled: 1/2 (2 from cache)" in check.output  # same mirror layout: cache hits
    assert _snapshot(tree) == before


def test_verify_command_on_a_hip_tree(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path / "hip",
        {
            "main.hip": '#include <hip/hip_runtime.h>\n#include "k.h"\nint main() { return 0; }\n',
            "k.h": "__global__ void k(int* p) { p[threadIdx.x] = 0; }\n",
        },
    )
    result = _run("verify", tree, "--report", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert "translation units compiled: 1/1" in result.output
    assert json.loads((tmp_path / "r.json").read_text())["verify"]["compiled"] == 1


def test_a_compile_leaves_nothing_in_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debian's hipcc leaves two empty folders in $TMPDIR per compile; each compile gets its own."""
    from hipify_py.verify.compiler import CompileJob, compile_tu, find_hipcc

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    src = tmp_path / "k.hip"
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n")
    bad = tmp_path / "bad.hip"
    bad.write_text("int main() { return undefined_thing(); }\n")
    compiler = find_hipcc(None)
    ok = compile_tu(compiler, CompileJob(str(src), str(tmp_path), ("-x", "hip"), codegen=True))
    failed = compile_tu(compiler, CompileJob(str(bad), str(tmp_path), ("-x", "hip")))
    assert ok.returncode == 0, ok.stderr
    assert failed.returncode != 0 and "undefined_thing" in failed.stderr
    assert list(temp.iterdir()) == []
