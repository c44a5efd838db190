"""Translation options: one immutable value passed to the pure translate() function."""

from __future__ import annotations

from typing import NamedTuple


# why a NamedTuple, not a frozen dataclass: importing dataclasses (with inspect) and building the class
# cost ~8 ms before a translation run's first fork (docs/performance.md)
class Options(NamedTuple):
    """What a translation may do and for which HIP (one value for every file of a run)."""

    keep_launch_syntax: bool = False  # leave kernel<<<...>>>(...) as is (modern HIP accepts it)
    roc: bool = False  # prefer roc* libraries (rocBLAS, rocRAND, ...) over hip* wrappers
    hip_version: str | None = None  # target HIP version "X.Y"; None = latest in the data
    # what to do with a name whose HIP counterpart is newer than the target: "rewrite" (and warn) or "keep"
    version_policy: str = "rewrite"
    legacy_include_paths: bool = False  # flat library headers (hipblas.h) instead of hipblas/hipblas.h
    annotate: bool = False  # write // HIPIFY-PY: comments above lines that need attention
    ignore_rules: frozenset[str] = frozenset()
    # library headers (and `ns/` prefixes) the installed HIP lacks (data/installed.py): HIP128 at includes
    missing_headers: frozenset[str] = frozenset()
    # helpers (shims.yaml names) the project defines in a header this file includes (run/helper_defs.py
    # finds them; per file): no shim is written for them, their uses are settled
    defined_elsewhere: frozenset[str] = frozenset()
    # (CUDA name, HIP name) the project's own compatibility header maps differently from the tables, in a
    # header this mixed CUDA/HIP file includes (run/helper_defs.py; analysis/project_aliases.py)
    project_aliases: tuple[tuple[str, str], ...] = ()
    # names this file's headers declare as CUdeviceptr, which the file uses (run/helper_defs.py;
    # analysis/deviceptr_names.py): arithmetic on them is integer arithmetic in CUDA
    deviceptr_names: tuple[str, ...] = ()
    # (macro, parameter indexes) the file's headers define to paste an argument after `->`/`.`
    # (run/helper_defs.py; analysis/member_macros.py): a CUDA name opening that argument is a member
    member_macros: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # name of the file, used only for messages and file-kind decisions (never opened by translate)
    filename: str = "<stdin>"


def with_filename(options: Options, filename: str) -> Options:
    """`options._replace(filename=filename)`, without _replace's Python-level rebuild (for every file of
    a run): the other fields as they are, the last one new."""
    return tuple.__new__(Options, (*options[:-1], filename))
