"""The real HIP compilers the compile tests run: the host's hipcc (Debian 12's HIP 5.2) and the ROCm
6.4 / 7.2 chroots made by scripts/provision_rocm.py (`$HIPIFY_PY_TOOLCHAINS/hip-X.Y/bin/hipcc`).

Every target is a test parameter; one that is absent is skipped with the reason, except under CI
(`CI` set), where `.ci/run` provisions all three and an absent one fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

import pytest

from hipify_py.data.target import parse_version_header, short_version

TOOLCHAIN_ROOT = Path(os.environ.get("HIPIFY_PY_TOOLCHAINS") or "/var/cache/hipify-py/toolchains")
# The releases users run and where each comes from; the key is the HIP major.minor.
TARGETS = {
    "5.2": "Debian 12's hipcc on the host",
    "6.4": "Debian sid chroot",
    "7.2": "Debian experimental chroot",
}
CHROOTS = frozenset({"6.4", "7.2"})  # made by scripts/provision_rocm.py; a test of one is in the `rocm` tier


class Toolchain(NamedTuple):
    version: str  # "6.4"
    hipcc: str | None  # None: absent here
    include: Path | None  # the headers it compiles against

    @property
    def id(self) -> str:
        return f"hip{self.version}"

    @property
    def chroot(self) -> bool:
        return self.version in CHROOTS


def _header_version(include: Path) -> str | None:
    try:
        full = parse_version_header((include / "hip" / "hip_version.h").read_bytes())
    except OSError:
        return None
    return short_version(full) if full else None


def _find(version: str) -> Toolchain:
    prefix = TOOLCHAIN_ROOT / f"hip-{version}"
    if (prefix / "bin" / "hipcc").is_file() and _header_version(prefix / "include") == version:
        return Toolchain(version, str(prefix / "bin" / "hipcc"), prefix / "include")
    host = shutil.which("hipcc")
    if host is not None:
        include = Path(host).resolve().parent.parent / "include"
        if _header_version(include) == version:
            return Toolchain(version, host, include)
    return Toolchain(version, None, None)


TOOLCHAINS = [_find(v) for v in TARGETS]
# The running test (set by conftest's autouse fixture): require() checks it carries the `hipcc` marker
# (and `rocm` for a chroot), so a compile test cannot slip into a tier that leaves it out.
CURRENT_TEST: ContextVar[pytest.Item | None] = ContextVar("CURRENT_TEST", default=None)
PRESENT = [t for t in TOOLCHAINS if t.hipcc is not None]


def require(chain: Toolchain) -> str:
    """The toolchain's hipcc; skip (fail under CI) when it is absent."""
    item = CURRENT_TEST.get()
    if item is not None and item.get_closest_marker("hipcc") is None:
        pytest.fail(f"{item.nodeid} runs hipcc: mark it @pytest.mark.hipcc (or parametrize it with params())")
    if item is not None and chain.chroot and item.get_closest_marker("rocm") is None:
        pytest.fail(f"{item.nodeid} runs the ROCm {chain.version} chroot: mark it @pytest.mark.rocm")
    if chain.hipcc is None:
        why = f"HIP {chain.version} ({TARGETS[chain.version]}) is not here: run scripts/provision_rocm.py"
        if os.environ.get("CI"):
            pytest.fail(why + " (CI provisions every target)")
        pytest.skip(why)
    return chain.hipcc


def by_version(version: str) -> Toolchain:
    return next(t for t in TOOLCHAINS if t.version == version)


def params() -> list:
    """TOOLCHAINS as pytest parameters with readable ids."""
    return [pytest.param(t, id=t.id) for t in TOOLCHAINS]


def marks(version: str) -> list[pytest.MarkDecorator]:
    """The tier markers of a test parameter that compiles with the release `version`."""
    return [pytest.mark.hipcc, *([pytest.mark.rocm] if version in CHROOTS else [])]


def syntax_check(hipcc: str, path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`hipcc -fsyntax-only` of one HIP file for gfx90a, as the compile tests run it."""
    return subprocess.run(
        [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-x", "hip", *extra, str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, HIP_PLATFORM="amd"),
        cwd=path.parent,
    )


def build_and_run(chain: Toolchain, source: Path, binary: Path) -> subprocess.CompletedProcess[str]:
    """Build a HIP program with the chain's hipcc and run it on the host (its host code: no GPU needed):
    directly for the host's HIP, under chroot for a ROCm chroot's. Asserts that it built."""
    hipcc = require(chain)
    cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", str(source), "-o", str(binary)]
    built = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HIP_PLATFORM="amd"))
    assert built.returncode == 0, built.stderr[-4000:]
    if not chain.chroot:
        return subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    root = TOOLCHAIN_ROOT / f"rocm-{chain.version}"
    if os.geteuid() != 0 or shutil.which("chroot") is None:
        pytest.skip("running a ROCm chroot's binary needs chroot as root")
    inside = Path("/tmp") / f"hipify-py-run-{uuid.uuid4().hex}"
    shutil.copy(binary, root / inside.relative_to("/"))
    try:
        return subprocess.run(["chroot", str(root), str(inside)], capture_output=True, text=True, timeout=60)
    finally:
        (root / inside.relative_to("/")).unlink()


def run_translation(chain: Toolchain, program: bytes, folder: Path, name: str) -> list[str]:
    """Translate a CUDA program for the chain's HIP, build it, run it on the host (build_and_run) and
    return the words it printed; asserts that it ran."""
    from hipify_py.engine.options import Options
    from hipify_py.pipeline.translate import translate

    require(chain)
    source = folder / f"{name}.hip"
    source.write_bytes(translate(program, Options(hip_version=chain.version)).text)
    ran = build_and_run(chain, source, folder / name)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return ran.stdout.split()


NVCC = shutil.which("nvcc")
NEEDS_NVCC = pytest.mark.skipif(NVCC is None, reason="needs nvcc (HIP's NVIDIA platform)")


def nvidia_platform(folder: Path, text: str, *output: str) -> subprocess.CompletedProcess[str]:
    """Compile `text` as hipcc does on HIP's NVIDIA platform (nvcc, __HIP_PLATFORM_NVIDIA__, sm_80) in
    `folder` as nv.cu; `output`: nvcc's output options (`-ptx`, or `-o`, `nv`)."""
    assert NVCC is not None
    (folder / "nv.cu").write_text(text)
    platform = ["-std=c++17", "-D__HIPCC__", "-D__HIP_PLATFORM_NVIDIA__", "-arch=sm_80"]
    return subprocess.run([NVCC, *platform, *output, "nv.cu"], cwd=folder, capture_output=True, text=True)
