"""scripts/provision_rocm.py: what it reads from the host, what it refuses, and the wrapper it writes
(compiling from folders the chroot has its own copy of)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import load_script
from toolchains import PRESENT, Toolchain, syntax_check

provision = load_script("provision_rocm")


def test_host_mirror_from_deb822_and_one_line_sources(tmp_path: Path) -> None:
    deb822 = tmp_path / "debian.sources"
    deb822.write_text("Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n")
    one_line = tmp_path / "sources.list"
    one_line.write_text("# comment\ndeb [arch=amd64] http://other.example/debian/ bookworm main\n")
    security = tmp_path / "security.sources"
    security.write_text("Types: deb\nURIs: http://mirror.example/debian-security\n")
    assert provision.host_mirror([security, deb822]) == "http://mirror.example/debian"
    assert provision.host_mirror([one_line]) == "http://other.example/debian"
    assert provision.host_mirror([security]) is None


def test_refuses_without_root(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(provision.os, "geteuid", lambda: 1000)
    assert provision.main(["--root", "/nonexistent"]) == 2
    assert "needs root" in capsys.readouterr().err


def test_status_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert provision.main(["--root", str(tmp_path), "--status"]) == 0
    out = capsys.readouterr().out
    assert "rocm-6.4: absent" in out and "rocm-7.2: absent" in out
    assert list(tmp_path.iterdir()) == []


def test_stamp_follows_packages_and_mirror() -> None:
    chain = provision.TOOLCHAINS[0]
    assert provision.stamp_of(chain, "http://a/debian") != provision.stamp_of(chain, "http://b/debian")
    assert provision.stamp_of(chain, "http://a/debian") == provision.stamp_of(chain, "http://a/debian")


CHROOTS = [t for t in PRESENT if t.hipcc is not None and "/hip-" in t.hipcc]


@pytest.mark.skipif(not CHROOTS, reason="no ROCm chroot toolchain here (scripts/provision_rocm.py)")
@pytest.mark.parametrize("chain", CHROOTS, ids=[t.id for t in CHROOTS])
def test_wrapper_compiles_from_a_folder_the_chroot_also_has(chain: Toolchain) -> None:
    """/var exists in the chroot too: a project under it is mounted alone, at the same path."""
    assert chain.hipcc is not None
    base = Path("/var/tmp")
    if not base.is_dir() or shutil.which("unshare") is None:
        pytest.skip("no /var/tmp or unshare here")
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        src = Path(tmp) / "k.hip"
        (Path(tmp) / "local.h").write_text("#define SCALE 2.0f\n")
        kernel = "__global__ void k(float* p) { p[0] *= SCALE; }\n"
        src.write_text('#include <hip/hip_runtime.h>\n#include "local.h"\n' + kernel)
        proc = syntax_check(chain.hipcc, src)
    assert proc.returncode == 0, proc.stderr[-2000:]
