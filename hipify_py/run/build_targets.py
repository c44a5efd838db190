"""What translated build files target: the AMD GPUs (and why those), and the lowest C++ standard the
target release's ROCm library headers accept. Decided once per run, only when build files are converted.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hipify_py.util.lazyre import lazy

# the tools ROCm (rocminfo) and LLVM (amdgpu-arch) ship to list the machine's GPUs, one gfx name a line
DETECTORS = ("rocm_agent_enumerator", "amdgpu-arch")


_GFX = lazy(r"gfx[0-9a-f]+(?::[\w+-]+)*")


def split_targets(values: Sequence[str]) -> tuple[str, ...]:
    """`--offload-arch gfx90a,gfx942 --offload-arch gfx1100` -> (gfx90a, gfx942, gfx1100), in order."""
    out: list[str] = []
    for value in values:
        out += [v.strip() for v in str(value).split(",") if v.strip() and v.strip() not in out]
    return tuple(out)


def _tool_paths(name: str) -> list[str]:
    from hipify_py.util.commands import which

    found = which(name)
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    extra = [str(Path(rocm) / "bin" / name), str(Path(rocm) / "llvm" / "bin" / name)]
    return [p for p in [found, *extra] if p and os.access(p, os.X_OK)]


def machine_targets() -> tuple[tuple[str, ...], str]:
    """The AMD GPUs of this machine and the tool that listed them; ((), "") when none answers.

    gfx000 is the CPU agent rocm_agent_enumerator lists first."""
    for name in DETECTORS:
        for path in _tool_paths(name):
            try:
                done = subprocess.run([path], capture_output=True, text=True, timeout=20)
            except (OSError, subprocess.SubprocessError):
                continue
            gpus = [g for g in _GFX.findall(done.stdout) if g != "gfx000"]
            if gpus:
                return split_targets(gpus), name
    return (), ""


def choose_targets(given: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """(targets, why): --offload-arch / the config key, else the machine's GPUs, else the default."""
    from hipify_py.buildfiles.common import DEFAULT_ARCH, DEFAULT_ARCH_REASON

    chosen = split_targets(given)
    if chosen:
        return chosen, "given with --offload-arch (or the offload-arch configuration key)"
    found, tool = machine_targets()
    if found:
        return found, f"the GPU(s) of this machine, as {tool} lists them"
    return (DEFAULT_ARCH,), DEFAULT_ARCH_REASON


PREFIX = "cxx-standard-"


def cxx_requirement(hip_version: str | None, directory: Path | None = None) -> tuple[int, str]:
    """(lowest C++ standard every probed library header of the release accepts, why); (0, "") unknown."""
    from hipify_py.data.versions import read_versioned
    from hipify_py.util.locations import probed_dir

    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    headers = data.get("headers") or {}
    if not headers:
        return 0, ""
    header, row = max(headers.items(), key=lambda kv: (int(kv[1]["min"]), kv[0]))
    need = int(row["min"])
    below = row.get("below", "")
    m = re.search(r'#error\s+"([^"]+)"', below) or re.search(r"error: (.*)", below)
    said = f" ({m.group(1).strip()})" if m else ""
    return need, f"<{header}> of HIP {version} needs at least C++{need}{said}"


def build_options(given: Sequence[str], hip_version: str | None) -> object:
    """The BuildOptions of a run that converts build files."""
    from hipify_py.buildfiles import BuildOptions

    targets, why = choose_targets(given)
    need, reason = cxx_requirement(hip_version)
    return BuildOptions(offload_arch=targets, arch_reason=why, min_cxx_std=need, std_reason=reason)
