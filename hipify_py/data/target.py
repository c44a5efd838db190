"""The target HIP version of a run: one fact, resolved once, passed to the rules in Options.hip_version.

Precedence: --hip-version > configuration file > the installed HIP > the tables' latest version.
The installed HIP is found from the `hipcc` on PATH: the `hip/hip_version.h` beside it (cheap),
else `HIP_PLATFORM=amd hipcc --version` ("HIP version: 5.2.21153-0", ~1 s, so the answer is cached
keyed by the compiler's path, size and mtime). Without hipcc, `hip/hip_version.h` under $ROCM_PATH,
/opt/rocm or /usr. Rules never look for compilers: they read Options.hip_version.
"""

from __future__ import annotations

import marshal
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.util.commands import which
from hipify_py.util.fileio import read_marshal_dict
from hipify_py.util.lazyre import lazy

# Where the version came from (Target.origin); the words users see in summaries and reports.
FROM_OPTION = "option"
FROM_CONFIG = "config"
FROM_INSTALLED = "installed"
FROM_TABLES = "tables"

_HEADER = Path("include") / "hip" / "hip_version.h"
_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+HIP_VERSION_(MAJOR|MINOR|PATCH)[ \t]+(\d+)", re.MULTILINE)
_BANNER = lazy(r"HIP version:\s*(\d+)\.(\d+)(?:\.(\d+))?")
# why marshal, not JSON: every run reads it before its first file, and importing json cost ~1 ms of that
_CACHE_FILE = "hip-version-probe.marshal"


class Installed(NamedTuple):
    version: str  # "5.2"
    full: str  # "5.2.21153"
    where: str  # "hipcc at /usr/bin/hipcc" or "/opt/rocm/include/hip/hip_version.h"


class Target(NamedTuple):
    version: str | None  # "X.Y"; None only when the tables carry no version at all
    origin: str  # FROM_OPTION, FROM_CONFIG, FROM_INSTALLED or FROM_TABLES
    detail: str = ""  # the config file, the installed compiler/header, ...

    @property
    def reason(self) -> str:
        """One phrase saying why, e.g. `installed HIP 5.2.21153 (hipcc at /usr/bin/hipcc)`."""
        if self.origin == FROM_OPTION:
            return "--hip-version"
        if self.origin == FROM_CONFIG:
            return f"configuration {self.detail}" if self.detail else "configuration"
        if self.origin == FROM_INSTALLED:
            return f"installed HIP {self.detail}"
        return "latest HIP in the mapping tables (no HIP installation found)"

    def as_dict(self) -> dict[str, str | None]:
        return {"hip_version": self.version, "origin": self.origin, "reason": self.reason}


def short_version(full: str) -> str:
    major, _, rest = full.partition(".")
    return f"{major}.{rest.partition('.')[0] or '0'}"


def parse_version_header(text: bytes) -> str | None:
    """'5.2.21153' from the #defines of hip_version.h, or None."""
    parts = dict(_DEFINE.findall(text))
    if b"MAJOR" not in parts or b"MINOR" not in parts:
        return None
    numbers = [parts[b"MAJOR"], parts[b"MINOR"], *([parts[b"PATCH"]] if b"PATCH" in parts else [])]
    return ".".join(n.decode() for n in numbers)


def parse_hipcc_banner(text: str) -> str | None:
    """'5.2.21153' from `hipcc --version` output (which may also hold nvcc's banner), or None."""
    m = _BANNER.search(text)
    if m is None:
        return None
    return ".".join(g for g in m.groups() if g is not None)


def _read_header(path: Path) -> str | None:
    try:
        return parse_version_header(path.read_bytes())
    except OSError:
        return None


def _run_hipcc(hipcc: str) -> str | None:
    import subprocess  # why here: runs whose probe answer is cached never start a process

    env = {**os.environ, "HIP_PLATFORM": "amd"}  # why: with nvcc installed, hipcc may report nvcc's banner
    try:
        done = subprocess.run(
            [hipcc, "--version"], capture_output=True, text=True, env=env, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_hipcc_banner(done.stdout + "\n" + done.stderr)


def _probe_compiler(hipcc: Path) -> Installed | None:
    """The HIP version of one hipcc: the header of its own installation, else its banner."""
    prefix = hipcc.parent.parent  # /opt/rocm-6.2.0/bin/hipcc -> /opt/rocm-6.2.0
    full = _read_header(prefix / _HEADER)
    if full is None:
        full = _run_hipcc(str(hipcc))
    if full is None:
        return None
    return Installed(short_version(full), full, f"hipcc at {hipcc}")


def _cached_probe(hipcc: Path, cache_dir: Path | None, probe: bool = True) -> Installed | None:
    """_probe_compiler, remembered per compiler (path, size, mtime) in the cache directory; `probe`
    False: only what is remembered (None when nothing is)."""
    try:
        st = hipcc.stat()
    except OSError:
        return None
    key = f"{hipcc}\0{st.st_size}\0{st.st_mtime_ns}"
    cache_file = cache_dir / _CACHE_FILE if cache_dir is not None else None
    known: dict[str, dict[str, str]] = {}
    if cache_file is not None:
        known = read_marshal_dict(cache_file) or {}
        hit = known.get(key)
        if isinstance(hit, dict) and {"version", "full", "where"} <= hit.keys():
            return Installed(hit["version"], hit["full"], hit["where"])
    if not probe:
        return None
    found = _probe_compiler(hipcc)
    if found is not None and cache_file is not None:
        from hipify_py.util.fileio import atomic_write

        known[key] = {"version": found.version, "full": found.full, "where": found.where}
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            # why not durable: a lost probe answer costs one more probe, an fsync costs every first run ~30 ms
            atomic_write(cache_file, marshal.dumps(known), durable=False)
        except OSError:
            pass  # why: a read-only cache only costs the next run one more probe
    return found


def installed_hip(
    env: Mapping[str, str] | None = None, cache_dir: Path | None = None, probe: bool = True
) -> Installed | None:
    """The HIP a user has: the hipcc on PATH, else a hip_version.h under $ROCM_PATH, /opt/rocm, /usr.
    `probe` False: never run hipcc; None when its answer is not remembered in `cache_dir`."""
    env = os.environ if env is None else env
    found = which("hipcc", path=env.get("PATH", os.defpath))
    if found is not None:
        probed = _cached_probe(Path(os.path.abspath(found)), cache_dir, probe)
        if probed is not None or not probe:
            return probed
    roots = [env.get("ROCM_PATH", ""), env.get("HIP_PATH", ""), "/opt/rocm", "/usr"]
    for root in filter(None, roots):
        header = Path(root) / _HEADER
        full = _read_header(header)
        if full is not None:
            return Installed(short_version(full), full, str(header))
    return None


def resolve_target(
    value: str | None,
    source: str,
    tables_latest: Callable[[], str | None],
    probe: Installed | None = None,
    probed: bool = False,
    cache_dir: Path | None = None,
) -> Target:
    """The run's target from the effective `hip-version` setting and where it came from.

    `source` is the config layer's source of the value ("command line", "default" or a file path).
    `tables_latest` is called only when nothing else decides (loading the tables costs time).
    `probe`/`probed` let callers pass a probe already made (tests pass one; probed=False probes now);
    `cache_dir` keeps the probe's answer (None: probe every time, as with --no-cache).
    """
    if value:
        if source == "command line":
            return Target(value, FROM_OPTION)
        return Target(value, FROM_CONFIG, source if source != "default" else "")
    installed = probe if probed else installed_hip(cache_dir=cache_dir)
    if installed is not None:
        return Target(installed.version, FROM_INSTALLED, f"{installed.full} ({installed.where})")
    return Target(tables_latest(), FROM_TABLES)
