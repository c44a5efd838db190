"""Build the tables a run loads into the directory a wheel ships them in (run by setup.py's build_py).

    python -m hipify_py.run.prebuild OUT_DIR

A fresh install otherwise parses ~1.3 MB of YAML and builds every rule's table on its first run (every
CI container, every pre-commit environment). Each table is built as a run builds it (`derived.load`,
into a temporary cache directory) and written under `derived.shipped_name`, for the targets a run
most often has: the tables' latest HIP (a machine without HIP) and each HIP whose headers were probed
(`hip-headers-<version>.yaml`). Also shipped: the regex engine programs of the package's patterns
(`lazyre`; used only by the Python that built the wheel). A target not prebuilt, or a user's
`--extra-mappings`, is built and cached as before.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

# A CUDA file touching the common rewrites, so the run-time patterns they compile are shipped too.
SAMPLE = b"""#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cstdio>
#define CHECK(x) \\
  do { cudaError_t e = (x); if (e != cudaSuccess) printf("%s\\n", cudaGetErrorString(e)); } while (0)
__constant__ float scale_by[4];
template <typename T> __global__ void __launch_bounds__(256) scale(T* x, int n) {
  __shared__ float tile[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __shfl_down_sync(0xffffffff, x[i], 16) * scale_by[0] + tile[threadIdx.x % 32];
}
int main() {
  float* d;
  cudaStream_t s;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMalloc(&d, 1024 * sizeof(float)));
  scale<float><<<4, 256, 0, s>>>(d, 1024);
  CHECK(cudaMemcpyAsync(d, d, 4, cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamSynchronize(s));
  cublasHandle_t h;
  cublasCreate(&h);
  cudaFree(d);
  return 0;
}
"""


def probed_versions(tables: Path) -> list[str]:
    """The HIP versions with probe files (`hip-headers-5.2.yaml` -> "5.2")."""
    from hipify_py.data.schema import HIP_HEADERS_GLOB

    prefix, suffix = HIP_HEADERS_GLOB.split("*")
    return sorted(p.name[len(prefix) : -len(suffix)] for p in tables.glob(HIP_HEADERS_GLOB))


def build_tables() -> list[str]:
    """Build, through `derived.load`, every table a run loads for each common target; the targets."""
    from hipify_py.data import derived
    from hipify_py.data.installed import shipped_library_headers
    from hipify_py.data.mappings import probed_dir, shipped_latest_version
    from hipify_py.engine.options import Options
    from hipify_py.pipeline.translate import default_tables, preload_rule_tables, translate

    # why these two by name: cli.py loads them so (its run_target and _missing_headers)
    latest = derived.load("latest-hip-version", shipped_latest_version)
    derived.load("library-headers", shipped_library_headers)
    targets = sorted({latest, *probed_versions(probed_dir())})
    tables = default_tables()
    for target in targets:
        options = Options(hip_version=target)
        preload_rule_tables(options)
        translate(SAMPLE, options, tables)
    return targets


def compile_module_patterns() -> None:
    """Compile every module-level `lazy()` pattern of the package (their programs go to the store)."""
    import importlib
    import pkgutil

    import hipify_py
    from hipify_py.util.lazyre import LazyPattern

    for info in pkgutil.walk_packages(hipify_py.__path__, "hipify_py."):
        if info.name.endswith(("__main__", ".prebuild")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, LazyPattern):
                value.compiled()


def export(cache: Path, out: Path) -> list[str]:
    """Copy what the run left in `cache` to `out` under the names an installed package reads."""
    import pickle

    from hipify_py.data import derived
    from hipify_py.util.lazyre import save_programs
    from hipify_py.util.locations import PACKAGE_DIR, STAMP_FILE, source_stamp

    save_programs()
    written = []
    for path in sorted((cache / "derived").glob("*.pickle")):
        (_, name, args), value = pickle.loads(path.read_bytes())
        target = out / derived.shipped_name(name, args)
        target.write_bytes(derived.dump(name, args, value))
        written.append(target.name)
    for path in sorted(cache.glob("regex-*.marshal")):
        shutil.copyfile(path, out / path.name)
        written.append(path.name)
    (out / STAMP_FILE).write_text(source_stamp(PACKAGE_DIR), encoding="utf-8")
    written.append(STAMP_FILE)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    shutil.rmtree(out, ignore_errors=True)  # why: a reused build tree must not ship an older build's tables
    with tempfile.TemporaryDirectory(prefix="hipify-py-prebuild-") as cache:
        os.environ["HIPIFY_PY_CACHE_DIR"] = cache  # why before any load: every module reads it on use
        targets = build_tables()
        compile_module_patterns()
        staged = Path(cache) / "out"
        staged.mkdir()
        written = export(Path(cache), staged)
        shutil.copytree(staged, out)
    print(f"hipify-py prebuild: {len(written)} files for HIP {', '.join(targets)} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
