"""What pyproject.toml cannot say: which packages ship, and the tables built into the wheel.

- Packages are found, not listed: every package under hipify_py/, plus the top-level mappings/ shipped
  as `hipify_py.mappings_data` with its three folders, generated/, probed/ and hand-kept/ (the installed
  package reads its YAML from there, see `hipify_py.util.locations.mappings_dir`; mappings/README.md).
  A list kept by hand once left `hipify_py.verify` out of the wheel.
- `build_py` also runs `python -m hipify_py.run.prebuild` on the built tree, so a fresh install loads its
  tables from `hipify_py/mappings_data/prebuilt/` instead of parsing YAML on its first run. Not for an
  editable install: there the YAML is meant to be edited, and `hipify_py.data.derived` rebuilds by code stamp.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

MAPPINGS_PACKAGE = "hipify_py.mappings_data"


def packages() -> list[str]:
    return [*find_packages(include=["hipify_py", "hipify_py.*"]), MAPPINGS_PACKAGE]


def prebuild_env(build_lib: str) -> dict[str, str]:
    """The build environment, with the built tree first on the path and no byte-code written into it;
    a fixed hash seed, so pickled sets come out in the same order and two builds ship the same bytes."""
    path = os.pathsep.join(filter(None, [os.path.abspath(build_lib), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


class BuildWithTables(build_py):
    """build_py, then the tables built from the copied YAML into the built package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        out = Path(self.build_lib).resolve().joinpath(*MAPPINGS_PACKAGE.split("."), "prebuilt")
        # why a subprocess run in build_lib: the package must import from the built tree, not this checkout
        command = [sys.executable, "-m", "hipify_py.run.prebuild", str(out)]
        subprocess.run(command, env=prebuild_env(self.build_lib), cwd=self.build_lib, check=True)


setup(
    packages=packages(),
    package_dir={MAPPINGS_PACKAGE: "mappings"},
    package_data={MAPPINGS_PACKAGE: ["generated/*.yaml", "probed/*.yaml", "hand-kept/*.yaml"]},
    cmdclass={"build_py": BuildWithTables},
)
