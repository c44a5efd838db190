#!/usr/bin/env python3
"""Provision the ROCm toolchains users run (6.4 from Debian sid, 7.2 from Debian experimental) in chroots.

    python3 scripts/provision_rocm.py [--root DIR] [--only 6.4,7.2] [--status]

Each toolchain is a minimal Debian chroot (`debootstrap`) with hipcc and the ROCm libraries a CUDA
port needs (hipCUB, rocThrust, hipBLAS, hipFFT, hipSOLVER, hipRAND, hipSPARSE). Next to it, a small
installation prefix the host can use:

    DIR/hip-6.4/bin/hipcc        runs the chroot's hipcc in a private mount namespace in which the
                                 caller's working directory, /tmp and every absolute path on the
                                 command line are bind-mounted at the same place
    DIR/hip-6.4/include          the chroot's /usr/include (hip/hip_version.h, hipcub/, thrust/, ...)

Put `DIR/hip-6.4/bin` first on PATH and hipify-py (and anything else) sees ROCm 6.4 as the installed
HIP. DIR is $HIPIFY_PY_TOOLCHAINS, else /var/cache/hipify-py/toolchains: kept between runs on the same
machine. Every step leaves a stamp, so a second run does nothing (and a run cut off resumes). The Debian
mirror is the host's own (from its apt sources), unless --mirror says otherwise.

Needs root (debootstrap, chroot, mount namespaces) and the network to Debian's archive; says so and
exits 2 when either is missing. `--status` lists what is there (exit 0 even when nothing is).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

DEFAULT_ROOT = Path("/var/cache/hipify-py/toolchains")

# What a port of real CUDA code needs (HeCBench's hand ports use all of these).
PACKAGES = (
    "hipcc",
    "libamdhip64-dev",
    "libhipcub-dev",
    "librocthrust-dev",
    "libhipblas-dev",
    "librocblas-dev",  # projects whose HIP backend calls rocBLAS directly (BLAS++, SLATE); headers only
    "libhiprand-dev",
    "libhipsparse-dev",
    "libhipfft-dev",
    "libhipsolver-dev",
    "librocprim-dev",
    "librocrand-dev",
    "librocsparse-dev",
    # NVML -> ROCm SMI and NVTX -> roctx targets (hipify-py's vendor-libs tables are probed from them)
    "librocm-smi-dev",
    "libroctx-dev",
    # a converted project's own build (benchmarks/build_projects.py, tests/test_buildfiles.py)
    "cmake",
    "make",
    "g++",
)


class Toolchain(NamedTuple):
    version: str  # the HIP major.minor its headers say
    suite: str  # the Debian suite debootstrap starts from
    extra_suite: str | None  # added to the sources and preferred for the packages (-t)
    # packages only this release's suite installs beside its HIP (sid's RCCL wants HIP 5; hipBLASLt is 7.1)
    extra_packages: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"rocm-{self.version}"


TOOLCHAINS = (
    Toolchain("6.4", "sid", None),
    Toolchain("7.2", "sid", "experimental", ("librccl-dev", "libhipblaslt-dev")),
)

# Top-level host directories the chroot has its own of: a path under one of them is mounted alone (the
# folder itself), never the top; under the first group not at all (they are the toolchain).
SYSTEM_TOPS = (
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/boot",
)
SHARED_TOPS = ("/var", "/opt", "/srv", "/mnt", "/media")

WRAPPER = r"""#!/bin/sh
# hipcc of {name} ({suite}) in the chroot {root}; written by scripts/provision_rocm.py.
# The working directory, $TMPDIR, /tmp and every absolute path on the command line are bind-mounted
# at the same place in a private mount namespace, so paths mean the same inside and out.
R='{root}'
tops=""
add() {{
  case "$1" in /*) ;; *) return ;; esac
  t="/$(printf '%s' "$1" | cut -d/ -f2)"
  case " {system} " in *" $t "*) return ;; esac
  case " {shared} " in *" $t "*) t="$1"; [ -d "$t" ] || t="$(dirname "$t")" ;; esac
  [ -d "$t" ] || return
  case " $tops " in *" $t "*) ;; *) tops="$tops $t" ;; esac
}}
add "$PWD"; add /tmp; add "${{TMPDIR:-/tmp}}"; add "$HOME"
for a in "$@"; do
  case "$a" in
    -[ILo]/*) add "${{a#-?}}" ;;
    /*) add "$a" ;;
    *=/*) add "${{a#*=}}" ;;
  esac
done
exec unshare --mount --propagation private sh -c '
  R=$1; tops=$2; cwd=$3; shift 3
  for t in $tops; do
    mkdir -p "$R$t" && mount --rbind "$t" "$R$t" ||
      {{ echo "hipcc ({name}): cannot mount $t in $R" >&2; exit 125; }}
  done
  mount -t proc proc "$R/proc" 2>/dev/null
  mount --rbind /dev "$R/dev" 2>/dev/null
  exec chroot "$R" /bin/sh -c "cd \"\$0\" && exec /usr/bin/hipcc \"\$@\"" "$cwd" "$@"
' sh "$R" "$tops" "$PWD" "$@"
"""


def fail(message: str) -> int:
    print(f"provision_rocm: {message}", file=sys.stderr)
    return 2


def host_mirror(sources: list[Path] | None = None) -> str | None:
    """The Debian archive the host's apt uses (deb822 `URIs:` or one-line `deb URI suite`)."""
    paths = sources or [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in paths:
        try:
            text = path.read_text()
        except OSError:
            continue
        for uri in re.findall(r"^\s*(?:URIs:|deb(?:\s+\[[^\]]*\])?)\s+(\S+)", text, re.M):
            if uri.rstrip("/").endswith("/debian"):
                return uri.rstrip("/")
    return None


def run(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> None:
    """Run a step, its output appended to `log`; on failure raise with the log's tail."""
    with log.open("ab") as out:
        out.write(f"\n$ {' '.join(cmd)}\n".encode())
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed ({done.returncode}); {log}:\n" + "\n".join(tail))


def stamp_of(chain: Toolchain, mirror: str) -> str:
    what = "\n".join([chain.suite, chain.extra_suite or "", mirror, *PACKAGES, *chain.extra_packages])
    return hashlib.sha256(what.encode()).hexdigest()[:16]


def chroot_apt(root: Path, args: list[str], log: Path) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive", LC_ALL="C")
    run(
        ["chroot", str(root), "apt-get", "-o", "Acquire::Check-Valid-Until=false", "-y", "-q", *args],
        log,
        env,
    )


def provision(chain: Toolchain, top: Path, mirror: str) -> Path:
    """Make (or finish) one toolchain; returns the prefix whose bin/hipcc runs it."""
    root = top / chain.name
    log = top / f"{chain.name}.log"
    done_boot = root / ".hipify-py-debootstrap"
    done_pkgs = root / ".hipify-py-packages"
    stamp = stamp_of(chain, mirror)
    if not done_boot.is_file():
        if root.exists():
            shutil.rmtree(root)  # why: a cut-off debootstrap cannot be resumed
        print(f"{chain.name}: debootstrap {chain.suite} (about 1 min)", flush=True)
        run(
            ["debootstrap", "--variant=minbase", "--include=ca-certificates", chain.suite, str(root), mirror],
            log,
        )
        done_boot.write_text(mirror + "\n")
    if not done_pkgs.is_file() or done_pkgs.read_text().strip() != stamp:
        suites = [chain.suite] + ([chain.extra_suite] if chain.extra_suite else [])
        (root / "etc/apt/sources.list").write_text(
            "".join(f"deb {mirror} {suite} main\n" for suite in suites)
        )
        packages = (*PACKAGES, *chain.extra_packages)
        print(f"{chain.name}: apt-get install {len(packages)} packages (a few minutes, ~10 GB)", flush=True)
        chroot_apt(root, ["update"], log)
        target = ["-t", chain.extra_suite] if chain.extra_suite else []
        chroot_apt(root, ["install", "--no-install-recommends", *target, *packages], log)
        chroot_apt(root, ["clean"], log)
        done_pkgs.write_text(stamp + "\n")
    return write_prefix(chain, top)


def write_prefix(chain: Toolchain, top: Path) -> Path:
    """DIR/hip-X.Y/{bin/hipcc, include}: the host's view of the toolchain."""
    root = top / chain.name
    prefix = top / f"hip-{chain.version}"
    (prefix / "bin").mkdir(parents=True, exist_ok=True)
    wrapper = prefix / "bin" / "hipcc"
    text = WRAPPER.format(
        name=chain.name,
        suite=chain.extra_suite or chain.suite,
        root=root,
        system=" ".join(SYSTEM_TOPS),
        shared=" ".join(SHARED_TOPS),
    )
    if not wrapper.is_file() or wrapper.read_text() != text:
        tmp = wrapper.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(wrapper)
    include = prefix / "include"
    if not include.is_symlink():
        include.symlink_to(root / "usr" / "include")
    return prefix


def header_version(prefix: Path) -> str | None:
    try:
        text = (prefix / "include" / "hip" / "hip_version.h").read_text()
    except OSError:
        return None
    parts = dict(re.findall(r"#define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", text))
    return ".".join(parts[k] for k in ("MAJOR", "MINOR", "PATCH") if k in parts) or None


def smoke_test(prefix: Path) -> None:
    """Compile a kernel with hipCUB and rocThrust through the wrapper, from a host directory."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _smoke(prefix, Path(tmp))


def _smoke(prefix: Path, work: Path) -> None:
    src = work / "smoke.hip"
    src.write_text(
        "#include <hip/hip_runtime.h>\n#include <hipcub/hipcub.hpp>\n#include <thrust/device_vector.h>\n"
        "__global__ void k(float* p) { p[threadIdx.x] *= 2.0f; }\n"
    )
    env = dict(os.environ, HIP_PLATFORM="amd")
    done = subprocess.run(
        [str(prefix / "bin" / "hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(src)],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{prefix}/bin/hipcc cannot compile a kernel:\n{done.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("HIPIFY_PY_TOOLCHAINS") or DEFAULT_ROOT))
    ap.add_argument("--only", default="", help="comma-separated versions (default: all)")
    ap.add_argument("--mirror", default=None, help="Debian archive (default: the host's apt sources)")
    ap.add_argument("--status", action="store_true", help="list the toolchains present, change nothing")
    args = ap.parse_args(argv)
    wanted = [c for c in TOOLCHAINS if not args.only or c.version in args.only.split(",")]
    if args.status:
        for chain in wanted:
            prefix = args.root / f"hip-{chain.version}"
            ready = (args.root / chain.name / ".hipify-py-packages").is_file()
            print(f"{chain.name}: {'HIP ' + str(header_version(prefix)) if ready else 'absent'} ({prefix})")
        return 0
    if os.geteuid() != 0:
        return fail("needs root (debootstrap, chroot and mount namespaces); run it as root or with sudo")
    missing = [tool for tool in ("debootstrap", "chroot", "unshare") if shutil.which(tool) is None]
    if missing:
        return fail(f"missing {', '.join(missing)}: apt-get install debootstrap util-linux coreutils")
    mirror = args.mirror or host_mirror()
    if mirror is None:
        return fail("no Debian mirror in the host's apt sources; pass --mirror URL")
    args.root.mkdir(parents=True, exist_ok=True)
    for chain in wanted:
        try:
            prefix = provision(chain, args.root, mirror)
        except (RuntimeError, OSError) as err:
            return fail(f"{chain.name}: {err}\n(no network to the Debian archive? the log says)")
        try:
            smoke_test(prefix)
        except (RuntimeError, OSError) as err:
            return fail(f"{chain.name}: installed, but {err}")
        print(f"{chain.name}: HIP {header_version(prefix)} ready: {prefix}/bin/hipcc", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
