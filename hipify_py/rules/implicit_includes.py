"""C headers nvcc includes implicitly and the target's hip_runtime.h does not (ROCm 7: <string.h>).

nvcc includes cuda_runtime.h in every .cu, which brings <string.h>, <stdlib.h>, <time.h>... along, so
CUDA code calls `strlen` or `memcpy` with no include. HIP 5.2 and 6.x headers brought the same headers;
ROCm 7.2's do not declare string.h's functions for host code (only HIP's __device__ memcpy/memset), so
the translated call fails. C99's classification macros (`isfinite`, `isnan`, `signbit`...) are declared
for host code by no HIP release (only `std::isfinite` and device overloads): nvcc's math_functions.h has
global host overloads, and even <cmath> does not bring them (it #undefs the macros), only <math.h>.
mappings/implicit-includes-<version>.yaml (scripts/probe_implicit_includes.py) lists, per probed HIP,
the functions concerned, their header and whether its C++ spelling (<cstring>) serves too; a converted
file that calls one from host code (a `__device__`/`__global__` body is compiled against HIP's device
overloads; `std::isnan` is declared) and does not include the header gets it at the top of its include
block (HIP135, info).

Asked by the insertion planner (pipeline/insertions.py) like the runtime include: it runs on files the
translation changes (CUDA code), never on a file that stays byte-identical.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from hipify_py.analysis.context import REWRITABLE, Context, Where
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.detectors.common import DeviceSpans
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

PREFIX = "implicit-includes-"
_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)


@functools.lru_cache(maxsize=8)
def implicit_headers(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, Mapping[bytes, bytes], frozenset[bytes]]:
    """(probed HIP version, function -> header, headers whose C++ spelling serves too) for the target or
    the nearest older probed version."""
    if directory is None:
        return derived.load("implicit-includes", _build, hip_version)
    return _build(hip_version, directory)


def _build(
    hip_version: str | None, directory: Path | None = None
) -> tuple[str, dict[bytes, bytes], frozenset[bytes]]:
    version, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    table = {}
    for header, names in (data.get("headers") or {}).items():
        for name in names:
            table[str(name).encode()] = str(header).encode()
    return version, table, frozenset(str(h).encode() for h in data.get("cxx_spelling") or ())


def _spellings(header: bytes, cxx: frozenset[bytes]) -> tuple[bytes, ...]:
    """The spellings of one C header that declare its names: string.h and cstring; math.h alone."""
    return (header, b"c" + header.removesuffix(b".h")) if header in cxx else (header,)


_STD = lazy(rb"\bstd\s*::\s*\Z")
# what precedes a name in a qualified call of another namespace's function, or in a declaration
_OWN = lazy(rb"(?:\w[^\S\n]*::|[\w>*]|(?<!&)&)[^\S\n]*\Z")  # on the name's own line; not `&&`
# ... unless that word is a keyword before an expression (`return memcpy(...)`)
_CALL_AFTER = lazy(rb"\b(?:return|else|do|case|throw|co_return|co_yield|new|delete|sizeof)[^\S\n]*\Z")


def add_implicit_includes(ctx: Context, edits: Sequence[Edit]) -> RuleResult:
    """`#include <string.h>` (and the like) at the top of the include block where the converted file calls
    what nvcc declared for it. `edits`: the file's other edits (an include another rule writes)."""
    result = RuleResult()
    if not edits or ctx.options.hip_version is None:
        return result
    version, table, cxx = implicit_headers(ctx.options.hip_version)
    used = sorted(ctx.identifiers & table.keys())
    if not used:
        return result
    included = {m.group(1).strip() for m in _INCLUDE_PATH.finditer(ctx.source)}
    included |= {e.text for e in edits}  # an include another rule writes
    wanted: dict[bytes, re.Match[bytes]] = {}
    pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(used) + rb")\s*\(")
    device: DeviceSpans | None = None
    for m, where in ctx.code_matches(pattern):
        header = table[m.group(1)]
        if where not in REWRITABLE or header in wanted or not included.isdisjoint(_spellings(header, cxx)):
            continue
        if _STD.search(ctx.source, max(0, m.start() - 16), m.start()):
            continue  # std::isnan: <cmath>'s, which hip_runtime.h includes
        if _OWN.search(ctx.source, max(0, m.start() - 48), m.start()) and not _CALL_AFTER.search(
            ctx.source, max(0, m.start() - 48), m.start()
        ):
            continue  # `runtime_api::memcpy(...)`, `inline auto memcpy(...)`: the project's own function
        device = device or DeviceSpans(ctx)
        if device.contains(m.start()) and not device.host_too(ctx.source, m.start()):
            continue  # device code: HIP's device overloads (the probe measures host code)
        wanted[header] = m
    if not wanted:
        return result
    for header, m in sorted(wanted.items()):
        result.requests.append(Insertion.include(header))
        message = (
            f"`{m.group(1).decode()}` is declared by <{header.decode()}>, which nvcc includes in every .cu "
            f"and HIP {version}'s hip_runtime.h does not: included"
        )
        result.diagnostics.append(ctx.diag("HIP135", m.start(1), m.end(1), message))
        result.counts["includes"] += 1
    return result


THRUST_PREFIX = "thrust-includes-"
_THRUST_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]thrust/(\w+\.h)[>"][^\n]*\n?', re.MULTILINE)


@functools.lru_cache(maxsize=8)
def thrust_headers(
    hip_version: str | None = None, directory: Path | None = None
) -> tuple[str, Mapping[bytes, tuple[bytes, frozenset[bytes]]]]:
    """(probed HIP version, thrust name -> (its header, the headers that bring that one along with CUDA
    and not with this rocThrust)) for the target or the nearest probed version."""
    if directory is None:
        return derived.load("thrust-includes", _build_thrust, hip_version)
    return _build_thrust(hip_version, directory)


def _build_thrust(
    hip_version: str | None, directory: Path | None = None
) -> tuple[str, dict[bytes, tuple[bytes, frozenset[bytes]]]]:
    version, data = read_versioned(directory or probed_dir(), THRUST_PREFIX, hip_version)
    table = {}
    for header, row in (data.get("headers") or {}).items():
        via = frozenset(str(v).encode() for v in row.get("via") or ())
        for name in row.get("names") or ():
            table[str(name).encode()] = (str(header).encode(), via)
    return version, table


THRUST11_FILE = "thrust11-includes-7.2.yaml"  # nvcc 13's Thrust = ROCm 7.2's rocThrust (see the script)
_CALLED = lazy(rb"\s*[(<]")


@functools.lru_cache(maxsize=8)
def thrust11_headers(
    hip_version: str | None = None,
) -> tuple[Mapping[bytes, tuple[bytes, frozenset[bytes]]], Mapping[bytes, frozenset[bytes]]]:
    """(thrust algorithm name -> (its header, the public headers that brought that one along in CUDA 11's
    Thrust), public header -> the algorithm headers CUDA 12-13's brings along)
    (mappings/probed/thrust11-includes-7.2.yaml, scripts/probe_thrust11_includes.py). `hip_version`: unused (a
    table of CUDA's headers), taken as every table loader of the rule registry takes it."""
    del hip_version
    return derived.load("thrust11-includes", _build_thrust11)


def _build_thrust11() -> tuple[dict[bytes, tuple[bytes, frozenset[bytes]]], dict[bytes, frozenset[bytes]]]:
    from hipify_py.data.detector_data import THRUST_ALGORITHM_HEADERS
    from hipify_py.data.version_ranges import read_table

    doc, _ = read_table(probed_dir() / THRUST11_FILE)
    via: dict[bytes, set[bytes]] = {}
    for header, brought in (doc.get("brings") or {}).items():
        for one in brought or ():
            via.setdefault(str(one).encode(), set()).add(str(header).encode())
    now = {
        str(h).encode(): frozenset(str(b).encode() for b in bs or ())
        for h, bs in (doc.get("now") or {}).items()
    }
    names = {
        name: (header, frozenset(via.get(header, ())))
        for header, names in THRUST_ALGORITHM_HEADERS.items()
        for name in names
    }
    return names, now


def add_thrust_includes(ctx: Context, edits: Sequence[Edit]) -> RuleResult:
    """`#include <thrust/copy.h>` after `#include <thrust/device_vector.h>` where the converted file calls
    `thrust::copy` and includes only a header that brings copy.h along with CUDA, not with the target's
    rocThrust (mappings/thrust-includes-<version>.yaml, scripts/probe_thrust_includes.py; HIP221)."""
    result = RuleResult()
    if not edits or ctx.options.hip_version is None or b"thrust" not in ctx.source:
        return result
    version, table = thrust_headers(ctx.options.hip_version)
    older, now = thrust11_headers(ctx.options.hip_version)
    used = sorted(ctx.identifiers & (table.keys() | older.keys()))
    if not used:
        return result
    found = _THRUST_INCLUDE.finditer(ctx.source)
    includes = {m.group(1): m for m in found if not ctx.is_protected(m.start())}
    if not includes:
        return result
    pattern = compiled(rb"\bthrust\s*::\s*(" + b"|".join(used) + rb")\b")
    wanted: dict[bytes, tuple[re.Match[bytes], re.Match[bytes], str]] = {}
    # what the file's headers bring along in CUDA 12-13 (and rocThrust 7.2): no CUDA 11 reliance there
    current = frozenset().union(*(now.get(h, frozenset()) for h in includes))
    for m, where in ctx.code_matches(pattern):
        if where not in (*REWRITABLE, Where.SCOPED):
            continue
        # an algorithm of the older table is called (`thrust::sort(` or `thrust::sort<`)
        called = _CALLED.match(ctx.source, m.end()) is not None
        for rows, cuda in ((table, "CUDA's"), (older if called else {}, "CUDA 11's (Thrust 1.15)")):
            header, via = rows.get(m.group(1), (b"", frozenset()))
            if not header or header in includes or header in wanted or (rows is older and header in current):
                continue
            after = min((includes[v] for v in via if v in includes), key=lambda i: i.start(), default=None)
            if after is not None:
                wanted[header] = (m, after, cuda)
    for header, (m, after, cuda) in sorted(wanted.items()):
        result.requests.append(Insertion.include(b"thrust/" + header, after.end()))  # after that include
        message = (
            f"`thrust::{m.group(1).decode()}` is declared by <thrust/{header.decode()}>, which {cuda} "
            f"<thrust/{after.group(1).decode()}> includes and HIP {version}'s rocThrust does not: included"
        )
        result.diagnostics.append(ctx.diag("HIP221", m.start(1), m.end(1), message))
        result.counts["includes"] += 1
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    texts=(
        Rule(
            "HIP135",
            "implicit-c-header",
            Severity.INFO,
            "C header nvcc includes implicitly, added",
            "Nothing to do; to keep the file as it was, include the header yourself.",
            "nvcc includes cuda_runtime.h in every .cu file, and it includes <string.h>, <stdlib.h>, "
            "<time.h>...: CUDA code calls `strlen` or `memcpy` without an include. ROCm 7's hip_runtime.h "
            "no longer declares string.h's functions for host code, so such a call fails to compile after "
            "translation. Which functions, per HIP version, was probed with nvcc and each hipcc "
            "(scripts/probe_implicit_includes.py, mappings/implicit-includes-<version>.yaml). C99's "
            "`isfinite`, `isnan`, `isinf`, `signbit`... are declared for host code by no HIP release "
            "(nvcc's math_functions.h has global overloads; <cmath> gives only `std::isfinite`): they get "
            "<math.h>. The header goes at the top of the include block of the converted file that calls one "
            "from host code.",
        ),
        Rule(
            "HIP221",
            "thrust-transitive-header",
            Severity.INFO,
            "thrust header CUDA's thrust includes on the way and rocThrust does not, added",
            "Nothing to do; to keep the file as it was, include the header yourself.",
            "CUDA code calls `thrust::copy` or `thrust::sequence` with only <thrust/device_vector.h> or "
            "<thrust/sort.h> included: CUDA's thrust headers include <thrust/copy.h>, "
            "<thrust/sequence.h>... on the way. The same rocThrust headers may not (ROCm 6.4), and the "
            "translated call fails. Which headers bring which along, per HIP version, was probed with nvcc "
            "and each hipcc (scripts/probe_thrust_includes.py, mappings/thrust-includes-<version>.yaml; "
            "ROCm 7.2's rocThrust brings everything CUDA 13's does); the header goes after the include that "
            "CUDA's would have brought it through. Code written for CUDA 11 calls any algorithm "
            "(`thrust::transform_reduce`) with only <thrust/device_vector.h>: Thrust 1.9-1.15 brought every "
            "algorithm along, Thrust 1.16+ and rocThrust do not; which headers brought which was "
            "preprocessed from Thrust 1.15 (scripts/probe_thrust11_includes.py, "
            "mappings/probed/thrust11-includes-7.2.yaml), and the algorithm's header is included for a call.",
        ),
    ),
    loads=(
        implicit_headers,
        thrust_headers,
        thrust11_headers,
    ),
    fixtures=(
        "implicit_includes",
        "installed/thrust_only",
    ),
)
