"""What the probe scripts share: the probed HIP's version and headers, and writing (or --check-ing) a table.

A hipcc is either the host's (`/usr/bin/hipcc`, headers in /usr/include) or a toolchain wrapper made
by scripts/provision_rocm.py (`<prefix>/bin/hipcc` that runs a chroot's hipcc, `<prefix>/include`
its headers): either way the headers are `<prefix>/include`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path


def include_root(hipcc: str) -> Path:
    """The include root of the HIP that `hipcc` compiles against: `<prefix>/include`.

    The path as given first (a wrapper's prefix is its own), then with symlinks resolved (a hipcc
    linked from bin/ to the ROCm tree)."""
    found = shutil.which(hipcc) or hipcc
    for path in (Path(found).absolute(), Path(found).resolve()):
        include = path.parent.parent / "include"
        if (include / "hip" / "hip_version.h").is_file():
            return include
    raise SystemExit(f"{hipcc}: no <prefix>/include/hip/hip_version.h beside it (not a HIP install)")


def header_version(include: Path) -> str | None:
    """`major.minor` from hip/hip_version.h under an include root; None when unreadable."""
    try:
        text = (include / "hip" / "hip_version.h").read_text()
    except OSError:
        return None
    parts = dict(re.findall(r"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)", text))
    return f"{parts['MAJOR']}.{parts['MINOR']}" if len(parts) == 2 else None


def hip_version(hipcc: str) -> str:
    """The HIP major.minor `hipcc` compiles for: its headers' hip_version.h, else `hipcc --version`
    (whose stderr may hold a traceback from rocm_agent_enumerator; only stdout is read)."""
    try:
        version = header_version(include_root(hipcc))
    except SystemExit:
        version = None
    if version is not None:
        return version
    text = subprocess.run([hipcc, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"HIP version: (\d+)\.(\d+)", text)
    if m is None:
        raise SystemExit("cannot tell the HIP version from hipcc --version")
    return f"{m.group(1)}.{m.group(2)}"


def run_built(hipcc: str) -> list[str]:
    """The command prefix that runs a host program `hipcc` built: nothing for the host's hipcc; for a
    chroot toolchain, the chroot's own dynamic loader and libraries (its libstdc++ and libamdhip64
    are newer than the host's, and running it inside the chroot would need the wrapper's mounts)."""
    root = include_root(hipcc).resolve().parent.parent
    if root == Path("/"):
        return []
    lib = root / "usr/lib/x86_64-linux-gnu"
    return [str(lib / "ld-linux-x86-64.so.2"), "--library-path", f"{lib}:{root / 'lib/x86_64-linux-gnu'}"]


def _package_version(root: Path, package: str) -> str | None:
    try:
        status = (root / "var/lib/dpkg/status").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(rf"^Package: {re.escape(package)}\n(?:[^\n]+\n)*?Version: (\S+)", status, re.M)
    return m.group(1) if m else None


def probed_with(hipcc: str) -> str:
    """Where a table's facts come from, for its header comment: the HIP package and the system it
    belongs to (the host, or the chroot a toolchain wrapper runs), e.g. "Debian's ROCm 6.4.3 hipcc
    (libamdhip64-dev 6.4.3-5, Debian GNU/Linux forky/sid chroot)"."""
    include = include_root(hipcc)
    root = include.resolve().parent.parent  # why: the system the headers belong to ("/" on the host)
    package = _package_version(root, "libamdhip64-dev")
    if package is None:
        return f"the HIP {hip_version(hipcc)} hipcc at {hipcc}"
    upstream = package.split(":")[-1].split("-")[0].split("+")[0]
    release = "HIP" if upstream.startswith("5.") else "ROCm"  # why: Debian 12 ships HIP alone
    try:
        system = re.search(r'^PRETTY_NAME="?([^"\n]*)', (root / "etc/os-release").read_text(), re.M)
    except OSError:
        system = None
    where = (system.group(1) if system else "Debian") + ("" if root == Path("/") else " chroot")
    return f"Debian's {release} {upstream} hipcc (libamdhip64-dev {package}, {where})"


_HIP_ERROR = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)
_NVCC_ERROR = re.compile(r"^probe\.cu\((\d+)\): error", re.MULTILINE)


def host_only_failures(hipcc: str, nvcc: str, hip_source: str, cuda_source: str, lines: set[int]) -> set[int]:
    """The probe lines whose host code hipcc rejects and nvcc accepts. Each source is compiled once
    (hipcc: the host side, syntax only; nvcc: a full compile); an error outside `lines` means the probe
    itself is broken (SystemExit with the compiler's output)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "probe.hip").write_text(hip_source)
        (Path(tmp) / "probe.cu").write_text(cuda_source)
        cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "--cuda-host-only"]
        cmd += ["-fsyntax-only", "-ferror-limit=0", "-w", "probe.hip"]
        env = dict(os.environ, HIP_PLATFORM="amd")
        hip = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, env=env).stderr
        nvcc_cmd = [nvcc, "-std=c++17", "-c", "probe.cu", "-o", os.devnull]
        done = subprocess.run(nvcc_cmd, cwd=tmp, capture_output=True, text=True)
        cuda = done.stdout + done.stderr
    hip_failing = {int(m.group(1)) for m in _HIP_ERROR.finditer(hip)}
    cuda_failing = {int(m.group(1)) for m in _NVCC_ERROR.finditer(cuda)}
    for failing, out in ((hip_failing, hip), (cuda_failing, cuda)):
        if failing - lines:
            raise SystemExit(f"probe failed outside the calls ({sorted(failing - lines)}):\n{out[-3000:]}")
    return hip_failing - cuda_failing


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
