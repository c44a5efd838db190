"""libcu++'s `cuda::std::X`: C++'s `std::X` on AMD, CUDA's own on HIP's NVIDIA platform (HIP156, HIP157).

CUDA code reaches libcu++ through <cuda/std/...> or, without an include, through Thrust and CUB (CCCL):
`typename cuda::std::iterator_traits<It>::difference_type`, `cuda::std::numeric_limits<float>::max()`.
ROCm ships no libcu++, so the name was undeclared and nothing said so. The standard library's traits,
limits, tuples, arrays, function objects and constexpr functions are usable in HIP device code (clang
compiles constexpr functions for the device), so on AMD `namespace cuda { namespace std { using namespace
::std; } }` makes `cuda::std::X` name `std::X` and the code keeps its spelling: on HIP's NVIDIA platform
CUDA's libcu++ stays in use (nvcc takes std:: constexpr functions in device code only with
--expt-relaxed-constexpr). A `<cuda/std/X>` include gets that block from its header shim
(header-shims.yaml, `<X>` on AMD); a file that reaches libcu++ without one gets it here, before the
declaration of the first use, with the standard headers its names need. mappings/libcudacxx-std.yaml lists
the names, and those C++17 device code cannot take as std:: (a warning where device code uses them).
libcu++ also declares some C++20 names in C++14 and C++17 (`cuda::std::identity`), and makes swap, exchange
and not_fn device functions there: below C++20 a block per such name declares it in cuda::std (the table's
`backports`); from C++20 on the standard library's is used. Other names get HIP101. libcu++'s atomics are
their own header shim's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data import derived
from hipify_py.data.mappings import hand_kept_dir
from hipify_py.data.version_ranges import read_table
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.detectors.common import DeviceSpans
from hipify_py.rules.registry import declare
from hipify_py.rules.shims import _below_top_comments, _position
from hipify_py.util.lazyre import lazy

TABLE_NAME = "libcudacxx-std.yaml"
# `cuda::std::X`, `::cuda::std::X` (blanks between the tokens), not `other::cuda::std::X`
_USE = lazy(rb"(?<![\w:])(?:::\s*)?cuda\s*::\s*std\s*::\s*([A-Za-z_]\w*)")
_INCLUDE_PATH = lazy(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.MULTILINE)
# defined by the header shim of <cuda/atomic>, <cuda/std/atomic> (header-shims.yaml)
_SHIM_NAMES = lazy(rb"atomic|memory_order|thread_scope|kill_dependency")


class Backport(NamedTuple):
    """A C++20 name libcu++ declares before C++20 too: `code` declares it in cuda::std below C++20."""

    key: str  # the name its block is guarded by (`type_identity` for type_identity_t too)
    include: tuple[str, ...]  # the standard headers it needs in every dialect
    include20: str | None  # the header that declares it from C++20 on, which C++17 may lack (<bit>)
    code: str


class StdNames(NamedTuple):
    headers: Mapping[str, str]  # exact name -> the standard header that declares it
    prefixes: tuple[tuple[str, str], ...]  # (name prefix, header): the type-trait families
    limited: Mapping[str, tuple[str, str]]  # name -> (header, why C++17 device code cannot take it)
    backports: Mapping[str, Backport] = {}  # name -> its declaration below C++20

    def header_of(self, name: str) -> str | None:
        found = self.headers.get(name)
        if found is None:
            found = next((h for prefix, h in self.prefixes if name.startswith(prefix)), None)
        return found


@functools.lru_cache(maxsize=1)
def std_names(path: Path | None = None) -> StdNames:
    if path is None:  # the shipped table: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("libcudacxx-std", _build)
    return _build(path)


def _build(path: Path | None = None) -> StdNames:
    doc, _ = read_table(path or hand_kept_dir() / TABLE_NAME)
    headers: dict[str, str] = {}
    prefixes: list[tuple[str, str]] = []
    for header, row in (doc.get("headers") or {}).items():
        headers.update(dict.fromkeys(map(str, row.get("names") or ()), str(header)))
        prefixes += [(str(p), str(header)) for p in row.get("prefixes") or ()]
    limited = {str(n): (str(r["header"]), str(r["why"])) for n, r in (doc.get("device_limits") or {}).items()}
    backports: dict[str, Backport] = {}
    for key, row in (doc.get("backports") or {}).items():
        needs = row.get("include") or ()
        needs = (needs,) if isinstance(needs, str) else tuple(map(str, needs))
        port = Backport(str(key), needs, row.get("include20"), str(row["code"]).strip())
        backports.update(dict.fromkeys(map(str, row["names"]), port))
    return StdNames(headers, tuple(prefixes), limited, backports)


def translate_cuda_std(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"cuda" not in ctx.source or b"std" not in ctx.source:  # why: a C-speed test spares most files
        return result
    table = std_names()
    included = {m.group(1).strip().decode(errors="replace") for m in _INCLUDE_PATH.finditer(ctx.source)}
    reported: set[str] = set()
    wanted: set[str] = set()
    ported: set[Backport] = set()
    first: int | None = None
    device: DeviceSpans | None = None
    for m, where in ctx.code_matches(_USE):
        name = m.group(1).decode()
        if where not in REWRITABLE or _SHIM_NAMES.match(m.group(1)):
            continue
        port = table.backports.get(name)
        if port is not None:  # before the families: is_bounded_array is no C++17 type trait
            first = m.start() if first is None else first
            ported.add(port)
            continue
        header = table.header_of(name)
        limit = table.limited.get(name)
        if header is None and limit is None:
            if name not in reported:
                message = f"cuda::std::{name} has no HIP counterpart: HIP has no libcu++ (cuda::std::...)"
                result.diagnostics.append(ctx.diag("HIP101", m.start(1), m.end(1), message))
                reported.add(name)
            continue
        first = m.start() if first is None else first
        header = header or limit[0]  # type: ignore[index]
        if header not in included and f"cuda/std/{header}" not in included:
            wanted.add(header)
        if name in reported:
            continue
        reported.add(name)
        device = device or DeviceSpans(ctx)
        # a C++20 name is one in host code too; C++20's constexpr matters in device code only
        if limit is not None and ("-std=c++20" in limit[1] or device.contains(m.start())):
            message = f"cuda::std::{name} is std::{name} on AMD: {limit[1]}"
            result.diagnostics.append(ctx.diag("HIP157", m.start(1), m.end(1), message))
    if first is None:
        return result
    result.requests += [Insertion.include(h.encode()) for h in sorted(wanted)]
    nl = newline_of(ctx.source)
    at = _below_top_comments(ctx, _file_scope(ctx, first))
    if not any(h.startswith("cuda/std/") for h in included) and GUARD.encode() not in ctx.source:
        result.requests.append(Insertion.helper(at, _block(nl)))
        message = "libcu++ is C++'s standard library under cuda::std: cuda::std names ::std here on AMD"
        result.diagnostics.append(ctx.diag("HIP156", first, first + 4, message))
        result.counts["shims"] += 1
    for port in sorted(ported):
        if f"{BACKPORT}{port.key}".encode() not in ctx.source:
            result.requests.append(Insertion.helper(at, _backport_block(port, nl)))
            result.counts["shims"] += 1
    return result


GUARD = "HIPIFY_PY_SHIM_libcudacxx_std"


def _file_scope(ctx: Context, offset: int) -> int:
    """Where the block goes: before the declaration of the first use, never inside a namespace (the
    block declares ::cuda)."""
    at = _position(ctx, offset)
    node = ctx.root
    while (
        True
    ):  # nor inside an #if group (hypre's `#elif` of a macro that uses cuda::std), bar a header guard
        outer = next((c for c in node.children if c.start_byte <= at < c.end_byte), None)
        if outer is None or outer.start_byte >= at:
            return at
        if outer.type == "namespace_definition":
            return ctx.lines.line_start(outer.start_byte)
        if outer.type not in _GROUPS:
            return at
        if not _header_guard(ctx, outer):
            return ctx.lines.line_start(outer.start_byte)
        node = outer


_GROUPS = frozenset({"preproc_if", "preproc_ifdef"})


def _header_guard(ctx: Context, group: Node) -> bool:
    """`#ifndef X_H` whose first line inside is `#define X_H`."""
    name = group.child_by_field_name("name")
    text = ctx.source[group.start_byte : group.start_byte + 8]
    if name is None or not text.startswith(b"#ifndef"):
        return False
    body = next((c for c in group.children if c.type == "preproc_def"), None)
    defined = body.child_by_field_name("name") if body is not None else None
    return (
        defined is not None
        and ctx.source[defined.start_byte : defined.end_byte] == ctx.source[name.start_byte : name.end_byte]
    )


def _block(nl: bytes) -> bytes:
    lines = (
        b"// hipify-py: HIP has no libcu++; cuda::std is the C++ standard library's std here:",
        b"#if !defined(" + GUARD.encode() + b") && !defined(__HIP_PLATFORM_NVIDIA__)",
        b"#define " + GUARD.encode(),
        b"namespace cuda { namespace std { using namespace ::std; } }",
        b"#endif",
    )
    return nl.join(lines) + nl


BACKPORT = "HIPIFY_PY_SHIM_backport_"  # a shim guard: earlier runs' blocks are left alone


def _backport_block(port: Backport, nl: bytes) -> bytes:
    """cuda::std::X below C++20 as libcu++ has it; from C++20 on the standard library's std::X, which
    the using-directive of the block above (or of a <cuda/std/X> shim) makes cuda::std::X."""
    guard = f"{BACKPORT}{port.key}".encode()
    lines = [
        b"// hipify-py: libcu++ has cuda::std::"
        + port.key.encode()
        + b" before C++20 too; so does this block:",
        b"#if !defined(" + guard + b") && !defined(__HIP_PLATFORM_NVIDIA__)",
        b"#define " + guard,
    ]
    lines += [b"#include <" + header.encode() + b">" for header in port.include]
    lines.append(b"#if __cplusplus < 202002L")
    lines.append(b"namespace cuda { namespace std { " + port.code.encode() + b" } }")
    if port.include20:
        lines += (b"#else", b"#include <" + port.include20.encode() + b">")
    lines += (b"#endif", b"#endif")
    return nl.join(lines) + nl


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={26: translate_cuda_std},
    tables=(std_names,),
    texts=(
        Rule(
            "HIP156",
            "libcudacxx-std",
            Severity.INFO,
            "libcu++ (cuda::std::X) is the C++ standard library's std::X on AMD",
            "Nothing to do; the block switches itself off on HIP's NVIDIA platform, where CUDA's libcu++ "
            "is used.",
            "ROCm ships no libcu++. The standard library's type traits, numeric_limits, iterator traits, "
            "pair/tuple/array, min/max/clamp, function objects, fixed-width integers and <cmath> functions "
            "are usable in HIP device code (clang compiles constexpr functions for the device), so on AMD "
            "`namespace cuda { namespace std { using namespace ::std; } }` makes cuda::std name std, after "
            "a <cuda/std/X> include (written <X>) or before the first use in a file that reaches libcu++ "
            "through Thrust or CUB; the code keeps its spelling and HIP's NVIDIA platform keeps CUDA's "
            "libcu++ (mappings/libcudacxx-std.yaml lists the names). Other cuda::std names keep HIP101.",
        ),
        Rule(
            "HIP157",
            "libcudacxx-std-device",
            Severity.WARNING,
            "A libcu++ name that C++17 code (or C++17 device code) cannot take as std::X",
            "Write it out in this device code (assign the tuple's elements one by one), or build with "
            "-std=c++20 where the message says so.",
            "Assignment through `cuda::std::tie` and `cuda::std::span` name their std:: counterparts on AMD: "
            "in device code tuple's operator= is a host function before C++20 (reported in device code); "
            "span is C++20 (reported wherever it is used). The C++20 names libcu++ has before C++20 too "
            "(identity, type_identity, remove_cvref, is_bounded_array, is_unbounded_array, "
            "is_constant_evaluated, bit_cast) and the functions the standard makes constexpr only in C++20 "
            "(swap, exchange, not_fn) are declared in cuda::std by the translation below C++20, as libcu++ "
            "declares them (mappings/hand-kept/libcudacxx-std.yaml, `backports`): no finding.",
        ),
    ),
    fixtures=("libcudacxx/*", "libcudacxx/*/*"),
)
