"""The installed HIP compiler: find it, ask its version, syntax-check one translation unit.

Always HIP_PLATFORM=amd: with the CUDA toolkit installed too, hipcc would otherwise pick nvcc.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ARCH = ("gfx90a",)
TIMEOUT_SECONDS = 600.0


class CompilerMissing(Exception):
    """No usable hipcc: the message says where we looked and what to do."""


@dataclass(frozen=True)
class Compiler:
    path: str
    version: str  # `hipcc --version` output: HIP and clang versions (part of every cache key)


def environment() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd"}


def find_hipcc(explicit: str | None = None) -> Compiler:
    """--hipcc PATH, else $ROCM_PATH/bin/hipcc, else hipcc on PATH, else /opt/rocm/bin/hipcc."""
    candidates: list[str] = []
    if explicit:
        candidates.append(explicit)
    else:
        rocm = os.environ.get("ROCM_PATH")
        if rocm:
            candidates.append(os.path.join(rocm, "bin", "hipcc"))
        on_path = shutil.which("hipcc")
        if on_path:
            candidates.append(on_path)
        candidates.append("/opt/rocm/bin/hipcc")
    for candidate in candidates:
        path = shutil.which(candidate) if os.sep not in candidate else candidate
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return Compiler(path, _version(path))
    looked = ", ".join(dict.fromkeys(candidates))
    if explicit:
        raise CompilerMissing(f"--hipcc {explicit}: not an executable file")
    raise CompilerMissing(
        f"no HIP compiler found (looked for {looked}): install ROCm's hipcc (Debian/Ubuntu: "
        "`apt install hipcc libamdhip64-dev`), set ROCM_PATH, or pass --hipcc PATH"
    )


def _version(path: str) -> str:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, env=environment(), timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CompilerMissing(f"{path} --version failed: {err}") from None
    text = (done.stdout + done.stderr).strip()
    lines = [ln for ln in text.splitlines() if "version" in ln.lower() or ln.startswith("Target:")]
    if done.returncode != 0 or not lines:
        raise CompilerMissing(f"{path} --version failed (exit {done.returncode}): {text[:200]}")
    return "\n".join(lines)


@dataclass(frozen=True)
class CompileJob:
    source: str  # absolute path of the translated file to compile
    cwd: str  # working directory (relative paths in args and messages are relative to it)
    args: tuple[str, ...]  # flags besides the fixed ones (-I/-D/-std/...)
    offload_arch: tuple[str, ...] = DEFAULT_ARCH
    codegen: bool = False  # True: `-c -o /dev/null` (also runs the backend: catches e.g. PTX in inline asm)


@dataclass(frozen=True)
class CompileOutput:
    returncode: int  # -1: could not run / timed out
    stderr: str
    deps: tuple[str, ...]  # absolute paths of every file the compile read (from -MD)


def command(compiler: Compiler, job: CompileJob, depfile: str | None = None) -> list[str]:
    """hipcc -fsyntax-only for the host and every --offload-arch (syntax and semantics, no code);
    with job.codegen, a full compile to /dev/null."""
    std = () if any(a.startswith(("-std=", "--std=")) for a in job.args) else ("-std=c++17",)
    deps = ("-MD", "-MF", depfile) if depfile else ()
    return [
        compiler.path,
        *(f"--offload-arch={arch}" for arch in job.offload_arch),
        *(("-c", "-o", os.devnull) if job.codegen else ("-fsyntax-only",)),
        "-w",  # why: only errors decide; warnings would bury them
        *std,  # nvcc's default dialect (CUDA 11+); hipcc's own default is C++11
        *job.args,
        *deps,
        "-x",
        "hip",
        job.source,
    ]


class Processes:
    """The compilers running now, so that another thread can kill them all (Ctrl-C); after stop(), a
    compiler that was just being started is killed as soon as it is registered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: set[subprocess.Popen] = set()
        self.stopped = False

    def add(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.live.add(proc)
            if self.stopped:
                kill(proc)

    def discard(self, proc: subprocess.Popen) -> None:
        with self.lock:
            self.live.discard(proc)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for proc in self.live:
                kill(proc)


def compile_tu(
    compiler: Compiler, job: CompileJob, timeout: float = TIMEOUT_SECONDS, running: Processes | None = None
) -> CompileOutput:
    """Run one syntax check. Never raises for a failing compile; its temporary files are always removed.

    The compiler runs in its own process group, killed as a whole (hipcc, clang, its children) on a
    timeout or an exception; `running` holds the live processes so another thread can kill them
    (Ctrl-C: Processes.stop).

    The compiler gets a private TMPDIR, removed afterwards: Debian's hipcc leaves two empty folders in
    the temporary directory per compile (clang's offload steps), and a killed compile leaves its files."""
    scratch = tempfile.mkdtemp(prefix="hipify-py-compile-")
    depfile = os.path.join(scratch, "deps.d")
    try:
        proc = subprocess.Popen(
            command(compiler, job, depfile),
            cwd=job.cwd,
            env={**environment(), "TMPDIR": scratch, "TMP": scratch, "TEMP": scratch},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        if running is not None:
            running.add(proc)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except BaseException:  # timeout or Ctrl-C: the compiler must not outlive us
            kill(proc)
            proc.wait()
            raise
        finally:
            if running is not None:
                running.discard(proc)
        return CompileOutput(proc.returncode, stderr, _read_deps(depfile, job.cwd))
    except subprocess.TimeoutExpired:
        return CompileOutput(-1, f"error: hipcc timed out after {timeout:.0f} s", ())
    except OSError as err:
        return CompileOutput(-1, f"error: cannot run {compiler.path}: {err.strerror or err}", ())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def _read_deps(depfile: str, cwd: str) -> tuple[str, ...]:
    try:
        text = Path(depfile).read_text(errors="replace")
    except OSError:
        return ()
    return parse_depfile(text, cwd)


def parse_depfile(text: str, cwd: str) -> tuple[str, ...]:
    """Make-style dependencies (`out: a b \\` ...) as absolute paths, first occurrence order."""
    joined = text.replace("\\\n", " ")
    _, _, rest = joined.partition(": ")
    words: list[str] = []
    current = ""
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\" and i + 1 < len(rest) and rest[i + 1] == " ":
            current += " "
            i += 2
            continue
        if ch.isspace():
            if current:
                words.append(current)
            current = ""
        else:
            current += ch
        i += 1
    if current:
        words.append(current)
    return tuple(dict.fromkeys(os.path.normpath(os.path.join(cwd, w)) for w in words))


def display_command(compiler: Compiler, job: CompileJob) -> str:
    import shlex

    return shlex.join(command(compiler, job))
