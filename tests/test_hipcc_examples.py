"""Translate every portable example and compile it with the real HIP compiler (gfx90a)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hipify_py.translate import translate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PORTABLE = sorted(p for p in EXAMPLES.glob("*/*.cu") if p.parent.name != "pitfalls")
HIPCC = shutil.which("hipcc")


@pytest.mark.skipif(HIPCC is None and not os.environ.get("CI"), reason="hipcc not installed (CI installs it)")
@pytest.mark.parametrize("example", PORTABLE, ids=[p.parent.name for p in PORTABLE])
def test_example_compiles_with_hipcc(example: Path, tmp_path: Path) -> None:
    assert HIPCC is not None, "CI must have hipcc"
    out_dir = tmp_path / example.parent.name
    out_dir.mkdir()
    for src in example.parent.iterdir():
        if src.suffix in (".cu", ".cuh", ".h"):
            (out_dir / src.name).write_bytes(translate(src.read_bytes()).text)
    env = dict(os.environ, HIP_PLATFORM="amd")
    proc = subprocess.run(
        [HIPCC, "--offload-arch=gfx90a", "-c", str(out_dir / example.name), "-o", str(tmp_path / "x.o")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_examples_idempotent() -> None:
    for src in EXAMPLES.rglob("*.cu*"):
        once = translate(src.read_bytes()).text
        assert translate(once).text == once, src
