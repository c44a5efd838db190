"""The start-up tricks (util/startup.py): HIPIFY_PY_PLAIN turns them off, all or by name, and the
command's outputs, reports and exit codes are the same with them off. This is the suite's run of the
real command with the tricks off (cheap: a few processes), beside test_cli.py's entry-point tests
that run both ways."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO

from hipify_py.util import startup

CUDA = b"""#include <cuda_runtime.h>
#include <cstdio>
__global__ void fill(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }
int main() {
  float* d;
  cudaMalloc(&d, 64 * sizeof(float));
  fill<<<2, 32>>>(d, 64);
  printf("%s\\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(d);
  return 0;
}
"""


@pytest.mark.parametrize(
    ("plain", "off"),
    [
        ("", set()),
        ("0", set()),
        ("1", set(startup.TRICKS)),
        ("all", set(startup.TRICKS)),
        ("early", {"early"}),
        ("gc,regex", {"gc", "regex"}),
    ],
)
def test_the_variable_turns_tricks_off(plain: str, off: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(startup.PLAIN_ENV, plain)
    assert {trick for trick in startup.TRICKS if not startup.on(trick)} == off


def _command(work: Path, plain: str | None, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The executable's entry point in a new interpreter, in `work` with its own cache directory."""
    env = dict(os.environ, PYTHONPATH=str(REPO), HIPIFY_PY_CACHE_DIR=str(work / "cache"))
    env.pop(startup.PLAIN_ENV, None)
    if plain is not None:
        env[startup.PLAIN_ENV] = plain
    argv = f"sys.argv = ['hipify-py', *{list(args)!r}]"
    code = "\n".join(("import sys", argv, "from hipify_py.cli.entry import main", "main()"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=work, check=False)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_outputs_are_the_same_with_the_tricks_off(tmp_path: Path) -> None:
    """-o with two forked workers, over examples/ (translated in the run's own process: few bytes),
    --check --stats and --diff: every output byte, the report, stdout, stderr and the exit codes, with
    every trick on and with all of them off."""
    seen = {}
    for plain in (None, "1"):
        work = tmp_path / f"plain-{plain}"
        (work / "src").mkdir(parents=True)
        padding = b"// padding\n" * 1100  # why: 12 files of ~12 KB (over prefork.INLINE_BYTES) get workers
        for i in range(12):
            (work / "src" / f"k{i}.cu").write_bytes(CUDA.replace(b"fill", b"fill%d" % i) + padding)
        ex = str(EXAMPLES)
        runs = [
            _command(work, plain, "convert", ex, "-o", "out/ex", "-j", "2", "-q"),
            _command(work, plain, "convert", "src", "-o", "out/src", "-j", "2", "--report", "report.json"),
            _command(work, plain, "convert", "--check", "--stats", "src", ex),
            _command(work, plain, "convert", "--diff", "src"),
        ]
        for run in runs:
            assert run.returncode in (0, 1), run.stderr
        report = (work / "report.json").read_text(encoding="utf-8")
        seen[plain] = ([(r.returncode, r.stdout, r.stderr) for r in runs], _tree(work / "out"), report)
    assert seen[None] == seen["1"]
    assert len(seen[None][1]) > 12


def test_with_the_tricks_off_the_exit_is_the_interpreters(tmp_path: Path) -> None:
    """HIPIFY_PY_PLAIN=1: the command ends through SystemExit, so the interpreter's own teardown runs
    (a module-level object is freed), where with the tricks on it is skipped (`exit`; and `gc` froze
    the object, which the shutdown collections then skip)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\nclass T:\n    def __del__(self):\n        os.write(2, b'torn-down')\nkeep = T()\n"
    )
    runs = {}
    for plain in (None, "1"):
        env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}{tmp_path}", HIPIFY_PY_CACHE_DIR="")
        env.pop(startup.PLAIN_ENV, None)
        if plain is not None:
            env[startup.PLAIN_ENV] = plain
        code = "import sys, probe\nsys.argv = ['hipify-py', '--version']\n"
        code += "from hipify_py.cli.entry import main\nmain()"
        runs[plain] = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert runs[None].returncode == runs["1"].returncode == 0
    assert runs[None].stdout == runs["1"].stdout
    assert "torn-down" in runs["1"].stderr and "torn-down" not in runs[None].stderr


def test_with_the_tricks_off_nothing_is_paused_stored_or_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from hipify_py.util import lazyre

    monkeypatch.setenv(startup.PLAIN_ENV, "1")
    startup.pause_collection()
    assert gc.isenabled()
    parser = object()
    assert startup.short_options_first(parser, False) is parser and not hasattr(parser, "_process_opts")
    key = (rb"plain-(\d+)-only-here", 0)
    lazyre._compile(*key)
    assert all(key not in store.known and key not in store.new for store in lazyre._stores)  # re's own
