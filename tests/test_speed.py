"""Work proportional to the CUDA in a file: what is (not) done, counted, never timed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import hipify_py.analysis.context
from hipify_py.data.tables import identifiers_of
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

REPO = Path(__file__).resolve().parent.parent

HOST_ONLY = b"""// a host-only helper: nothing CUDA in it
#include <stdio.h>
#include <vector>
#define WIDTH 32
struct Grid { int w, h; };
static int area(const Grid& g) { return g.w * g.h; }
int main() { std::vector<int> v(WIDTH); printf("%d\\n", area({2, 3})); return 0; }
"""

CUDA = b"""#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 0; }
int main() { float* p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); return 0; }
"""


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    real = hipify_py.analysis.context.parse

    def counting(source: bytes):  # type: ignore[no-untyped-def]
        seen.append(source)
        return real(source)

    monkeypatch.setattr(hipify_py.analysis.context, "parse", counting)
    return seen


def test_file_without_cuda_is_not_parsed(parses: list[bytes]) -> None:
    result = translate(HOST_ONLY, Options(hip_version="5.2"))
    assert result.text == HOST_ONLY and result.diagnostics == []
    assert parses == []


def test_cuda_file_is_parsed_once(parses: list[bytes]) -> None:
    result = translate(CUDA, Options(hip_version="5.2"))
    assert b"hipMalloc" in result.text and b"hipLaunchKernelGGL" in result.text
    assert parses == [CUDA]


@pytest.mark.parametrize(
    "source",
    [
        b'2cudaFoo a$cudaBar cudaBaz_ x.cudaQux /*cudaInComment*/ "cudaInString"',
        "caf\u00e9 cudaMalloc\u00e9 _x __global__".encode(),
        b"\xff\xfe cudaFree(\xc3\x28) __syncthreads",
        b"",
    ],
)
def test_identifier_set_holds_every_whole_name(source: bytes) -> None:
    """Rules test `name in ctx.identifiers` before scanning: it must hold for every `\\bname\\b` match."""
    found = identifiers_of(source)
    for m in re.finditer(rb"\b[A-Za-z_]\w*\b", source):
        assert m.group() in found


BLOCK = b"""__global__ void scale_%d(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // cudaMalloc in a comment stays
    if (i < n) x[i] *= 2.0f;
}
void run_%d(float* host, int n) {
    float* dev;
    cudaMalloc(&dev, n * sizeof(float));
    cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice);
    scale_%d<<<(n + 255) / 256, 256>>>(dev, n);
    cudaDeviceSynchronize();
    cudaFree(dev);
}
""" + b"".join(
    b"static double host_helper_%%d_%d(const double* v, int n) {  // plain C++: costs a scan, no tree work\n"
    b"    double s = 0; for (int k = 0; k < n; ++k) { s += v[k] * v[k] - (k %%%% 7) / 3.0; }\n"
    b"    return s > 1e9 ? s / 2 : s;\n}\n" % j
    for j in range(12)
)


@pytest.mark.slow
def test_ten_megabyte_file_completes_with_work_per_token() -> None:
    """Nothing quadratic in the file size: a 10 MB file converts, with exactly the per-block work times the
    number of blocks (not timed; a quadratic step would make this test run for hours, not seconds)."""
    one = translate(BLOCK % ((0,) * BLOCK.count(b"%d")), Options(hip_version="5.2"))
    copies = 10_000_000 // len(BLOCK) + 1
    source = b"".join(BLOCK % ((i,) * BLOCK.count(b"%d")) for i in range(copies))
    assert len(source) >= 10_000_000
    result = translate(source, Options(hip_version="5.2"))
    for key, count in one.counts.items():
        assert result.counts[key] == count * copies, key
    assert result.text.count(b"hipLaunchKernelGGL(scale_") == copies
    assert result.text.count(b"// cudaMalloc in a comment stays") == copies
    assert len(result.diagnostics) == len(one.diagnostics) * copies


def test_pool_preload_covers_every_rule_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table a rule loads that preload_rule_tables does not would be loaded again in every worker."""
    import sys

    from hipify_py.data import derived
    from hipify_py.pipeline.translate import default_tables, preload_rule_tables

    for module in [m for name, m in sys.modules.items() if name.startswith("hipify_py")]:
        for value in list(vars(module).values()):
            if (
                callable(getattr(value, "cache_clear", None))
                and getattr(value, "__module__", "") == module.__name__
            ):
                value.cache_clear()
    options = Options(hip_version="5.2")
    default_tables()
    preload_rule_tables(options)
    loaded: list[str] = []
    real = derived.load
    monkeypatch.setattr(derived, "load", lambda name, *a, **k: loaded.append(name) or real(name, *a, **k))
    views = _target_views()  # the tables' per-target views a rule builds on first use (renames_for...)
    built = {name: view.cache_info().misses for name, view in views.items()}
    rich = sorted((REPO / "examples").rglob("*.cu")) + sorted((REPO / "tests/fixtures").rglob("*.cu"))[:200]
    for path in rich:
        translate(path.read_bytes(), Options(hip_version="5.2", filename=path.name))
    assert loaded == []
    assert len(views) >= 5 and {name: view.cache_info().misses for name, view in views.items()} == built


def _target_views() -> dict[str, Any]:
    """Every cached function of the package whose one parameter is the target HIP version."""
    import inspect
    import sys

    found = {}
    for name, module in list(sys.modules.items()):
        for attr, value in vars(module).items() if name.startswith("hipify_py") else ():
            wrapped = getattr(value, "__wrapped__", None)
            if (
                callable(getattr(value, "cache_info", None))
                and wrapped is not None
                and list(inspect.signature(wrapped).parameters) == ["target"]
            ):
                found[f"{value.__module__}.{attr}"] = value
    return found


# why only the new ones: what the interpreter's site hooks (.pth files) import is not the run's doing
_LOADED = """
import sys
before = set(sys.modules)
{imports}
print(" ".join(sorted(set(sys.modules) - before)))
"""

# the translator process (workers/early.py): the entry point, the modules shared with the command line,
# the pipeline and tables it loads, and what it imports to run the workers
_TRANSLATOR = """
import hipify_py.cli.entry
from hipify_py.workers import early
early.load_shared()
early._load()
import hipify_py.run.discover, hipify_py.workers.forked, hipify_py.workers.prefork, hipify_py.util.fileio
"""


@pytest.mark.parametrize(
    ("imports", "absent"),
    [
        (_TRANSLATOR, {"dataclasses", "inspect", "ast", "shutil", "click"}),
        (_TRANSLATOR + "import hipify_py.cli.main", {"dataclasses", "shutil"}),  # click imports inspect
    ],
    ids=["translator process", "command line"],
)
def test_start_up_imports_no_heavy_module(imports: str, absent: set[str]) -> None:
    """Modules a translation run's start-up does without (docs/performance.md): dataclasses and its
    inspect, ast and shutil cost ~12 ms before the first file, most of it before the translator
    process was forked."""
    import subprocess
    import sys

    loaded = subprocess.run(
        [sys.executable, "-c", _LOADED.format(imports=imports)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "hipify_py.pipeline.translate" in loaded
    assert absent.isdisjoint(loaded), absent & set(loaded)
