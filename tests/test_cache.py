"""The content-hash result cache: hits, misses, invalidation, delivery from cache, robustness."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import hipify_py
from hipify_py.cli.main import main
from hipify_py.engine.options import Options
from hipify_py.run import result_cache as cache_mod
from hipify_py.run.discover import discover
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings, Status
from hipify_py.util.locations import cache_root
from hipify_py.util.progress import Progress, progress_for, render
from hipify_py.workers import runner as runner_mod
from hipify_py.workers.runner import run

REPO = Path(__file__).resolve().parent.parent
CUDA = b"#include <cuda_runtime.h>\nvoid f(float **p) { cudaMalloc(p, 4); cudaDeviceSynchronize(); }\n"
HIP = b"#include <hip/hip_runtime.h>\nvoid g() {}\n"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    # why: files written by a test are "racy" (modified within a second), which would only force
    # re-hashing; the stat path is what a real warm run takes, so test it
    monkeypatch.setattr(cache_mod, "RACY_SECONDS", -1.0)
    # why: other work on the checkout must not change the code stamp in the middle of a test
    monkeypatch.setattr(cache_mod, "code_stamp", lambda: "this build")
    return tmp_path / "cache"


def _tree(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "a.cu").write_bytes(CUDA)
    (root / "sub" / "b.cuh").write_bytes(CUDA.replace(b"f(", b"h("))
    (root / "sub" / "hip.cpp").write_bytes(HIP)
    return root


def _run(root: Path, mode: Mode = Mode.CHECK, **kwargs: object) -> list[FileOutcome]:
    files, problems = discover([root])
    assert not problems
    settings = RunSettings(mode=mode, jobs=1, cache_dir=cache_root(), **kwargs)  # type: ignore[arg-type]
    return run(files, settings)


def _cached(outcomes: list[FileOutcome]) -> list[bool]:
    return [o.cached for o in outcomes]


def test_second_run_is_all_hits_with_same_results(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    first = _run(root)
    second = _run(root)
    assert _cached(first) == [False] * 3 and _cached(second) == [True] * 3
    for a, b in zip(first, second, strict=True):
        assert (a.status, a.diagnostics, a.counts, a.lines) == (b.status, b.diagnostics, b.counts, b.lines)
    assert [o.status for o in second] == [Status.CHANGED, Status.CHANGED, Status.UNCHANGED]


def test_first_run_reads_each_file_once_and_the_second_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing cached for the project, the run does not read and hash every file before the work
    (the work does, and its stat from before the read indexes the file), so the next run is stat-only."""
    root = _tree(tmp_path / "t")
    reads: list[str] = []
    real_open = open

    def counting_open(path: object, *args: object, **kwargs: object) -> object:
        if str(path).startswith(str(root)):
            reads.append(str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(cache_mod, "open", counting_open, raising=False)
    first = _run(root)
    assert _cached(first) == [False] * 3 and reads == []  # the cache itself read nothing of the tree
    second = _run(root)
    assert _cached(second) == [True] * 3 and reads == []  # every file known by its stat


def test_content_change_is_a_miss(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    (root / "a.cu").write_bytes(CUDA + b"// more\n")
    assert _cached(_run(root)) == [False, True, True]


def test_touched_but_identical_file_is_a_hit(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    os.utime(root / "a.cu", (1_700_000_000, 1_700_000_000))
    assert _cached(_run(root)) == [True] * 3


def test_option_change_is_a_miss(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    assert _cached(_run(root, options=Options(roc=True))) == [False] * 3
    assert _cached(_run(root, options=Options(roc=True))) == [True] * 3
    assert _cached(_run(root, options=Options(ignore_rules=frozenset({"HIP101", "HIP102"})))) == [False] * 3


def test_extra_mapping_change_is_a_miss(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    user = tmp_path / "mine.yaml"
    user.write_text("entries:\n- {cuda: cudaDeviceSynchronize, hip: mySync}\n")
    assert _cached(_run(root, extra_mappings=(user,))) == [False] * 3
    assert _cached(_run(root, extra_mappings=(user,))) == [True] * 3
    user.write_text("entries:\n- {cuda: cudaDeviceSynchronize, hip: otherSync}\n")
    assert _cached(_run(root, extra_mappings=(user,))) == [False] * 3


def test_version_change_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    monkeypatch.setattr(hipify_py, "__version__", "99.0")
    assert _cached(_run(root)) == [False] * 3


def test_code_change_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    monkeypatch.setattr(cache_mod, "code_stamp", lambda: "another build")
    assert _cached(_run(root)) == [False] * 3


def test_corrupt_cache_is_ignored_and_rebuilt(tmp_path: Path, _private_cache: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root)
    (index,) = (_private_cache / "results").iterdir()
    index.write_bytes(b"\x00garbage")
    assert _cached(_run(root)) == [False] * 3
    assert _cached(_run(root)) == [True] * 3


def test_corrupt_result_entry_is_a_miss(tmp_path: Path, _private_cache: Path) -> None:
    """Results are marshalled one by one inside the index: a damaged entry is a miss, not a crash."""
    import marshal

    root = _tree(tmp_path / "t")
    first = _run(root)
    (index,) = (_private_cache / "results").iterdir()
    data = marshal.loads(index.read_bytes())
    assert data["results"] and all(isinstance(raw, bytes) for raw in data["results"].values())
    data["results"] = {key: raw[: len(raw) // 2] for key, raw in data["results"].items()}
    index.write_bytes(marshal.dumps(data))
    again = _run(root)
    assert _cached(again) == [False] * 3
    assert [(o.status, o.diagnostics) for o in again] == [(o.status, o.diagnostics) for o in first]
    assert _cached(_run(root)) == [True] * 3


def test_output_tree_restores_edited_or_deleted_target(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    out = tmp_path / "out"
    _run(root, Mode.OUTPUT_TREE, output_dir=out)
    expected = (out / "a.cu").read_bytes()
    (out / "a.cu").write_bytes(b"edited by hand\n")  # the target no longer has what we wrote
    outcomes = _run(root, Mode.OUTPUT_TREE, output_dir=out)
    # the edited output was the only copy of a.cu's text: translated again; the others are hits
    assert _cached(outcomes) == [False, True, True]
    assert (out / "a.cu").read_bytes() == expected
    (out / "a.cu").unlink()
    (out / "sub" / "hip.cpp").unlink()
    outcomes = _run(root, Mode.OUTPUT_TREE, output_dir=out)
    assert _cached(outcomes) == [False, True, True]  # an unchanged file is its own output
    assert (out / "a.cu").read_bytes() == expected
    assert (out / "sub" / "hip.cpp").read_bytes() == HIP


def test_output_tree_into_a_new_directory_copies_earlier_outputs(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root, Mode.OUTPUT_TREE, output_dir=tmp_path / "out1")
    assert not (tmp_path / "cache" / "blobs").exists()  # -o stores no blobs: the outputs are the copies
    outcomes = _run(root, Mode.OUTPUT_TREE, output_dir=tmp_path / "out2")
    assert _cached(outcomes) == [True] * 3
    for name in ("a.cu", "sub/b.cuh", "sub/hip.cpp"):
        assert (tmp_path / "out2" / name).read_bytes() == (tmp_path / "out1" / name).read_bytes()
    for out in ("out1", "out2"):
        (tmp_path / out / "a.cu").write_bytes(b"damaged\n")  # a copy that changed is not used
    outcomes = _run(root, Mode.OUTPUT_TREE, output_dir=tmp_path / "out3")
    assert _cached(outcomes) == [False, True, True]
    assert (tmp_path / "out3" / "a.cu").read_bytes().startswith(b"#include <hip/hip_runtime.h>")


def test_output_tree_unchanged_target_not_rewritten(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    out = tmp_path / "out"
    _run(root, Mode.OUTPUT_TREE, output_dir=out)
    before = (out / "a.cu").stat()
    outcomes = _run(root, Mode.OUTPUT_TREE, output_dir=out)
    assert _cached(outcomes) == [True] * 3
    after = (out / "a.cu").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize("jobs", [1, 2])
def test_output_stats_come_from_the_worker_that_wrote_them(
    tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o: the outputs index gets each output's stat from the worker (what it wrote, or the file it found
    already holding the text), the same key a stat of the path gives, and the run stats no output."""
    root = _tree(tmp_path / "t")
    out = tmp_path / "out"
    real_stat = os.stat
    stats: list[str] = []

    def counting_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        stats.append(str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    for _ in range(2):  # written, then found holding the text (results emptied: translated again)
        files, _ = discover([root])
        settings = RunSettings(mode=Mode.OUTPUT_TREE, jobs=jobs, cache_dir=cache_root(), output_dir=out)
        stats.clear()
        monkeypatch.setattr(cache_mod.os, "stat", counting_stat)
        outcomes = run(files, settings)
        monkeypatch.setattr(cache_mod.os, "stat", real_stat)
        assert not [p for p in stats if p.startswith(str(out))]
        for outcome in outcomes:
            st = os.stat(outcome.output)
            assert outcome.out_stat == (st.st_mtime_ns, st.st_size, st.st_ino)
        for results in (tmp_path / "cache" / "results").iterdir():
            results.unlink()


def test_diff_from_cache_equals_fresh_diff(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    fresh = _run(root, Mode.DIFF)
    cached = _run(root, Mode.DIFF)
    assert _cached(cached) == [True] * 3
    assert [o.diff for o in cached] == [o.diff for o in fresh]
    assert "+void f(float **p) { hipMalloc" in cached[0].diff


@pytest.fixture
def _remember_small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """These trees have 3 files: make them count as a tree, not a few staged files."""
    monkeypatch.setattr(runner_mod, "REMEMBER_WRITTEN_FROM", 1)


@pytest.mark.usefixtures("_remember_small_runs")
def test_in_place_warm_run(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    first = _run(root, Mode.IN_PLACE)
    assert [o.status for o in first] == [Status.CHANGED, Status.CHANGED, Status.UNCHANGED]
    converted = (root / "a.cu").read_bytes()
    # the run that rewrote the files knows what they hold now: the very next run is all hits
    for _ in range(2):
        again = _run(root, Mode.IN_PLACE)
        assert _cached(again) == [True] * 3 and all(o.status is Status.UNCHANGED for o in again)
    assert (root / "a.cu").read_bytes() == converted


def test_few_files_in_place_are_not_translated_twice(tmp_path: Path) -> None:
    """A few staged files (the pre-commit hook): what was written is translated by the next run, not
    once more by this one; that next run reports what a fresh run reports."""
    root = _tree(tmp_path / "t")
    first = _run(root, Mode.IN_PLACE)
    assert [o.rewritten for o in first] == [None, None, None]
    again = _run(root, Mode.CHECK)
    assert _cached(again) == [False, False, True]
    assert _cached(_run(root, Mode.CHECK)) == [True] * 3


@pytest.mark.usefixtures("_remember_small_runs")
def test_run_after_in_place_reports_what_a_fresh_run_reports(tmp_path: Path) -> None:
    """The cached result of a file the tool wrote is that of translating it anew (no stale findings)."""
    root = tmp_path / "t"
    root.mkdir()
    # managed memory and an API HIP lacks: findings that differ between the CUDA and the HIP text
    source = CUDA + b"__managed__ int flag;\nvoid m(void** p) { cudaMallocManaged(p, 4); }\n"
    (root / "a.cu").write_bytes(source)
    _run(root, Mode.IN_PLACE)
    cached = _run(root, Mode.CHECK)
    fresh = run(discover([root])[0], RunSettings(mode=Mode.CHECK, jobs=1))
    assert _cached(cached) == [True] and _cached(fresh) == [False]
    assert cached[0].status is fresh[0].status is Status.UNCHANGED
    assert cached[0].diagnostics == fresh[0].diagnostics and fresh[0].diagnostics
    assert cached[0].counts == fresh[0].counts and cached[0].lines == fresh[0].lines


def test_check_hit_then_in_place_translates(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    _run(root, Mode.CHECK)
    outcomes = _run(root, Mode.IN_PLACE)
    assert _cached(outcomes) == [False, False, True]  # the rewrite needs the text: translated again
    assert b"hipMalloc" in (root / "a.cu").read_bytes()


def test_no_cache_flag(tmp_path: Path, _private_cache: Path) -> None:
    root = _tree(tmp_path / "t")
    result = CliRunner().invoke(main, ["convert", "--check", "--no-cache", str(root)], catch_exceptions=False)
    assert result.exit_code == 1
    # why only results/: the built tables (mappings, derived/) are shared by every run, as --help says
    assert not (_private_cache / "results").exists()
    CliRunner().invoke(main, ["convert", "--check", str(root)], catch_exceptions=False)
    assert (_private_cache / "results").is_dir()


def test_warm_subprocess_run_imports_no_parser(tmp_path: Path, _private_cache: Path) -> None:
    """A warm run where every file is a hit must not load tree-sitter or the YAML mapping tables."""
    root = _tree(tmp_path / "t")
    # why no early translator: its imports (made beside the run, on another CPU) would not show
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "HIPIFY_PY_CACHE_DIR": str(_private_cache),
        "HIPIFY_PY_PLAIN": "early",
    }
    cmd = [
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "hipify_py",
        "convert",
        "-o",
        str(tmp_path / "o"),
        str(root),
    ]
    cold = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert cold.returncode == 0, cold.stderr
    assert "tree_sitter" in cold.stderr
    os.utime(root / "a.cu", (1_700_000_000, 1_700_000_000))  # old enough for the stat index to be trusted
    warm = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert warm.returncode == 0, warm.stderr
    imported = {
        line.split("|")[-1].strip() for line in warm.stderr.splitlines() if line.startswith("import time")
    }
    assert not {"tree_sitter", "yaml", "hipify_py.pipeline.translate", "concurrent.futures"} & imported, (
        warm.stderr[-3000:]
    )
    assert "3 file(s) scanned" in warm.stderr


def test_progress_bar_only_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not progress_for(100, quiet=False, stream=io.StringIO()).enabled
    assert not progress_for(100, quiet=True, stream=Tty()).enabled
    assert not progress_for(10, quiet=False, stream=Tty()).enabled
    stream = Tty()
    bar = progress_for(100, quiet=False, stream=stream)
    assert isinstance(bar, Progress) and bar.enabled
    bar.advance()
    assert "1/100 files" in stream.getvalue()
    bar.clear()
    assert stream.getvalue().endswith("\r\x1b[K")
    assert render(50, 100, 80).startswith("[" + "#" * 25 + "." * 25 + "]")
