"""The artifact users install: the sdist and the wheel built from it, installed into a clean venv.

Every test before this one ran the editable checkout, so a module left out of the wheel went unseen
(`hipify_py.verify`, issue 21). One session fixture builds the sdist from a copy of the working tree
(tracked and untracked, not ignored), the wheel from that sdist as `pip` does for a user, and a
virtualenv outside the checkout with the wheel and its dependencies from the package index; the tests
then run `hipify-py` from a directory outside the checkout. Without a reachable index the build cannot
fetch its build dependencies and these tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import EXAMPLES, REPO
from test_precommit import CUDA, HIP, OFFLINE_MARKS, _env, _git, _run

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git to list the working tree"),
]

TINY_CUDA = (
    "#include <cuda_runtime.h>\n"
    "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
    "int main() { float* d; cudaMalloc(&d, 64); k<<<1, 16>>>(d); cudaFree(d); return 0; }\n"
)


class Built(NamedTuple):
    src: Path  # the copy of the working tree the sdist was built from
    sdist: Path
    wheel: Path
    bin: Path  # the venv's bin/ (python, hipify-py)


def worktree_files(repo: Path) -> list[str]:
    """What git would commit from `repo`: tracked and untracked files, not the ignored ones."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [name for name in listed.split("\0") if name and (repo / name).is_file()]


def copy_worktree(repo: Path, dest: Path) -> Path:
    for name in worktree_files(repo):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, dest / name)
    return dest


def run(
    cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def checked(proc: subprocess.CompletedProcess[str], what: str) -> subprocess.CompletedProcess[str]:
    """`proc` when it succeeded; a skip when it failed only for want of the package index."""
    output = proc.stdout + proc.stderr
    if proc.returncode != 0 and any(mark in output for mark in OFFLINE_MARKS):
        pytest.skip(f"{what}: no package index reachable for the build or install dependencies")
    assert proc.returncode == 0, f"{what} failed:\n{output}"
    return proc


def build_sdist(src: Path, dist: Path) -> Path:
    """PEP 517's build_sdist, as `python -m build --sdist` calls it (build is not a dependency)."""
    code = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    name = checked(run([sys.executable, "-c", code, dist], src), "building the sdist").stdout.split()[-1]
    return dist / name


def build_wheel(sdist: Path, dist: Path) -> Path:
    """The wheel pip builds from the sdist for a user (isolated build: pyproject's build requirements)."""
    checked(
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, sdist], dist),
        "building the wheel",
    )
    (wheel,) = dist.glob("*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A clean virtualenv (no system site-packages) with the wheel and its dependencies."""
    checked(run([sys.executable, "-m", "venv", venv], venv.parent), "creating the venv")
    checked(run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], venv.parent), "installing")
    return venv / "bin"


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the working tree cannot be listed")
    root = tmp_path_factory.mktemp("packaging")
    src = copy_worktree(REPO, root / "src")
    dist = root / "dist"
    dist.mkdir()
    sdist = build_sdist(src, dist)
    wheel = build_wheel(sdist, dist)
    return Built(src, sdist, wheel, install(wheel, root / "venv"))


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def expected_in_wheel(src: Path) -> set[str]:
    """Every module of hipify_py/ and every mapping table, at the path an installed package has them."""
    modules = {p.relative_to(src).as_posix() for p in (src / "hipify_py").rglob("*.py")}
    tables = {
        f"hipify_py/mappings_data/{p.relative_to(src / 'mappings').as_posix()}"
        for p in (src / "mappings").rglob("*.yaml")
    }
    return modules | tables


def missing_from_wheel(src: Path, wheel: Path) -> list[str]:
    return sorted(expected_in_wheel(src) - wheel_names(wheel))


def hipify(built: Built, *args: str | Path, cwd: Path, cache: Path | str) -> subprocess.CompletedProcess[str]:
    """The installed `hipify-py`, run from `cwd` (outside the checkout) with its own cache directory."""
    env = {**os.environ, "HIPIFY_PY_CACHE_DIR": str(cache)}
    env.pop("PYTHONPATH", None)
    return run([built.bin / "hipify-py", *args], cwd, env)


def checkout(*args: str | Path, cwd: Path, cache: Path | str) -> subprocess.CompletedProcess[str]:
    """The same command from this checkout's code, in a subprocess too."""
    env = {**os.environ, "HIPIFY_PY_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    return run([sys.executable, "-m", "hipify_py", *args], cwd, env)


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- what the artifacts hold ------------------------------------------------------------------------


def test_wheel_has_every_module_and_table(built: Built) -> None:
    assert missing_from_wheel(built.src, built.wheel) == []
    names = wheel_names(built.wheel)
    assert "hipify_py/verify/__init__.py" in names  # the package a hand-kept list once left out
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "mappings/"))]


def test_wheel_ships_the_tables_built_at_build_time(built: Built) -> None:
    prebuilt = [n for n in wheel_names(built.wheel) if n.startswith("hipify_py/mappings_data/prebuilt/")]
    kinds = {Path(n).name.rsplit("-", 1)[0] for n in prebuilt}
    assert {"tables", "call-table", "hip-identifiers", "library-headers", "latest-hip-version"} <= kinds
    assert any(n.endswith(".marshal") and "/regex-" in n for n in prebuilt)
    assert "hipify_py/mappings_data/prebuilt/code-stamp" in prebuilt  # read instead of stat-ing the package


def test_two_builds_ship_the_same_bytes(built: Built, tmp_path: Path) -> None:
    """The prebuilt tables are reproducible (pickled sets in a fixed order): a rebuild changes nothing."""
    again = build_wheel(built.sdist, tmp_path)
    with zipfile.ZipFile(built.wheel) as first, zipfile.ZipFile(again) as second:
        names = [n for n in first.namelist() if "/prebuilt/" in n]
        assert names == [n for n in second.namelist() if "/prebuilt/" in n]
        assert [n for n in names if first.read(n) != second.read(n)] == []


def test_sdist_builds_everything_the_wheel_needs(built: Built) -> None:
    with tarfile.open(built.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"setup.py", "pyproject.toml", "hipify_py/verify/__init__.py"} <= names
    tables = {p.relative_to(built.src).as_posix() for p in (built.src / "mappings").rglob("*.yaml")}
    assert tables and tables <= names, sorted(tables - names)


# -- the installed command ----------------------------------------------------------------------------


def test_version_is_the_installed_distribution_version(built: Built, tmp_path: Path) -> None:
    code = "import importlib.metadata as m, hipify_py; print(m.version('hipify-py'), hipify_py.__version__)"
    metadata, module = checked(
        run([built.bin / "python", "-c", code], tmp_path), "reading the version"
    ).stdout.split()
    shown = hipify(built, "--version", cwd=tmp_path, cache=tmp_path / "cache")
    assert shown.returncode == 0 and shown.stdout.strip() == f"hipify-py, version {metadata}"
    assert metadata == module
    (tmp_path / "k.cu").write_text(TINY_CUDA)
    reports = ["--report", "r.json", "--report", "r.sarif"]
    hipify(built, "convert", "k.cu", "--check", *reports, cwd=tmp_path, cache=tmp_path / "cache")
    assert json.loads((tmp_path / "r.json").read_text())["tool"]["version"] == metadata
    (sarif_run,) = json.loads((tmp_path / "r.sarif").read_text())["runs"]
    assert sarif_run["tool"]["driver"]["version"] == metadata


def test_readme_command_matches_the_checkout_and_builds_no_table(built: Built, tmp_path: Path) -> None:
    """`hipify-py convert examples -o build/hip` (README), from a fresh install with an empty cache."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    cache = tmp_path / "cache"
    installed = hipify(built, "convert", "examples", "-o", "build/hip", cwd=tmp_path, cache=cache)
    assert installed.returncode == 0, installed.stderr
    assert "Traceback" not in installed.stderr
    source = checkout("convert", "examples", "-o", "build/ref", cwd=tmp_path, cache=tmp_path / "ref-cache")
    outputs = tree_bytes(tmp_path / "build" / "hip")
    assert outputs and outputs == tree_bytes(tmp_path / "build" / "ref")
    assert installed.stdout == source.stdout.replace("build/ref", "build/hip")
    # nothing rebuilt from YAML: every table this run loaded came with the wheel
    assert not (cache / "derived").exists() and not list(cache.glob("mappings-*.marshal"))


def oldest_python() -> tuple[str, Path | None]:
    """The oldest Python `requires-python` admits ("3.10"), and an interpreter of it: on PATH, or one
    pyenv installed (its shims answer only for the versions it has enabled)."""
    import re

    minimum = re.search(r'requires-python = ">=(\d+\.\d+)"', (REPO / "pyproject.toml").read_text())
    assert minimum is not None, "pyproject.toml states requires-python"
    version = minimum.group(1)
    found = [Path(p) for p in [shutil.which(f"python{version}")] if p]
    pyenv = shutil.which("pyenv")
    if pyenv is not None:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False).stdout.strip()
        found += sorted(Path(root or "/nonexistent").glob(f"versions/{version}.*/bin/python{version}"))
    for python in found:
        if subprocess.run([python, "-c", "import venv"], capture_output=True, check=False).returncode == 0:
            return version, python
    return version, None


def test_oldest_supported_python_runs_the_wheel(built: Built, tmp_path: Path) -> None:
    """The wheel on the oldest Python it claims: README's command, a configuration file (tomllib came in
    3.11) and a macro body the lexer scans (possessive quantifiers came in 3.11) give what the checkout
    gives. Python 3.10 crashed on the last two before this test."""
    version, python = oldest_python()
    if python is None:
        pytest.skip(f"no Python {version} here (requires-python's minimum): PATH and pyenv have none")
    venv = tmp_path / "venv"
    checked(run([python, "-m", "venv", venv], tmp_path), f"creating a Python {version} venv")
    checked(run([venv / "bin" / "python", "-m", "pip", "install", "-q", built.wheel], tmp_path), "installing")
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    (tmp_path / "examples" / "macro.cu").write_text(
        "#define ALLOC(p, n) cudaMalloc(&(p), (n)) /* cudaFree in a comment */\n" + TINY_CUDA
    )
    (tmp_path / ".hipify-py.toml").write_text('hip-version = "6.4"\n')
    env = {**os.environ, "HIPIFY_PY_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    old = run([venv / "bin" / "hipify-py", "convert", "examples", "-o", "build/old"], tmp_path, env)
    assert old.returncode == 0 and "Traceback" not in old.stderr, old.stderr
    reference = checkout("convert", "examples", "-o", "build/ref", cwd=tmp_path, cache=tmp_path / "ref-cache")
    outputs = tree_bytes(tmp_path / "build" / "old")
    assert outputs and outputs == tree_bytes(tmp_path / "build" / "ref")
    assert b"hipMalloc(&(p), (n)) /* cudaFree in a comment */" in outputs["macro.cu"]
    assert old.stdout == reference.stdout.replace("build/ref", "build/old")


def prebuilt_targets(built: Built, cwd: Path) -> list[str]:
    """The HIP versions the installed wheel's tables were built for (asked of the installed code)."""
    code = (
        "from hipify_py.data.mappings import probed_dir, shipped_latest_version as latest\n"
        "from hipify_py.run.prebuild import probed_versions\n"
        "print(*sorted({latest(), *probed_versions(probed_dir())}))"
    )
    return checked(run([built.bin / "python", "-c", code], cwd), "listing the targets").stdout.split()


def test_prebuilt_targets_build_nothing(built: Built, tmp_path: Path) -> None:
    """Each target the wheel prebuilds (a probed HIP, the tables' latest) finds every table it loads."""
    (tmp_path / "k.cu").write_text(TINY_CUDA)
    targets = prebuilt_targets(built, tmp_path)
    assert len(targets) >= 2
    for target in targets:
        cache = tmp_path / f"cache-{target}"
        done = hipify(built, "convert", "k.cu", "--check", "--hip-version", target, cwd=tmp_path, cache=cache)
        assert done.returncode == 1 and "would convert k.cu" in done.stdout + done.stderr, done.stderr
        assert not (cache / "derived").exists(), (
            target,
            sorted(p.name for p in (cache / "derived").iterdir()),
        )


@pytest.mark.hipcc
@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc not installed (CI installs Debian's)")
def test_verify_runs_from_the_installed_package(built: Built, tmp_path: Path) -> None:
    (tmp_path / "x.cu").write_text(TINY_CUDA)
    done = hipify(built, "convert", "x.cu", "--check", "--verify", cwd=tmp_path, cache=tmp_path / "cache")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr  # --check: the file would change
    assert "translation units compiled: 1/1" in done.stdout + done.stderr


def program(kind: str, request: pytest.FixtureRequest) -> tuple[list[str], dict[str, str]]:
    """The command and environment of the installed package (built once) or of this checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("HIPIFY_PY_CACHE_DIR", "XDG_CACHE_HOME")}
    if kind == "checkout":
        return [sys.executable, "-m", "hipify_py"], {**env, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONPATH", None)
    return [str(request.getfixturevalue("built").bin / "hipify-py")], env


@pytest.mark.parametrize("kind", ["checkout", "installed"])
@pytest.mark.parametrize("where", ["cache dir under a file", "home under a file"])
def test_unwritable_cache_is_quiet_and_gives_the_same_result(
    request: pytest.FixtureRequest, tmp_path: Path, kind: str, where: str
) -> None:
    """A cache directory that cannot be created (a path under a regular file: root ignores file modes,
    this fails for everyone) gives the same files and the same messages as a run with a cache."""
    command, env = program(kind, request)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory\n")
    blocked_env = {**env, "HOME": str(blocker / "home")}
    if where == "cache dir under a file":
        blocked_env = {**env, "HIPIFY_PY_CACHE_DIR": str(blocker / "cache")}
    usual_env = {**env, "HIPIFY_PY_CACHE_DIR": str(tmp_path / "cache")}
    blocked_dir, usual_dir = tmp_path / "blocked", tmp_path / "usual"
    for folder in (blocked_dir, usual_dir):
        shutil.copytree(EXAMPLES, folder / "examples")
        (folder / "k.cu").write_text(TINY_CUDA)
    runs = [["examples", "--check", "--diff"], ["examples", "-o", "out", "-j", "2"]]
    runs += [runs[-1]]  # a re-run, which a cache would have served
    runs += [["k.cu", "--check", "--verify"]] if shutil.which("hipcc") else []
    for args in runs:
        blocked = run([*command, "convert", *args], blocked_dir, blocked_env)
        usual = run([*command, "convert", *args], usual_dir, usual_env)
        assert "Traceback" not in blocked.stderr, blocked.stderr
        assert (blocked.returncode, blocked.stdout, blocked.stderr) == (
            usual.returncode,
            usual.stdout,
            usual.stderr,
        ), args
    assert tree_bytes(blocked_dir / "out") == tree_bytes(usual_dir / "out") != {}
    assert blocker.read_text() == "a file, not a directory\n"


def test_precommit_hook_from_the_package_pip_builds(built: Built, tmp_path: Path) -> None:
    """`pre-commit try-repo` on a git repository of the sources: pre-commit pip-installs it (not
    editable) into its own environment, which must hold every module and the prebuilt tables."""
    env = _env(tmp_path / "pre-commit-home")
    hooks = shutil.copytree(built.src, tmp_path / "hooks")
    _git(hooks, env, "init", "-q")
    _git(hooks, env, "add", "-A")
    _git(hooks, env, "commit", "-q", "-m", "snapshot")
    project = tmp_path / "project"
    project.mkdir()
    _git(project, env, "init", "-q")
    (project / "k.cu").write_bytes(CUDA)
    _git(project, env, "add", "k.cu")
    tried = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "hipify-py", "--files", "k.cu"],
        project,
        env,
    )
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert (project / "k.cu").read_bytes() == HIP
    # try-repo's environment is gone when it returns: the same install, kept, to look inside
    rev = _git(hooks, env, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": str(hooks), "rev": rev, "hooks": [{"id": "hipify-py"}]}]}
    (project / ".pre-commit-config.yaml").write_text(json.dumps(config))  # YAML is a superset of JSON
    kept = _run([sys.executable, "-m", "pre_commit", "install-hooks"], project, env)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    installed = [
        p.parent for p in (tmp_path / "pre-commit-home").rglob("site-packages/hipify_py/__init__.py")
    ]
    assert installed, "pre-commit's environment has no hipify_py"
    assert (installed[0] / "verify" / "__init__.py").is_file()
    assert (installed[0] / "mappings_data" / "prebuilt").is_dir()
