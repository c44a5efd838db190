"""--verify without the real compiler: line maps, clang output parsing, compile flags, TU selection,
a missing hipcc, and Ctrl-C during the compile (with a stand-in hipcc that sleeps)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, REPO

from hipify_py.cli.main import main
from hipify_py.engine.linemap import moves_of, offset_of, original_text, to_original
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.verify.clang_output import Location, parse
from hipify_py.verify.closure import Closures, includes_of, search_path
from hipify_py.verify.compiler import parse_depfile
from hipify_py.verify.flags import Entry, database_args, load_database
from hipify_py.verify.stage import VerifySettings, plan_units

CUDA = b"""// licence header
#include <cstdio>
#include "util.cuh"

__global__ void axpy(float a, const float* x, float* y) { y[threadIdx.x] += a * x[threadIdx.x]; }

int main() {
  float *x, *y;
  cudaMalloc(&x, 64 * sizeof(float));
  cudaMalloc(&y, 64 * sizeof(float));
  axpy<<<dim3(1), 64, 0, 0>>>(2.0f, x,
                               marker_one);
  cudaDeviceSynchronize();
  marker_two(cudaGetLastError());
  return 0;
}
"""


def _layers(source: bytes) -> tuple[bytes, tuple]:
    result = translate(source, Options(hip_version="6.2"))
    return result.text, (moves_of(source, result.edits),)


def test_offsets_map_back_through_launch_runtime_header_and_renames() -> None:
    text, layers = _layers(CUDA)
    assert b"#include <hip/hip_runtime.h>" in text and b"hipLaunchKernelGGL(" in text  # lines moved
    for marker in (b"marker_one", b"marker_two", b"return 0", b"2.0f, x"):
        assert to_original(layers, text.index(marker)) == CUDA.index(marker)
    # inside a renamed identifier: the same column of the CUDA name
    assert to_original(layers, text.index(b"hipGetLastError") + 3) == CUDA.index(b"cudaGetLastError") + 3
    # the inserted runtime include maps to where it was inserted (the first #include)
    assert to_original(layers, text.index(b"<hip/hip_runtime.h>")) == CUDA.index(b"#include <cstdio>")
    assert original_text(layers, text) == CUDA


@pytest.mark.parametrize(
    "case", sorted(FIXTURES.rglob("*.cu"))[:60], ids=lambda p: p.parent.name + "/" + p.name
)
def test_original_text_is_rebuilt_from_every_fixture(case: Path) -> None:
    source = case.read_bytes()
    text, layers = _layers(source)
    assert original_text(layers, text) == source


def test_offset_of_counts_bytes_and_clamps() -> None:
    text = b"ab\ncd\n"
    assert offset_of(text, 2, 2) == 4 and offset_of(text, 2, 99) == 5 and offset_of(text, 9, 1) == 6


STDERR = """\
In file included from main.hip:2:
In file included from /usr/include/hip/hip_runtime.h:62:
/usr/include/hip/hip_runtime_api.h:92:9: error: expected member name or ';' after declaration specifiers
    int warpSize;
    ~~~ ^
main.hip:1:18: note: expanded from macro 'warpSize'
#define warpSize 32
                 ^
/usr/include/hip/hip_runtime_api.h:99:3: error: unknown type name 'foo'
main.hip:7:3: warning: unused variable 'x' [-Wunused-variable]
other.h:3:5: note: a note of the warning
main.hip:9:5: error: use of undeclared identifier 'bar'
2 errors generated when compiling for host.
main.hip:9:5: error: use of undeclared identifier 'bar'
clang: error: unsupported option '--bogus'
1 error generated when compiling for gfx90a.
"""


def test_clang_output_errors_notes_include_stacks_and_duplicates() -> None:
    errors = parse(STDERR)
    assert [e.text for e in errors] == [
        "expected member name or ';' after declaration specifiers",
        "unknown type name 'foo'",
        "use of undeclared identifier 'bar'",  # once: the device pass repeats it
        "unsupported option '--bogus'",
    ]
    first, second, third, flag = errors
    assert (
        first.notes[0].where == Location("main.hip", 1, 18) and "expanded from macro" in first.notes[0].text
    )
    stack = (Location("main.hip", 2), Location("/usr/include/hip/hip_runtime.h", 62))
    assert first.included_from == stack and second.included_from == stack  # not reprinted by clang
    assert third.notes == [] and third.included_from == ()  # the warning's note is not the error's
    assert flag.where is None


def test_depfile_parse() -> None:
    text = "x.o: a.hip /usr/include/hip/hip_runtime.h \\\n  ../inc/my\\ file.h\n"
    assert parse_depfile(text, "/w/src") == (
        "/w/src/a.hip",
        "/usr/include/hip/hip_runtime.h",
        "/w/inc/my file.h",
    )


def test_database_args_keep_front_end_flags_and_translate_nvcc(tmp_path: Path) -> None:
    db = [
        {
            "directory": str(tmp_path / "build"),
            "command": "/opt/cuda/bin/nvcc -O3 -arch=sm_80 -Xcompiler -fopenmp,-Wall -I../inc -DUSE_X=1 "
            "--std c++14 -isystem /opt/lib/include --expt-relaxed-constexpr -c ../src/a.cu -o a.o -MF a.d",
            "file": "../src/a.cu",
        }
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    entries = load_database(tmp_path)
    entry = entries[str(tmp_path / "src" / "a.cu")]
    assert entry.directory == str(tmp_path / "build")
    args = database_args(entry, lambda p: p.replace(str(tmp_path), "/mirror"))
    assert args == ("-fopenmp", "-I/mirror/inc", "-DUSE_X=1", "-std=c++14", "-isystem", "/opt/lib/include")


def test_bad_compile_database_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "compile_commands.json").write_text("{not json")
    (tmp_path / "a.cu").write_text("int main() { return 0; }\n")
    result = CliRunner().invoke(
        main, ["convert", str(tmp_path / "a.cu"), "--diff", "--verify", "-p", str(tmp_path)]
    )
    assert result.exit_code == 2, result.output
    assert "not valid JSON" in result.output


def test_tus_are_sources_no_other_file_includes(tmp_path: Path) -> None:
    (tmp_path / "main.cu").write_text('#include "kernels.cu"\n#include "util.cuh"\nint main() {}\n')
    (tmp_path / "kernels.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "util.cuh").write_text("#pragma once\n")
    (tmp_path / "other.cpp").write_text("int f() { return 1; }\n")
    names = ("main.cu", "kernels.cu", "util.cuh", "other.cpp")
    run = [(str(tmp_path / n), str(tmp_path), "source") for n in names]
    settings = VerifySettings(compiler=None)  # type: ignore[arg-type]
    plans = plan_units(run, settings)
    assert [Path(p.original).name for p in plans] == ["main.cu", "other.cpp"]
    assert plans[0].waits_for == {str(tmp_path / n) for n in ("main.cu", "kernels.cu", "util.cuh")}
    assert plans[1].waits_for == {str(tmp_path / "other.cpp")}
    database = {str(tmp_path / "other.cpp"): Entry(str(tmp_path / "other.cpp"), str(tmp_path), ("cc",))}
    with_db = VerifySettings(compiler=None, database=database)  # type: ignore[arg-type]
    assert [Path(p.original).name for p in plan_units(run, with_db)] == ["other.cpp"]


def test_include_closure_follows_the_compilers_search(tmp_path: Path) -> None:
    files = {
        "src/main.cu": '#include <lib/api.cuh>\n#include "local.cuh"\n// #include "commented.cuh"\n',
        "src/local.cuh": '#include "../inc/table.inc"\n',
        "inc/table.inc": '#include "deep.cuh"\n',  # not converted, but it includes a converted file
        "inc/deep.cuh": "#include <cstdio>\n",
        "inc/lib/api.cuh": "#pragma once\n",
        "src/macro.cu": "#define HEADER <lib/api.cuh>\n#include HEADER\n",
        "src/next.cu": "#include_next <stdio.h>\n",
        "src/unrelated.cuh": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "linked").symlink_to(tmp_path / "inc")
    run = [str(tmp_path / rel) for rel in files if not rel.endswith(".inc")]
    closures = Closures(run)
    search = search_path(["-I", "../linked", "-DX=1", "-include", "../inc/deep.cuh"], str(tmp_path / "src"))
    assert search.angled == (str(tmp_path / "linked"),) and search.forced == (str(tmp_path / "inc/deep.cuh"),)
    got = closures.run_files_of(str(tmp_path / "src/main.cu"), search)
    # through the symlinked -I folder: the converted files under their own names
    want = {"src/main.cu", "src/local.cuh", "inc/deep.cuh", "inc/lib/api.cuh"}
    assert got == {str(tmp_path / rel) for rel in want}
    assert closures.run_files_of(str(tmp_path / "src/macro.cu"), search) is None  # needs the preprocessor
    assert closures.run_files_of(str(tmp_path / "src/next.cu"), search) is None
    assert includes_of(b'  #  include  "a.h" // x\n#include<b.h>\n#define Y "#include"\n') == [
        (True, "a.h"),
        (False, "b.h"),
    ]


def test_missing_hipcc_exits_2_with_a_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.cu").write_text("int main() { return 0; }\n")
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(
        main, ["convert", str(tmp_path / "a.cu"), "--verify", "--hipcc", str(tmp_path / "nope")]
    )
    assert result.exit_code == 2
    assert "--verify needs the HIP compiler" in result.output and "nope" in result.output
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "rocm"))
    result = CliRunner().invoke(main, ["verify", str(tmp_path)])
    assert result.exit_code == 2 and "install ROCm's hipcc" in result.output
    # nothing else needs it
    assert CliRunner().invoke(main, ["convert", str(tmp_path / "a.cu"), "--check"]).exit_code == 0


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.iterdir()}


FAKE_HIPCC = """#!/bin/sh
case "$*" in *--version*) echo "HIP version: 0.0-fake"; exit 0;; esac
touch "$MARK"
sleep 60
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux signals")
def test_ctrl_c_while_compiling_leaves_nothing_behind(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n")
    for i in range(12):  # enough files for the process pool: compiles start while it translates
        (tree / f"h{i}.cuh").write_text(f"__device__ int h{i}() {{ return {i}; }}\n" * 200)
    before = _snapshot(tree)
    hipcc = tmp_path / "hipcc"
    hipcc.write_text(FAKE_HIPCC)
    hipcc.chmod(0o755)
    temp = tmp_path / "tmp"
    temp.mkdir()
    mark = tmp_path / "compiling"
    env = dict(os.environ, PYTHONPATH=str(REPO), TMPDIR=str(temp), MARK=str(mark), HIPIFY_PY_CACHE_DIR="")
    env["PYTHONFAULTHANDLER"] = "1"  # a run that hangs prints its threads' stacks on SIGABRT (_stuck)
    cmd = [
        sys.executable,
        "-m",
        "hipify_py",
        "convert",
        str(tree),
        "--diff",
        "--verify",
        "--hipcc",
        str(hipcc),
        "-j",
        "2",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while not mark.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert mark.exists(), "the stand-in compiler never started"
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(_stuck(proc))
    assert proc.returncode == 130, err
    assert b"interrupted" in err
    assert list(temp.iterdir()) == []  # no mirror, no dependency file
    assert _snapshot(tree) == before
    assert not re.search(rb"Traceback", err)


def _stuck(proc: subprocess.Popen[bytes]) -> str:
    """What a run that did not end after Ctrl-C was doing, for the failure's message: its processes and
    theirs, and its threads' stacks (it runs with PYTHONFAULTHANDLER, so SIGABRT prints them)."""
    rows = subprocess.run(
        ["ps", "-eo", "pid=,ppid=,pgid=,stat=,etimes=,args="], capture_output=True, text=True
    ).stdout.splitlines()
    parents = {int(row.split()[0]): int(row.split()[1]) for row in rows}
    ours = {proc.pid}
    while grown := {pid for pid, ppid in parents.items() if ppid in ours} - ours:
        ours |= grown
    tree = [row for row in rows if int(row.split()[0]) in ours]
    alive = proc.poll() is None
    if alive:
        os.kill(proc.pid, signal.SIGABRT)
    for pid in ours:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    state = "still running" if alive else f"exited {proc.returncode}, its stderr still open"
    stacks = err.decode(errors="replace")[-8000:]
    return f"the run did not end within 60 s of Ctrl-C ({state})\n" + "\n".join(tree) + "\n" + stacks


OK_HIPCC = """#!/bin/sh
case "$*" in *--version*) echo "HIP version: 0.0-fake"; exit 0;; esac
exit 0
"""


def test_a_compile_starts_as_soon_as_its_includes_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one worker the order of events is fixed: a TU is compiled right after the last file it
    can include is written, before the rest is translated; one whose include needs the preprocessor
    waits for the whole translation."""
    import hipify_py.run.process
    import hipify_py.verify.stage

    tree, out = tmp_path / "tree", tmp_path / "out"
    tree.mkdir()
    (tree / "a.cu").write_text("#include <cstdio>\n__global__ void a() {}\n")
    (tree / "b.cu").write_text('#include "z.cuh"\n__global__ void b() { z(); }\n')
    (tree / "c.cu").write_text("#define H <cstdio>\n#include H\n__global__ void c() {}\n")
    (tree / "z.cuh").write_text("__device__ void z() { __syncthreads(); }\n")
    hipcc = tmp_path / "hipcc"
    hipcc.write_text(OK_HIPCC)
    hipcc.chmod(0o755)
    events: list[tuple[str, ...]] = []
    real_process, real_compile = hipify_py.run.process.process, hipify_py.verify.stage.compile_tu

    def process(found, settings):  # type: ignore[no-untyped-def]
        outcome = real_process(found, settings)
        events.append(("translated", found.path.name))
        return outcome

    def compile_tu(compiler, job, *args):  # type: ignore[no-untyped-def]
        written = sorted(p.name for p in out.glob("*")) if out.exists() else []
        events.append(("compile", Path(job.source).name, *written))
        return real_compile(compiler, job, *args)

    monkeypatch.setattr(hipify_py.run.process, "process", process)
    monkeypatch.setattr(hipify_py.verify.stage, "compile_tu", compile_tu)
    args = ["convert", str(tree), "-o", str(out), "--verify", "--hipcc", str(hipcc), "-j", "1", "--no-cache"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "translation units compiled: 3/3" in result.output
    assert events == [
        ("translated", "a.cu"),
        ("compile", "a.cu", "a.cu"),  # before b.cu, c.cu and z.cuh are translated
        ("translated", "b.cu"),
        ("translated", "c.cu"),
        ("translated", "z.cuh"),
        ("compile", "b.cu", "a.cu", "b.cu", "c.cu", "z.cuh"),  # its header is written
        ("compile", "c.cu", "a.cu", "b.cu", "c.cu", "z.cuh"),  # #include H: after everything
    ]


def test_compiles_share_the_process_pool_and_every_tu_is_compiled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enough files for the process pool (-j 2): every TU compiled exactly once, after its header (which
    sorts, and so is translated, after every TU)."""
    import hipify_py.verify.stage
    import hipify_py.workers.prefork

    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(10):
        (tree / f"z{i}.cuh").write_text(f"__global__ void k{i}(int* p) {{ p[threadIdx.x] = {i}; }}\n")
        (tree / f"a{i}.cu").write_text(f'#include "z{i}.cuh"\nint main() {{ cudaDeviceSynchronize(); }}\n')
    hipcc = tmp_path / "hipcc"
    hipcc.write_text(OK_HIPCC)
    hipcc.chmod(0o755)
    compiled: list[tuple[str, bool]] = []
    real_compile = hipify_py.verify.stage.compile_tu

    def compile_tu(compiler, job, *args):  # type: ignore[no-untyped-def]
        header = Path(job.source).with_name(Path(job.source).name.replace("a", "z", 1) + "h")
        compiled.append((Path(job.source).name, header.exists()))  # the output of its include
        return real_compile(compiler, job, *args)

    monkeypatch.setattr(hipify_py.verify.stage, "compile_tu", compile_tu)
    monkeypatch.setattr(hipify_py.workers.prefork, "INLINE_FILES", 0)  # why: 20 tiny files run inline
    out = tmp_path / "out"
    args = ["convert", str(tree), "-o", str(out), "--verify", "--hipcc", str(hipcc), "-j", "2", "--no-cache"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "translation units compiled: 10/10" in result.output
    assert sorted(compiled) == [(f"a{i}.cu", True) for i in range(10)]
