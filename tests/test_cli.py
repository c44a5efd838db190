"""The `convert` command: every mode and exit code, usage errors, --version, the console script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from conftest import EXAMPLES, REPO

from hipify_py import __version__
from hipify_py.cli.main import main
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

CUDA = b"""#include <cuda_runtime.h>
__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }
int main() {
  float* d;
  cudaMalloc(&d, 4 * sizeof(float));
  fill<<<1, 4>>>(d);
  cudaFree(d);
  return 0;
}
"""
HIP = translate(CUDA, Options()).text
# HIP code that needs no change but has a HIP201 warning (warp size assumed to be 32)
HIP_WITH_WARNING = b"""#include <hip/hip_runtime.h>
#define WARP_SIZE 32
__global__ void k(int* p) { p[threadIdx.x % WARP_SIZE] = 0; }
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def convert(*args: object) -> Result:
    return CliRunner().invoke(main, ["convert", *map(str, args)])


def tree(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_sanity_the_sample_converts() -> None:
    assert HIP != CUDA and b"hipMalloc" in HIP and b"hipLaunchKernelGGL" in HIP


def test_output_tree_mirrors_the_input(tmp_path: Path) -> None:
    src = tree(
        tmp_path / "src", {"a.cu": CUDA, "sub/b.cuh": CUDA, "sub/deep/c.hip.cpp": HIP, "notes.txt": b"x"}
    )
    before = snapshot(src)
    result = convert(src, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert snapshot(tmp_path / "out") == {"a.cu": HIP, "sub/b.cuh": HIP, "sub/deep/c.hip.cpp": HIP}
    assert snapshot(src) == before  # the input is only read


def test_in_place_rewrites_files(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA, "d/b.cu": CUDA, "d/c.cpp": HIP})
    result = convert("--in-place", tmp_path)
    assert result.exit_code == 0, result.output
    assert snapshot(tmp_path) == {"a.cu": HIP, "d/b.cu": HIP, "d/c.cpp": HIP}


def test_in_place_keeps_permission_bits(tmp_path: Path) -> None:
    script = tree(tmp_path, {"a.cu": CUDA}) / "a.cu"
    script.chmod(0o751)
    assert convert("--in-place", script).exit_code == 0
    assert script.read_bytes() == HIP and (script.stat().st_mode & 0o777) == 0o751


def test_in_place_backup_keeps_the_original(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA})
    assert convert("--in-place", "--backup", ".orig", tmp_path / "a.cu").exit_code == 0
    assert snapshot(tmp_path) == {"a.cu": HIP, "a.cu.orig": CUDA}


def test_exit_nonzero_on_change_with_in_place(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA})
    first = convert("--in-place", "--exit-nonzero-on-change", tmp_path)
    assert first.exit_code == 1, first.output
    assert (tmp_path / "a.cu").read_bytes() == HIP
    assert convert("--in-place", "--exit-nonzero-on-change", tmp_path).exit_code == 0


def test_diff_prints_a_patch_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree(tmp_path, {"src/a.cu": CUDA, "src/b.cu": HIP})
    monkeypatch.chdir(tmp_path)
    result = convert("--diff", "src")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "src/a.cu").read_bytes() == CUDA
    assert "--- a/src/a.cu\n+++ b/src/a.cu\n" in result.stdout
    assert "-  cudaMalloc(&d, 4 * sizeof(float));\n" in result.stdout
    assert "b.cu" not in result.stdout  # nothing to change there
    if shutil.which("git"):  # the diff is a real patch: applying it gives the converted file
        (tmp_path / "p.diff").write_text(result.stdout)
        subprocess.run(["git", "apply", "p.diff"], cwd=tmp_path, check=True)
        assert (tmp_path / "src/a.cu").read_bytes() == HIP


def test_check_exits_1_when_something_would_change(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA, "b.cu": HIP})
    result = convert("--check", tmp_path)
    assert result.exit_code == 1
    assert "a.cu" in result.stderr and result.stdout == ""
    assert snapshot(tmp_path) == {"a.cu": CUDA, "b.cu": HIP}


def test_check_exits_0_when_nothing_would_change(tmp_path: Path) -> None:
    tree(tmp_path, {"b.cu": HIP, "c.cpp": b"int main() { return 0; }\n"})
    assert convert("--check", tmp_path).exit_code == 0


def test_check_with_diff_prints_the_diff_and_exits_1(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA})
    result = convert("--check", "--diff", tmp_path / "a.cu")
    assert result.exit_code == 1
    assert "+  hipMalloc(&d, 4 * sizeof(float));\n" in result.stdout
    assert (tmp_path / "a.cu").read_bytes() == CUDA
    clean = convert("--check", "--diff", tree(tmp_path, {"b.cu": HIP}) / "b.cu")
    assert clean.exit_code == 0 and clean.stdout == ""


def test_stdout_for_one_file(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA})
    result = convert(tmp_path / "a.cu")
    assert result.exit_code == 0
    assert result.stdout_bytes == HIP
    assert (tmp_path / "a.cu").read_bytes() == CUDA


@pytest.mark.parametrize(("severity", "code"), [(None, 0), ("warning", 1), ("info", 1), ("error", 0)])
def test_check_severity_threshold(tmp_path: Path, severity: str | None, code: int) -> None:
    tree(tmp_path, {"w.cpp": HIP_WITH_WARNING})
    args = ["--check", tmp_path / "w.cpp"] + (["--severity", severity] if severity else [])
    result = convert(*args)
    assert result.exit_code == code, result.output
    assert "HIP201" in result.stderr


def test_show_none_hides_diagnostics(tmp_path: Path) -> None:
    tree(tmp_path, {"w.cpp": HIP_WITH_WARNING})
    shown = convert("--check", tmp_path / "w.cpp").stderr
    hidden = convert("--check", "--show", "none", tmp_path / "w.cpp").stderr
    assert "w.cpp:2:9: warning: HIP201" in shown and "w.cpp:2:9" not in hidden


@pytest.mark.parametrize(
    "args",
    [
        [],  # no paths
        ["--in-place", "--diff", "{a}"],
        ["--in-place", "--check", "{a}"],
        ["--in-place", "-o", "{out}", "{a}"],
        ["--diff", "-o", "{out}", "{a}"],
        ["{a}", "{b}"],  # several files and no -o/--in-place
        ["{dir}"],  # a directory and no -o/--in-place
        ["--ignore", "HIP999", "{a}"],  # unknown rule id
        ["--severity", "fatal", "--check", "{a}"],
        ["--no-such-option", "{a}"],
    ],
)
def test_usage_errors_exit_2_and_touch_nothing(tmp_path: Path, args: list[str]) -> None:
    tree(tmp_path, {"a.cu": CUDA, "b.cu": CUDA})
    names = {"a": tmp_path / "a.cu", "b": tmp_path / "b.cu", "dir": tmp_path, "out": tmp_path / "out"}
    result = convert(*(arg.format(**names) for arg in args))
    assert result.exit_code == 2
    assert "Error" in result.stderr or "Usage" in result.stderr
    assert snapshot(tmp_path) == {"a.cu": CUDA, "b.cu": CUDA}


def test_nonexistent_path_exits_2_after_converting_the_rest(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA})
    result = convert("--in-place", tmp_path / "a.cu", tmp_path / "missing.cu")
    assert result.exit_code == 2
    assert "missing.cu: no such file or directory" in result.stderr
    assert (tmp_path / "a.cu").read_bytes() == HIP


def test_hip_sources_only_filters_by_the_configured_globs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(tmp_path, {".hipify-py.toml": b'hip-sources = ["hip/*"]\n', "hip/k.cpp": CUDA, "cuda/k.cu": CUDA})
    monkeypatch.chdir(tmp_path)
    only_cuda = convert("--check", "--diff", "--hip-sources-only", "cuda/k.cu")
    assert only_cuda.exit_code == 0 and only_cuda.stdout == ""
    both = convert("--check", "--diff", "--hip-sources-only", "cuda/k.cu", "hip/k.cpp")
    assert both.exit_code == 1
    assert "+++ b/hip/k.cpp" in both.stdout and "cuda/k.cu" not in both.stdout
    # without the setting every file counts
    (tmp_path / ".hipify-py.toml").write_bytes(b"")
    assert convert("--check", "--hip-sources-only", "cuda/k.cu").exit_code == 1


def test_examples_converted_twice_do_not_change(tmp_path: Path) -> None:
    """Idempotence over examples/ through the CLI: the converted tree passes --check."""
    out = tmp_path / "out"
    first = convert("-o", out, "-q", EXAMPLES)
    assert first.exit_code == 0, first.output
    converted = snapshot(out)
    assert any(b"hipLaunchKernelGGL" in data for data in converted.values())
    again = convert("--check", "--diff", out)
    assert again.exit_code == 0, again.stdout
    assert snapshot(out) == converted


def _env() -> dict[str, str]:
    return dict(os.environ, HIPIFY_PY_CACHE_DIR="", PYTHONPATH=str(REPO))


def test_python_dash_m_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "--version"],
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"hipify-py, version {__version__}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("hipify-py") is None, reason="package not installed (pip install -e .)")
def test_installed_console_script(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": CUDA, "b.cu": HIP})
    env = dict(os.environ, HIPIFY_PY_CACHE_DIR="")
    script = shutil.which("hipify-py")
    check = subprocess.run(
        [script, "convert", "--check", tmp_path], capture_output=True, env=env, check=False
    )
    assert check.returncode == 1, check.stderr
    stdout = subprocess.run([script, "convert", tmp_path / "a.cu"], capture_output=True, env=env, check=False)
    assert stdout.returncode == 0 and stdout.stdout == HIP


def _convert_params(args: list[str]) -> dict[str, object]:
    command = main.get_command(click.Context(main), "convert")
    assert command is not None
    with command.make_context("convert", list(args)) as ctx:
        return dict(ctx.params)


@pytest.mark.parametrize(
    ("short", "spelled_out"),
    [
        (["-o", "out", "-j2", "-q", "a.cu"], ["--output", "out", "--jobs", "2", "--quiet", "a.cu"]),
        (["-qj2", "-oout", "a.cu"], ["--quiet", "--jobs=2", "--output=out", "a.cu"]),
        (["-j", "3", "-i", "a.cu", "--", "-b.cu"], ["--jobs", "3", "--in-place", "a.cu", "--", "-b.cu"]),
    ],
)
def test_short_options_parse_as_their_long_forms(short: list[str], spelled_out: list[str]) -> None:
    assert _convert_params(short) == _convert_params(spelled_out)


def test_unknown_options_are_still_reported_with_suggestions() -> None:
    runner = CliRunner()
    long = runner.invoke(main, ["convert", "--jbos", "2", "a.cu"])
    assert long.exit_code == 2 and "Did you mean '--jobs'?" in long.output
    short = runner.invoke(main, ["convert", "-Z", "a.cu"])
    assert short.exit_code == 2 and "No such option '-Z'" in short.output


def test_short_options_cost_no_close_match_search() -> None:
    """click's parser tries `-j2` as a long option first; the failed try computed "did you mean"
    suggestions (importing difflib) that were thrown away. The command's parser goes straight on."""
    code = (
        "import sys\n"
        "from hipify_py.cli.main import main\n"
        "command = main.get_command(main.make_context('hipify-py', ['convert', 'x']), 'convert')\n"
        "command.make_context('convert', ['-o', 'out', '-j2', '-q', 'a.cu'])\n"
        "print('difflib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stderr


def _entry(
    tmp_path: Path, prelude: str, *args: str, plain: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The executable's entry point (cli/entry.py) in a new interpreter, after `prelude`; `plain`: the
    start-up tricks turned off (HIPIFY_PY_PLAIN, util/startup.py)."""
    argv = f"sys.argv = ['hipify-py', *{list(args)!r}]"
    code = "\n".join(("import sys", prelude, argv, "from hipify_py.cli.entry import main", "main()"))
    env = dict(os.environ, HIPIFY_PY_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("HIPIFY_PY_PLAIN", None)
    if plain is not None:
        env["HIPIFY_PY_PLAIN"] = plain
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("plain", [None, "1"], ids=["tricks", "plain"])
def test_the_executables_exit_keeps_codes_output_and_exit_handlers(tmp_path: Path, plain: str | None) -> None:
    """The entry point ends without the interpreter's teardown (util/startup.finish): exit codes, every
    byte of output and the atexit handlers are those of a normal exit (HIPIFY_PY_PLAIN=1: the same)."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(60):
        (src / f"k{i}.cu").write_bytes(CUDA)
    marker = tmp_path / "atexit-ran"
    prelude = f"import atexit\natexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))"
    prelude += "\natexit.register(lambda: sys.stdout.write('#' * 100))"  # left in the stream's buffer
    diff = _entry(tmp_path, prelude, "convert", str(src), "--diff", plain=plain)
    assert diff.returncode == 0 and marker.read_text() == "ran"
    expected = CliRunner().invoke(main, ["convert", str(src), "--diff"])
    assert diff.stdout == expected.stdout + "#" * 100 and diff.stdout.count("+++ b/") == 60
    assert _entry(tmp_path, "", "convert", str(src), "--check", "-q", plain=plain).returncode == 1
    bad = _entry(tmp_path, "", "convert", "--no-such-option", plain=plain)
    assert bad.returncode == 2 and "No such option" in bad.stderr
    gone, out = str(tmp_path / "missing"), str(tmp_path / "o")
    missing = _entry(tmp_path, "", "convert", gone, "-o", out, plain=plain)
    assert missing.returncode == 2


def test_the_executable_waits_for_a_running_thread(tmp_path: Path) -> None:
    marker = tmp_path / "thread-done"
    late = f"lambda: (time.sleep(0.3), open({str(marker)!r}, 'w').write('done'))"
    prelude = f"import threading, time\nthreading.Thread(target={late}).start()"
    done = _entry(tmp_path, prelude, "--version")
    assert done.returncode == 0 and __version__ in done.stdout and marker.read_text() == "done"
