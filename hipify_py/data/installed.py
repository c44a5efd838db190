"""Which ROCm library headers the installed HIP lacks (hipCUB, rocThrust, hipBLAS, hipFFT, ...).

A translation that writes `#include <hipcub/hipcub.hpp>` is right, but the build still fails on a
machine without the hipCUB package. One fact per run, computed here from the file system and passed to
the rules in Options.missing_headers, so HIP128 can say so at the include line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from hipify_py.data.mappings import load_mappings
from hipify_py.data.schema import Mappings
from hipify_py.util.commands import which

_RUNTIME_PREFIX = "hip/"  # the HIP runtime's own headers: their absence is a version question (HIP103)


def include_roots(environ: dict[str, str] | None = None) -> list[Path]:
    """Include directories of the installed HIP: beside the hipcc on PATH, $ROCM_PATH, /opt/rocm.

    Only roots that hold hip/hip_runtime.h count: without an installed HIP nothing can be said.
    """
    env = os.environ if environ is None else environ
    candidates: list[Path] = []
    hipcc = which("hipcc", path=env.get("PATH"))
    if hipcc:
        real = Path(hipcc).resolve()
        candidates += [real.parent.parent / "include", Path(hipcc).parent.parent / "include"]
    if env.get("ROCM_PATH"):
        candidates.append(Path(env["ROCM_PATH"]) / "include")
    candidates += [Path("/opt/rocm/include"), Path("/usr/include")]
    roots = [c for c in dict.fromkeys(candidates) if (c / "hip" / "hip_runtime.h").is_file()]
    return roots


def standard_header(name: str) -> bool:
    """`atomic`, `cstdint`: a C++ standard header (the compiler's library, not a HIP package's)."""
    return "/" not in name and "." not in name


def library_headers(mappings: Mappings) -> frozenset[str]:
    """Library headers a translation can write (hipcub/hipcub.hpp, rocblas/rocblas.h, hipblas.h), and
    `ns/` for libraries ROCm ships under the CUDA header path (rocThrust's thrust/)."""
    names = {
        v
        for h in mappings.headers.values()
        for v in (h.hip, h.legacy, h.roc)
        if v and not v.startswith(_RUNTIME_PREFIX) and not standard_header(v)
    }
    names |= {
        f"{n.cuda}/" for n in mappings.namespaces if n.hip == n.cuda and n.family not in ("device", "runtime")
    }
    return frozenset(names)


def missing_headers(mappings: Mappings, roots: Sequence[Path]) -> frozenset[str]:
    """The library headers (and `ns/` prefixes) found under none of the include roots; empty when
    there is no installed HIP to look at."""
    if not roots:
        return frozenset()
    return not_found(library_headers(mappings), roots)


def not_found(headers: Iterable[str], roots: Sequence[Path]) -> frozenset[str]:
    """The headers (and `ns/` prefixes) found under none of the include roots."""
    return frozenset(h for h in headers if not _found(h, roots))


def shipped_library_headers() -> frozenset[str]:
    """library_headers of the shipped tables (cached between runs by hipify_py/data/derived.py)."""
    return library_headers(load_mappings())


def _found(header: str, roots: Iterable[Path]) -> bool:
    if header.endswith("/"):
        return any((r / header).is_dir() for r in roots)
    return any((r / header).is_file() for r in roots)


def roots_version(roots: Sequence[Path]) -> str | None:
    """Major.minor of the HIP whose headers the first include root holds, or None when unreadable."""
    from hipify_py.data.target import parse_version_header, short_version

    for root in roots[:1]:
        try:
            full = parse_version_header((root / "hip" / "hip_version.h").read_bytes())
        except OSError:
            return None
        return short_version(full) if full else None
    return None


def is_missing(path: str, missing: frozenset[str]) -> bool:
    """`#include <path>` names a missing library header (or one under a missing `ns/` prefix)."""
    if not missing:
        return False
    if path in missing:
        return True
    head, sep, _ = path.partition("/")
    return bool(sep) and f"{head}/" in missing
