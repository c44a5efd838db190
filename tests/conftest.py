from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from toolchains import CURRENT_TEST, Toolchain, require

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
EXAMPLES = REPO / "examples"
sys.path.insert(0, str(REPO))


def _bytecode_outside_the_tree() -> None:
    """Under PYTHONDONTWRITEBYTECODE (set to keep __pycache__ out of a checkout) every test run, and every
    `python -m hipify_py` a test starts, compiled the package again: ~2 s a process on a busy 2-CPU
    machine. The bytecode goes to pytest's cache folder instead (PYTHONPYCACHEPREFIX, for the test
    processes too): still none in the tree, and compiled once."""
    if not sys.dont_write_bytecode or sys.pycache_prefix:
        return
    prefix = str(REPO / ".pytest_cache" / "pycache")
    sys.pycache_prefix, sys.dont_write_bytecode = prefix, False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix


_bytecode_outside_the_tree()


@pytest.fixture(scope="session", autouse=True)
def _private_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The compilers the tests run write their temporary files under the session's folder, which pytest
    prunes, not in /tmp: Debian's hipcc leaves two empty folders in $TMPDIR per compile."""
    folder = tmp_path_factory.mktemp("tmpdir")
    names = ("TMPDIR", "TMP", "TEMP")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(dict.fromkeys(names, str(folder)))
    yield folder
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test parametrized with a toolchain compiles with it: it belongs to the `hipcc` tier, and to the
    `rocm` tier too when the toolchain is a ROCm chroot. Every compile or build test is `slow`."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        chains = [v for v in callspec.params.values() if isinstance(v, Toolchain)] if callspec else []
        if chains:
            item.add_marker(pytest.mark.hipcc)
        if any(chain.chroot for chain in chains):
            item.add_marker(pytest.mark.rocm)
        if any(item.get_closest_marker(name) for name in ("hipcc", "rocm", "wheel")):
            item.add_marker(pytest.mark.slow)  # a compiler or a build: out of the fast tier (`-m "not slow"`)


@pytest.fixture(autouse=True)
def _current_test(request: pytest.FixtureRequest) -> Iterator[None]:
    token = CURRENT_TEST.set(request.node)
    yield
    CURRENT_TEST.reset(token)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def hipcc_path() -> str | None:
    return shutil.which("hipcc")


def load_script(name: str) -> ModuleType:
    """A module of scripts/ (not a package), imported by path; its own imports of siblings work."""
    sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_probe_table(script: str, chain: Toolchain, nvcc: bool = False, cuda_headers: bool = False) -> None:
    """Re-run a probe script in --check mode with a toolchain's hipcc (tests/toolchains.py: skipped
    when absent, failing under CI) against the committed table of its HIP version. `nvcc`,
    `cuda_headers`: the probe needs them too (skipped without)."""
    hipcc = require(chain)
    if nvcc and shutil.which("nvcc") is None:
        pytest.skip("re-probing needs nvcc (what CUDA accepts)")
    if cuda_headers and load_script("probe_calls")._default_cuda_include() is None:
        pytest.skip("re-probing needs CUDA headers (cuda_runtime_api.h)")
    probe = load_script(script)
    out = REPO / "mappings" / "probed" / f"{probe.PREFIX}{chain.version}.yaml"
    assert out.is_file(), f"no committed {out.name}: run scripts/{script}.py --hipcc {hipcc}"
    command = f"scripts/{script}.py --hipcc {hipcc}"
    assert probe.main(["--hipcc", hipcc, "--check", "--out", str(out)]) == 0, f"run {command}"
