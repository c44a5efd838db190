"""Translation options: one immutable value passed to the pure translate() function."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Options:
    """What a translation may do and for which HIP (one value for every file of a run)."""

    keep_launch_syntax: bool = False  # leave kernel<<<...>>>(...) as is (modern HIP accepts it)
    roc: bool = False  # prefer roc* libraries (rocBLAS, rocRAND, ...) over hip* wrappers
    hip_version: str | None = None  # target HIP version "X.Y"; None = latest in the data
    # what to do with a name whose HIP counterpart is newer than the target: "rewrite" (and warn) or "keep"
    version_policy: str = "rewrite"
    legacy_include_paths: bool = False  # flat library headers (hipblas.h) instead of hipblas/hipblas.h
    annotate: bool = False  # write // HIPIFY-PY: comments above lines that need attention
    ignore_rules: frozenset[str] = field(default_factory=frozenset)
    # library headers (and `ns/` prefixes) the installed HIP lacks (data/installed.py): HIP128 at includes
    missing_headers: frozenset[str] = field(default_factory=frozenset)
    # name of the file, used only for messages and file-kind decisions (never opened by translate)
    filename: str = "<stdin>"


def with_filename(options: Options, filename: str) -> Options:
    """`dataclasses.replace(options, filename=filename)`, the same value (Options has no __post_init__)
    made by copying the fields' dict: replace() walks the fields and calls the frozen __init__ (~8 us,
    for every file of a run)."""
    copy = object.__new__(Options)
    copy.__dict__.update(options.__dict__, filename=filename)
    return copy
