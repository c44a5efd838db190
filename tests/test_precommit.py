"""The hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` in temporary git repositories.

The hooks repository is a committed copy of this working tree (so uncommitted work is what gets
tested). `language: python` makes pre-commit pip-install it into a fresh virtualenv: that needs the
package index for the dependencies (tree-sitter, ...); without one these tests skip.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO

from hipify_py.cli.main import main
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

pytest.importorskip("pre_commit")
pytestmark = [pytest.mark.wheel, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"
CUDA = b"#include <cuda_runtime.h>\nvoid f(float** p) {\n  cudaMalloc(p, 16);\n  cudaFree(*p);\n}\n"
HIP = translate(CUDA, Options()).text
OFFLINE_MARKS = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        HIPIFY_PY_CACHE_DIR="",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    output = proc.stdout + proc.stderr
    log = Path(env["PRE_COMMIT_HOME"]) / "pre-commit.log"
    details = output + (log.read_text(errors="replace") if log.exists() else "")
    if "An unexpected error has occurred" in output and any(mark in details for mark in OFFLINE_MARKS):
        pytest.skip("pre-commit could not install the hook environment: no package index reachable")
    return proc


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory: pytest.TempPathFactory, home: Path) -> tuple[Path, str]:
    """A git repo holding this working tree (tracked and untracked, not ignored files), committed."""
    env = _env(home)
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    names = _git(REPO, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    copy = tmp_path_factory.mktemp("hooks") / "hipify-py"
    for name in filter(None, names):
        source = REPO / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    _git(copy, env, "init", "-q")
    _git(copy, env, "add", "-A")
    _git(copy, env, "commit", "-q", "-m", "snapshot")
    return copy, _git(copy, env, "rev-parse", "HEAD").strip()


def _project(path: Path, env: dict[str, str], hooks: list[str] | None, hooks_repo: tuple[Path, str]) -> Path:
    path.mkdir()
    _git(path, env, "init", "-q")
    if hooks is not None:
        repo, rev = hooks_repo
        config = {"repos": [{"repo": str(repo), "rev": rev, "hooks": [{"id": h} for h in hooks]}]}
        (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
        _git(path, env, "add", ".pre-commit-config.yaml")
        _run([sys.executable, "-m", "pre_commit", "install"], path, env)
    return path


def test_manifest_is_valid_and_uses_real_options() -> None:
    from identify.identify import ALL_TAGS
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(HOOKS_FILE))}  # pre-commit's own schema check
    assert set(hooks) == {"hipify-py", "hipify-py-check"}
    help_text = CliRunner().invoke(main, ["convert", "--help"]).output
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert set(hook["types_or"]) <= ALL_TAGS and "cuda" in hook["types_or"]
        program, command, *options = shlex.split(hook["entry"])
        assert (program, command) == ("hipify-py", "convert")
        assert all(f" {o}" in help_text for o in options if o.startswith("-")), options
    assert "--in-place" in hooks["hipify-py"]["entry"]
    assert "--in-place" not in hooks["hipify-py-check"]["entry"]


def _hook_args(hook_id: str) -> list[str]:
    (hook,) = (h for h in yaml.safe_load(HOOKS_FILE.read_text()) if h["id"] == hook_id)
    return shlex.split(hook["entry"])[2:]  # without `hipify-py convert`


def test_check_hook_entry_fails_on_cuda_apis_hip_lacks(tmp_path: Path) -> None:
    """HIP code that calls a CUDA API with no HIP counterpart produces no diff, yet must fail the check."""
    path = tmp_path / "k.cpp"
    path.write_bytes(HIP + b"void g() { cudaCtxResetPersistingL2Cache(); }\n")
    result = CliRunner().invoke(main, ["convert", *_hook_args("hipify-py-check"), str(path)])
    assert result.exit_code == 1
    assert result.stdout == "" and "HIP101" in result.stderr
    (tmp_path / "ok.cpp").write_bytes(HIP)
    assert (
        CliRunner()
        .invoke(main, ["convert", *_hook_args("hipify-py-check"), str(tmp_path / "ok.cpp")])
        .exit_code
        == 0
    )


def test_convert_hook_fails_the_commit_converts_and_the_retry_passes(
    tmp_path: Path, home: Path, hooks_repo: tuple[Path, str]
) -> None:
    env = _env(home)
    project = _project(tmp_path / "project", env, ["hipify-py"], hooks_repo)
    (project / "k.cu").write_bytes(CUDA)
    (project / "done.cpp").write_bytes(HIP)
    (project / "notes.txt").write_bytes(b"cudaMalloc stays in text files\n")
    _git(project, env, "add", "k.cu", "done.cpp", "notes.txt")
    first = _run(["git", "commit", "-q", "-m", "add kernel"], project, env)
    assert first.returncode != 0, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout + first.stderr
    assert (project / "k.cu").read_bytes() == HIP
    assert (project / "notes.txt").read_bytes() == b"cudaMalloc stays in text files\n"
    _git(project, env, "add", "k.cu")
    second = _run(["git", "commit", "-q", "-m", "add kernel"], project, env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert _git(project, env, "show", "HEAD:k.cu").encode() == HIP


def test_check_hook_fails_with_a_diff_and_passes_on_hip(
    tmp_path: Path, home: Path, hooks_repo: tuple[Path, str]
) -> None:
    env = _env(home)
    project = _project(tmp_path / "project", env, ["hipify-py-check"], hooks_repo)
    (project / "k.cpp").write_bytes(CUDA)
    _git(project, env, "add", "k.cpp")
    failed = _run(["git", "commit", "-q", "-m", "cuda sneaks in"], project, env)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0, output
    assert "-  cudaMalloc(p, 16);" in output and "+  hipMalloc(p, 16);" in output
    assert (project / "k.cpp").read_bytes() == CUDA  # the check writes nothing
    (project / "k.cpp").write_bytes(HIP)
    _git(project, env, "add", "k.cpp")
    passed = _run(["git", "commit", "-q", "-m", "hip only"], project, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_check_hook_only_looks_at_configured_hip_sources(
    tmp_path: Path, home: Path, hooks_repo: tuple[Path, str]
) -> None:
    env = _env(home)
    project = _project(tmp_path / "project", env, ["hipify-py-check"], hooks_repo)
    (project / ".hipify-py.toml").write_text('hip-sources = ["hip/*"]\n')
    (project / "cuda").mkdir()
    (project / "cuda" / "k.cu").write_bytes(CUDA)  # the CUDA original may stay CUDA
    _git(project, env, "add", ".hipify-py.toml", "cuda/k.cu")
    ok = _run(["git", "commit", "-q", "-m", "cuda side"], project, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (project / "hip").mkdir()
    (project / "hip" / "k.cpp").write_bytes(CUDA)
    _git(project, env, "add", "hip/k.cpp")
    bad = _run(["git", "commit", "-q", "-m", "hip side"], project, env)
    assert bad.returncode != 0 and "+++ b/hip/k.cpp" in bad.stdout + bad.stderr


def test_try_repo(tmp_path: Path, home: Path, hooks_repo: tuple[Path, str]) -> None:
    """`pre-commit try-repo`, as the issue asks: exit 1 and the file converted."""
    env = _env(home)
    project = _project(tmp_path / "project", env, None, hooks_repo)
    (project / "k.cu").write_bytes(CUDA)
    _git(project, env, "add", "k.cu")
    repo, _ = hooks_repo
    tried = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), "hipify-py", "--files", "k.cu"],
        project,
        env,
    )
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert "hipify-py (convert CUDA to HIP)" in tried.stdout
    assert (project / "k.cu").read_bytes() == HIP


def test_convert_hook_leaves_configured_excludes_alone(
    tmp_path: Path, home: Path, hooks_repo: tuple[Path, str]
) -> None:
    """pre-commit names every staged file; the project's `exclude` still applies (--force-exclude)."""
    env = _env(home)
    project = _project(tmp_path / "project", env, ["hipify-py"], hooks_repo)
    (project / ".hipify-py.toml").write_text('exclude = ["vendor"]\n')
    (project / "vendor").mkdir()
    (project / "vendor" / "k.cu").write_bytes(CUDA)  # vendored CUDA code stays as it is
    _git(project, env, "add", ".hipify-py.toml", "vendor/k.cu")
    ok = _run(["git", "commit", "-q", "-m", "vendor"], project, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert (project / "vendor" / "k.cu").read_bytes() == CUDA
