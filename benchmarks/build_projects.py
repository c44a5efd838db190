#!/usr/bin/env python3
"""Real projects' own builds after `hipify-py convert --in-place .`, on ROCm 6.4 and 7.2 (issue 32).

    python3 benchmarks/build_projects.py [--mirrors /work/.mirror] [--work DIR] [--releases 6.4,7.2]
        [--variants reference,before,after] [--before-code /work/main] [--only NAME,...] [--json FILE]

For each target of PROJECTS (a project's documented CMake or Makefile build, in one folder of it):
  - reference: the authors' own HIP build of the unconverted tree, where they keep one;
  - before / after: the tree converted in place by hipify-py, the checkout --before-code names (the
    main branch) or this one, then the build the project's README gives for its CUDA version.
Each build runs in the release's chroot (scripts/provision_rocm.py; cmake, make and g++ must be
installed there), with the work tree bind-mounted at the same path in a private mount namespace, as
the hipcc wrapper does. The converter runs on the host with that release's hipcc first on PATH and
--hip-version set, as a user's machine with that ROCm would. Prints one Markdown table: configure,
build and the first error per project, target, release and variant. Projects are read from bare git
mirrors (`git archive HEAD`), never committed here.

Left out, and why: xlite-dev/LeetCUDA (its kernels are PTX MMA/cutlass code, and its mirror lacks
files), amd/HPCTrainingExamples (its CUDA examples' Makefiles already call hipcc on hipify-perl's
output), ParRes/Kernels (its CUDA build is configured by common/make.defs.cuda, an NVIDIA HPC SDK
setup, not a file named like a build file). Beyond cmake, make and g++, the chroots need git
(miniBUDE's configure), libomp-dev (-fopenmp) and libgflags-dev (cuda_hgemm).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
TOOLCHAINS = Path(os.environ.get("HIPIFY_PY_TOOLCHAINS") or "/var/cache/hipify-py/toolchains")
CMAKE_FLAGS = "-DCMAKE_BUILD_TYPE=Release"


class Target(NamedTuple):
    project: str  # mirror name, owner+repo
    name: str  # the target, as the table shows it
    folder: str  # where the build runs, relative to the project root
    build: tuple[str, ...]  # the documented CUDA build, run after conversion (configure first for CMake)
    reference: tuple[str, ...] = ()  # the authors' HIP build of the unconverted tree, if they keep one
    convert: str = "."  # what is converted (relative to the project root)
    paths: tuple[str, ...] = ()  # what to take from the mirror (all when empty: some lack big blobs)


def _cmake(extra: str = "") -> tuple[str, ...]:
    return (f"cmake -B build {CMAKE_FLAGS} {extra}".strip(), "cmake --build build -j 2")


PROJECTS: tuple[Target, ...] = (
    Target(
        "UoB-HPC+TeaLeaf",
        "cuda model",
        ".",
        _cmake("-DMODEL=cuda -DCMAKE_CUDA_COMPILER=nvcc -DCUDA_ARCH=sm_70"),
        _cmake("-DMODEL=hip -DCMAKE_CXX_COMPILER=hipcc"),
    ),
    Target(
        "UoB-HPC+miniBUDE",
        "cuda model",
        ".",
        _cmake("-DMODEL=cuda -DCMAKE_CUDA_COMPILER=nvcc -DCUDA_ARCH=sm_70"),
        _cmake("-DMODEL=hip -DCMAKE_CXX_COMPILER=hipcc"),
        paths=("CMakeLists.txt", "cmake", "src"),
    ),
    Target("wilicc+gpu-burn", "gpu_burn", ".", ("make",)),
    Target("Bruce-Lee-LY+cuda_hgemm", "hgemm", ".", _cmake()),
    Target("NVIDIA+multi-gpu-programming-models", "single_gpu", "single_gpu", ("make jacobi",)),
    Target("NVIDIA+multi-gpu-programming-models", "nccl", "nccl", ("make jacobi",)),
)


def chroot_command(release: str, mount: Path, cwd: Path, command: str, env: dict[str, str]) -> list[str]:
    """Run `command` with sh in the release's chroot, in `cwd`, with `mount` at the same place."""
    root = TOOLCHAINS / f"rocm-{release}"
    env = {"TMPDIR": "/tmp", **env}  # why: the caller's TMPDIR may not be mounted in the chroot
    exports = " ".join(f"{k}={v}" for k, v in sorted(env.items()))
    inner = f'cd "{cwd}" && export {exports} && {command}' if exports else f'cd "{cwd}" && {command}'
    script = (
        'R=$1; W=$2; shift 2; mkdir -p "$R$W" "$R/tmp" && mount --rbind "$W" "$R$W" && '
        'mount -t proc proc "$R/proc" 2>/dev/null; mount --rbind /dev "$R/dev" 2>/dev/null; '
        'exec chroot "$R" /bin/sh -c "$1"'
    )
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "sh",
        str(root),
        str(mount),
        inner,
    ]


_ERROR = re.compile(r"(?i)(\berror\b|\*\*\*|not found|No such file)")


def first_error(output: str) -> str:
    for line in output.splitlines():
        if _ERROR.search(line) and "warning" not in line.lower():
            line = re.sub(r"/tmp/[^\s:]*/(?=[^/\s]+:)", "", line.strip())
            return line[:200]
    lines = [ln for ln in output.strip().splitlines() if ln.strip()]
    return lines[-1][:200] if lines else ""


def cmake_toolchain(work: Path, release: str) -> Path:
    """A CMake toolchain file (found through the CMAKE_TOOLCHAIN_FILE environment variable, so the
    README's command lines stay as written) that lets CMake's HIP language use Debian's ROCm.

    CMake looks for <ROCm root>/lib/cmake/hip-lang/hip-lang-config.cmake; Debian installs it under
    /usr/lib/<multiarch>/cmake and the device libraries under the LLVM that hipcc uses. A ROCm install
    from AMD needs none of this."""
    root = TOOLCHAINS / f"rocm-{release}"
    clang = sorted(root.glob("usr/lib/llvm-*/bin/clang++"), key=lambda p: int(p.parts[-3].split("-")[1]))[-1]
    llvm = Path("/") / clang.relative_to(root).parent.parent
    bitcode = next((root / llvm.relative_to("/")).glob("lib/clang/*/amdgcn/bitcode"))
    env_dir = work / f"rocm-env-{release}"
    (env_dir / "root/lib/cmake").mkdir(parents=True, exist_ok=True)
    link = env_dir / "root/lib/cmake/hip-lang"
    if not link.is_symlink():
        link.symlink_to("/usr/lib/x86_64-linux-gnu/cmake/hip-lang")
    text = (
        f'set(CMAKE_HIP_COMPILER "{llvm}/bin/clang++" CACHE FILEPATH "")\n'
        f'set(CMAKE_HIP_COMPILER_ROCM_ROOT "{env_dir / "root"}" CACHE PATH "")\n'
        'list(APPEND CMAKE_PREFIX_PATH "/usr/lib/x86_64-linux-gnu/cmake")\n'
        f'set(CMAKE_HIP_FLAGS_INIT "--rocm-path=/usr --hip-device-lib-path=/{bitcode.relative_to(root)}")\n'
    )
    path = env_dir / "toolchain.cmake"
    path.write_text(text)
    return path


def run_steps(release: str, mount: Path, cwd: Path, steps: tuple[str, ...], log: Path) -> dict[str, str]:
    """configure/build: ok, fail or - (not reached); error: the first error line of the failing step."""
    env = {
        "HIP_PLATFORM": "amd",
        "CMAKE_TOOLCHAIN_FILE": str(cmake_toolchain(mount, release)),
    }
    result = {"configure": "-", "build": "-", "error": ""}
    phases = ("configure", "build") if len(steps) > 1 else ("build",)
    with log.open("w") as out:
        for phase, step in zip(phases, steps, strict=True):
            done = subprocess.run(
                chroot_command(release, mount, cwd, step, env),
                capture_output=True,
                text=True,
                timeout=1800,
            )
            out.write(f"$ {step}\n{done.stdout}\n{done.stderr}\n(rc {done.returncode})\n")
            result[phase] = "ok" if done.returncode == 0 else "fail"
            if done.returncode != 0:
                result["error"] = first_error(done.stderr + "\n" + done.stdout)
                break
    return result


def extract(mirrors: Path, project: str, dest: Path, paths: tuple[str, ...] = ()) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    repo = mirrors / project / "repo"
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "HEAD", *paths], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def convert(code: Path, release: str, tree: Path) -> str:
    """hipify-py convert --in-place with the checkout `code`, as on a machine with that ROCm."""
    env = dict(os.environ, PYTHONPATH=str(code))
    env["PATH"] = f"{TOOLCHAINS / f'hip-{release}' / 'bin'}:{env['PATH']}"
    cmd = [sys.executable, "-m", "hipify_py", "convert", "--in-place", "-j", "1", "--hip-version", release]
    done = subprocess.run([*cmd, str(tree)], capture_output=True, text=True, env=env, cwd=code)
    return done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/hipify-build-projects"))
    parser.add_argument("--releases", default="6.4,7.2")
    parser.add_argument("--variants", default="reference,before,after")
    parser.add_argument("--before-code", type=Path, default=Path("/work/main"))
    parser.add_argument("--only", default="")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    only = {o for o in args.only.split(",") if o}
    rows: list[dict[str, str]] = []
    for target in PROJECTS:
        if only and target.project not in only and f"{target.project}:{target.name}" not in only:
            continue
        if not (args.mirrors / target.project / "repo").is_dir():
            print(f"{target.project}: no mirror; skipped", file=sys.stderr)
            continue
        for release in args.releases.split(","):
            if not (TOOLCHAINS / f"rocm-{release}" / "usr/bin/cmake").exists():
                print(f"rocm-{release}: no cmake in the chroot; skipped", file=sys.stderr)
                continue
            for variant in args.variants.split(","):
                if variant == "reference" and not target.reference:
                    continue
                label = f"{target.project}-{target.name.replace(' ', '_')}-{release}-{variant}"
                tree = args.work / label
                try:
                    extract(args.mirrors, target.project, tree, target.paths)
                except subprocess.CalledProcessError:
                    print(f"{target.project}: the mirror lacks files; skipped", file=sys.stderr)
                    continue
                if variant != "reference":
                    code = args.before_code if variant == "before" else ROOT
                    (args.work / f"{label}.convert.log").write_text(
                        convert(code, release, tree / target.convert)
                    )
                steps = target.reference if variant == "reference" else target.build
                result = run_steps(
                    release, args.work, tree / target.folder, steps, args.work / f"{label}.log"
                )
                row = {
                    "project": target.project,
                    "target": target.name,
                    "release": release,
                    "variant": variant,
                }
                rows.append({**row, **result})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print("| project | target | ROCm | variant | configure | build | first error |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        error = r["error"].replace("|", "\\|")
        print(
            f"| {r['project']} | {r['target']} | {r['release']} | {r['variant']} | {r['configure']} "
            f"| {r['build']} | {error} |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
