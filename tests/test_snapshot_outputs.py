"""scripts/snapshot_outputs.py: `--texts` writes the output texts under its folder, never over the inputs
(a folder given by its absolute path gives absolute labels)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_texts_go_under_their_folder_for_absolute_inputs(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    source = b"#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n"
    (tree / "a.cu").write_bytes(source)
    texts = tmp_path / "texts"
    cmd = [sys.executable, str(ROOT / "scripts" / "snapshot_outputs.py"), "--code", str(ROOT)]
    cmd += ["--hip-version", "7.2", "-o", str(tmp_path / "d.digest"), "--texts", str(texts), str(tree)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tree / "a.cu").read_bytes() == source
    written = list(texts.rglob("a.cu"))
    assert len(written) == 1 and b"hipDeviceSynchronize" in written[0].read_bytes()
