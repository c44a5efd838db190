"""What the probe scripts share: the installed HIP's version and writing (or --check-ing) a table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


def hip_version(hipcc: str) -> str:
    text = subprocess.run([hipcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"HIP version: (\d+)\.(\d+)", text)
    if m is None:
        raise SystemExit("cannot tell the HIP version from hipcc --version")
    return f"{m.group(1)}.{m.group(2)}"


def write_or_check(out: Path, text: str, check: bool, script: str, summary: str) -> int:
    """--check: 1 (with a message) when the committed table differs; else write it and say `summary`."""
    if check:
        if not out.is_file() or out.read_text() != text:
            print(f"out of date: {out} (run scripts/{script}.py)", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    print(f"{summary} -> {out}")
    return 0
