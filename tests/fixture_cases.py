"""Discovery of before/after fixture pairs: tests/fixtures/<topic>/<case>.cu -> <case>.hip.

A topic folder may hold `options.yaml` (Options fields for every case in it); `hip_version` defaults
to FIXTURE_HIP_VERSION, never to the machine's HIP. A case may have a
`<case>.diagnostics` file: the exact set of `line:col RULE` diagnostics it must produce (one per
line, `#` comments allowed; an empty file means "no diagnostics at all"); `line:col RULE warning`
also checks the severity, as the CLI reports it when the case is the whole project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from hipify_py.engine.options import Options

FIXTURES = Path(__file__).resolve().parent / "fixtures"
HIPCC = shutil.which("hipcc")


def hipcc_syntax(path: Path) -> subprocess.CompletedProcess[str]:
    """`hipcc -fsyntax-only` of one HIP file for gfx90a, as the compile tests run it."""
    assert HIPCC is not None, "CI must have hipcc"
    return subprocess.run(
        [HIPCC, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-x", "hip", str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, HIP_PLATFORM="amd"),
    )


# Every fixture has a pinned target HIP version so its expected output does not depend on the HIP
# installed where the tests run (the CLI defaults to it). options.yaml may choose another.
FIXTURE_HIP_VERSION = "6.3"
INPUT_SUFFIXES = (".cu", ".cuh", ".cpp", ".h")


@dataclass(frozen=True)
class Case:
    input: Path
    expected: Path
    options: Options
    diagnostics: Path | None

    @property
    def id(self) -> str:
        return self.input.relative_to(FIXTURES).as_posix()


def _options(folder: Path) -> Options:
    file = folder / "options.yaml"
    data = (yaml.safe_load(file.read_text()) or {}) if file.exists() else {}
    data.setdefault("hip_version", FIXTURE_HIP_VERSION)
    for key in ("ignore_rules", "missing_headers"):
        if key in data:
            data[key] = frozenset(data[key])
    return Options(**data)


def cases() -> list[Case]:
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix not in INPUT_SUFFIXES or not path.is_file():
            continue
        expected = path.with_suffix(".hip")
        if not expected.exists():
            continue
        diag = path.with_suffix(".diagnostics")
        found.append(Case(path, expected, _options(path.parent), diag if diag.exists() else None))
    return found


def parse_expected_diagnostics(path: Path) -> set[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {line for line in lines if line}
