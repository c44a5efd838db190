"""workers/early.py: the translator process a command starts before its command line is imported.

It must give exactly the outcomes (and written files) the run's own process gives, in order; exit
when not used; and leave the run able to go on (or to stop cleanly) when it is gone."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from hipify_py.engine.options import Options
from hipify_py.run.discover import SOURCE_EXTENSIONS, discover
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings
from hipify_py.workers import early
from hipify_py.workers.forked import WorkerDied
from hipify_py.workers.runner import run

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the early translator needs fork")

KERNEL = b"""#include <cuda_runtime.h>
__global__ void k%d(float* p) { p[threadIdx.x] = %d; }
void launch%d(float* p) { k%d<<<1, 32>>>(p); cudaDeviceSynchronize(); }
"""


def _tree(root: Path, count: int) -> Path:
    for i in range(count):
        folder = root / "src" / f"d{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        text = KERNEL % (i, i, i, i) if i % 4 else b"// plain C++\nint f%d() { return %d; }\n" % (i, i)
        (folder / f"f{i}.cu").write_bytes(text)
    (root / "src" / "d0" / "bad.cu").write_bytes(b"\0binary")  # a skipped file travels too
    return root / "src"


def _convert(
    src: Path, out: Path, translator: early.Early | None, extra: tuple[Path, ...] = ()
) -> list[FileOutcome]:
    files, _ = discover((src,), tuple(SOURCE_EXTENSIONS))
    settings = RunSettings(
        Mode.OUTPUT_TREE, Options(hip_version="6.4"), output_dir=out, jobs=2, extra_mappings=extra
    )
    return run(files, settings, early=translator)


def _summary(outcomes: list[FileOutcome], out: Path) -> list[tuple]:
    return [
        (
            o.path,
            o.status,
            o.message,
            [(d.rule, d.start) for d in o.diagnostics],
            dict(o.counts),
            o.output.relative_to(out) if o.output else None,
        )
        for o in outcomes
    ]


def _written(out: Path) -> dict[Path, bytes]:
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("count", [5, 140], ids=["translated-in-the-early-process", "by-its-workers"])
def test_outcomes_and_files_are_those_of_the_run_itself(tmp_path: Path, count: int) -> None:
    src = _tree(tmp_path, count)
    own = _convert(src, tmp_path / "own", None)
    translator = early.start()
    assert translator is not None
    via = _convert(src, tmp_path / "early", translator)
    assert _summary(via, tmp_path / "early") == _summary(own, tmp_path / "own")
    assert _written(tmp_path / "early") == _written(tmp_path / "own")
    with contextlib.suppress(ChildProcessError):  # reaped by the run, or about to end
        assert os.waitstatus_to_exitcode(os.waitpid(translator.pid, 0)[1]) == 0


def test_a_run_stopped_early_waits_for_the_process(tmp_path: Path) -> None:
    """Closing the outcomes before the last one (Ctrl-C, an error) returns once the process is gone:
    the files it was writing are whole."""
    src = _tree(tmp_path, 140)
    files, _ = discover((src,), tuple(SOURCE_EXTENSIONS))
    translator = early.start()
    assert translator is not None
    settings = RunSettings(Mode.OUTPUT_TREE, Options(hip_version="6.4"), output_dir=tmp_path / "o", jobs=2)
    assert translator.send(files, settings, 2)
    outcomes = translator.outcomes(len(files))
    next(outcomes)
    outcomes.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(translator.pid, os.WNOHANG)
    assert not list((tmp_path / "o").rglob(".*hipify-py-tmp*"))


@pytest.mark.parametrize("count", [5, 140], ids=["translated-in-the-early-process", "by-its-workers"])
def test_a_users_mapping_table_reaches_the_early_process(tmp_path: Path, count: int) -> None:
    src = _tree(tmp_path, count)
    mine = tmp_path / "mine.yaml"
    mine.write_text("entries:\n- {cuda: cudaDeviceSynchronize, hip: mySync}\n")
    own = _convert(src, tmp_path / "own", None, (mine,))
    translator = early.start()
    assert translator is not None
    via = _convert(src, tmp_path / "early", translator, (mine,))
    assert _summary(via, tmp_path / "early") == _summary(own, tmp_path / "own")
    written = _written(tmp_path / "early")
    assert written == _written(tmp_path / "own")
    assert any(b"mySync()" in text for text in written.values())


def test_an_unused_process_exits(tmp_path: Path) -> None:
    translator = early.start()
    assert translator is not None
    translator.close(wait=True)
    with pytest.raises(ProcessLookupError):
        os.kill(translator.pid, 0)


def test_a_process_gone_before_the_job_leaves_the_run_to_translate(tmp_path: Path) -> None:
    src = _tree(tmp_path, 12)
    translator = early.start()
    assert translator is not None
    os.kill(translator.pid, signal.SIGKILL)
    os.waitpid(translator.pid, 0)
    outcomes = _convert(src, tmp_path / "out", translator)
    assert len(outcomes) == 13 and len(_written(tmp_path / "out")) == 12


class _Dies:
    """Settings whose unpickling ends the process that reads them: the early process dies mid-job."""

    def __reduce__(self) -> tuple:
        return (os._exit, (3,))


def test_a_process_that_dies_with_the_job_stops_the_run(tmp_path: Path) -> None:
    src = _tree(tmp_path, 3)
    files, _ = discover((src,), tuple(SOURCE_EXTENSIONS))
    translator = early.start()
    assert translator is not None
    assert translator.send(files, _Dies(), 2)  # type: ignore[arg-type]
    with pytest.raises(WorkerDied):
        list(translator.outcomes(len(files)))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["hipify-py", "convert", "src", "-o", "out"], True),
        (["hipify-py", "convert", "--in-place", "a.cu"], True),
        (["hipify-py", "convert", "--help"], False),
        (["hipify-py", "convert", "src", "--verify", "-o", "out"], False),
        (["hipify-py", "explain", "HIP101"], False),
        (["hipify-py", "--version"], False),
    ],
)
def test_started_only_for_a_translation_run(
    argv: list[str], expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HIPIFY_PY_PLAIN", raising=False)
    assert early.wanted(argv) is expected
    for plain in ("1", "early", "gc,early"):
        monkeypatch.setenv("HIPIFY_PY_PLAIN", plain)
        assert early.wanted(argv) is False
    monkeypatch.setenv("HIPIFY_PY_PLAIN", "gc,exit")
    assert early.wanted(argv) is expected


def test_regex_programs_built_in_the_early_process_are_kept(tmp_path: Path) -> None:
    """lazyre keeps run-time patterns for the next run at exit; the early process ends with os._exit,
    so it saves before its last outcome (a staged file's patterns are built there, not in the run)."""
    import marshal
    import subprocess
    import sys

    source = tmp_path / "k.cu"
    source.write_bytes(b"__global__ void k(int* p) { p[0] = __shfl_down_sync(0xffffffff, p[0], 1); }\n")
    env = {**os.environ, "HIPIFY_PY_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("HIPIFY_PY_PLAIN", None)
    run = subprocess.run(
        [sys.executable, "-m", "hipify_py", "convert", "-q", "--check", str(source)],
        env=env,
        capture_output=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    (store,) = (tmp_path / "cache").glob("regex-*.marshal")
    patterns = marshal.loads(store.read_bytes())
    assert any(isinstance(p, bytes) and b"__shfl_down_sync" in p for p, _ in patterns), len(patterns)


def test_the_likely_targets_tables_stop_loading_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guess at the target's tables is asked before each step whether a job is waiting: a job that
    arrives during the guess is taken at the next step, not after the whole guess."""
    from hipify_py.pipeline import translate

    asked: list[int] = []
    steps = 3

    def stop() -> bool:
        asked.append(1)
        return len(asked) > steps

    loaded: list[str] = []
    real = translate.preload_rule_tables

    def counting(options: Options, stop: object = None) -> None:
        def counted() -> bool:
            done = stop()  # type: ignore[operator]
            if not done:
                loaded.append("step")
            return done

        real(options, counted)

    monkeypatch.setattr(early, "_likely_target", lambda: "6.4")
    monkeypatch.setattr(translate, "preload_rule_tables", counting)
    early._load_likely_target(stop)
    assert len(loaded) == steps - 1  # one ask went to the guess itself, then one before each step
    monkeypatch.setattr(early, "_likely_target", lambda: pytest.fail("guessed after a stop"))
    early._load_likely_target(lambda: True)
