"""CUDA headers -> HIP headers, collapsing duplicates the rewrite creates."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.installed import is_missing
from hipify_py.data.renames import Rename, renames_for
from hipify_py.data.schema import Header
from hipify_py.data.vendor_libs import load_facts, probed_for
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.options import Options
from hipify_py.engine.source import line_matches, newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

# Libraries whose HIP/ROCm counterpart covers only part of the API: worth a warning on include.
_PARTIAL_LIBRARIES = frozenset({"nvtx", "nvml", "cutensor", "cudnn"})  # cudnn: only with --roc (MIOpen)
# NVIDIA's libcu++ headers (<cuda/pipeline>, <nv/target>): HIP has none of them (the atomics are written out).
# Their names have no extension, as the standard library's: `<cuda/mpi_stub.h>` is a project's own header.
_LIBCUXX_PREFIXES = (b"cuda/", b"nv/")


def _libcudacxx(path: bytes) -> bool:
    # CCCL's experimental libraries (cudax) name theirs `.cuh`: <cuda/experimental/stf.cuh>
    return path.startswith(_LIBCUXX_PREFIXES) and (
        b"." not in path.rpartition(b"/")[2] or path.startswith(b"cuda/experimental/")
    )


# A UTF-8 BOM may precede the first directive of a file.
_INCLUDE = lazy(rb'^(?:\xef\xbb\xbf)?[ \t]*#[ \t]*include[ \t]*(?:<([^>\n]+)>|"([^"\n]+)")', re.MULTILINE)

# A superset of _INCLUDE's paths, found fast (a literal start): does the file include any CUDA header?
_INCLUDED_PATH = lazy(rb'include[ \t]*[<"]([^>"\n]+)[>"]')


def header_target(header: Header, options: Options) -> str | None:
    if options.roc and header.roc:
        return header.roc
    if options.legacy_include_paths and header.legacy:
        return header.legacy
    return header.hip


def rewrite_includes(ctx: Context) -> RuleResult:
    result = RuleResult()
    # (enclosing preprocessor block start, resulting path) -> already included there
    included: set[tuple[int, bytes]] = set()
    headers = ctx.tables.headers
    paths = [path.strip() for path in _INCLUDED_PATH.findall(ctx.source)]
    missing = ctx.options.missing_headers
    prefixes = tuple(prefix for prefix, _ in ctx.tables.header_prefixes)
    if not any(p in headers or p.startswith(prefixes) or _libcudacxx(p) for p in paths) and not any(
        is_missing(p.decode(errors="replace"), missing) for p in paths
    ):
        return result  # why first: no CUDA header, nothing to do, and the file need not be parsed
    for_target = renames_for(ctx.target).headers if ctx.target else {}
    for m in line_matches(_INCLUDE, ctx.source):
        group = 1 if m.group(1) is not None else 2
        path_start, path_end = m.span(group)
        path = m.group(group)
        node = ctx.root.descendant_for_byte_range(path_start, path_end)
        include = node
        while include is not None and include.type != "preproc_include":
            include = include.parent
        if include is None or ctx.is_protected(m.start()):
            continue
        block = include.parent.start_byte if include.parent is not None else 0
        header = header_for(ctx, path.strip(), for_target)
        if header is None:
            if group == 1 and _libcudacxx(path.strip()):
                message = f"<{path.decode()}> has no HIP counterpart: HIP has no libcu++ (cuda::std::...)"
                result.diagnostics.append(ctx.diag("HIP101", path_start, path_end, message))
            _not_installed(ctx, path.strip().decode(errors="replace"), path_start, path_end, result)
            included.add((block, path.strip()))
            continue
        target = header_target(header, ctx.options)
        if target is None:
            note = f": {header.note}" if header.note else ""
            result.diagnostics.append(
                ctx.diag("HIP101", path_start, path_end, f"<{path.decode()}> has no HIP counterpart{note}")
            )
            continue
        _not_installed(ctx, target, path_start, path_end, result)
        if _too_new(ctx, header, target, path_start, path_end, result):
            included.add((block, path.strip()))
            continue
        key = (block, target.encode())
        if key in included:
            # Two CUDA headers mapping to one HIP header: drop the second include line.
            line_start = ctx.lines.line_start(m.start())
            comment = _trailing_comment(ctx.source, m.end())
            end = comment if comment is not None else _line_end(ctx.source, include.end_byte)
            result.edits.append(Edit(line_start, end, b""))
        else:
            included.add(key)
            result.edits.append(Edit(path_start, path_end, target.encode()))
            _not_packaged(ctx, header, target, path_start, path_end, result)  # once: a duplicate is dropped
            for brings in header.brings.split():
                _brought(ctx, header, brings, target, paths, include.end_byte, result)
        result.counts["includes"] += 1
    return result


def _brought(
    ctx: Context, header: Header, brings: str, target: str, paths: list[bytes], end: int, result: RuleResult
) -> None:
    """`#include <hipblas/hipblas.h>` after the include of cublasLt.h, which brings cublas_api.h along in
    CUDA, where the file calls a cuBLAS function and includes no header of it: hipblaslt.h declares only
    the common types (hipblas-common.h), not `hipblasStatusToString` or `hipblasCreate`. A type header
    (the device family) is included always when another type header brings it (cuda_bf16.h brings
    cuda_fp16.h, hip_bf16.h not hip_fp16.h), and where the file uses its names (its `uses`) when a
    library header does (cublas_api.h brings cuda_fp16.h, hipblas.h only under HIPBLAS_USE_HIP_HALF)."""
    brought = ctx.tables.headers.get(brings.encode())
    other = header_target(brought, ctx.options) if brought is not None else None
    if brought is None or other is None or other == target:
        return
    if any(p == other.encode() or _target_of(ctx, p) == other for p in paths):
        return
    if brought.family == "device":
        # why whatever the file uses, from a type header: a type header's names (`half` through
        # cuda_bf16.h) are used as much by the files that include this one as by the file itself
        if header.family != "device" and not _uses(ctx, brought.uses):
            return
        _include_after(ctx, end, other, result)
        message = f"<{header.cuda}> brings <{brought.cuda}> along and <{target}> does not: <{other}> included"
        start = ctx.lines.line_start(end - 1)
        result.diagnostics.append(ctx.diag("HIP232", start, max(start, end - 1), message))
        return
    own, stem = _stem(target), _stem(other)
    later = renames_for(ctx.target).names if ctx.target else {}
    for name in sorted(ctx.identifiers):
        entry = ctx.tables.names.get(name)
        rename = later.get(name)
        hip = ((rename.hip if rename is not None else entry.hip) or "").lower() if entry is not None else ""
        if entry is None or entry.family != brought.family or not hip.startswith(stem) or hip.startswith(own):
            continue
        if entry.kind != "function":
            continue  # the types and enumerators the two share are in the header both include
        use = next(
            (
                m
                for m in re.finditer(rb"\b" + name + rb"\b", ctx.source)
                if ctx.classify(*m.span()) in REWRITABLE
            ),
            None,
        )
        if use is not None:
            _include_after(ctx, end, other, result)
            message = (
                f"`{name.decode()}` is declared by <{other}>, which <{header.cuda}> brings along as "
                f"<{brought.cuda}> and <{target}> does not: included"
            )
            result.diagnostics.append(ctx.diag("HIP232", *use.span(), message))
            return


def _uses(ctx: Context, names: str) -> bool:
    if not names:
        return False
    found = compiled(names.encode()).finditer(ctx.source)
    return any(ctx.classify(*m.span()) in REWRITABLE for m in found)


def _include_after(ctx: Context, end: int, header: str, result: RuleResult) -> None:
    nl = newline_of(ctx.source)
    text = (nl if ctx.source[end - 1 : end] != b"\n" else b"") + b"#include <" + header.encode() + b">" + nl
    result.edits.append(Edit(end, end, text))


def _stem(path: str) -> str:
    return path.rpartition("/")[2].removesuffix(".h").lower()


def _target_of(ctx: Context, path: bytes) -> str | None:
    row = ctx.tables.headers.get(path)
    return header_target(row, ctx.options) if row is not None else None


def header_for(ctx: Context, path: bytes, for_target: Mapping[bytes, Rename]) -> Header | None:
    """The headers.yaml row for an included path, with the target's own counterpart where
    version-renames.yaml has one."""
    header = ctx.tables.headers.get(path) or _under_folder(ctx, path)
    rename = for_target.get(path)
    if header is not None and rename is not None:
        header = header._replace(hip=rename.hip, legacy=None, roc=None, hip_added="", note="")
    return header


def _under_folder(ctx: Context, path: bytes) -> Header | None:
    """A `dir/*` row of headers.yaml (thrust/system/cuda/* -> thrust/system/hip/*) as a row for `path`."""
    for prefix, row in ctx.tables.header_prefixes:
        if path.startswith(prefix) and len(path) > len(prefix):
            rest = path[len(prefix) :].decode("utf-8", "replace")

            def under(target: str | None, rest: str = rest) -> str | None:
                return target[:-1] + rest if target and target.endswith("*") else target

            return Header(
                path.decode("utf-8", "replace"),
                under(row.hip),
                row.family,
                under(row.legacy),
                under(row.roc),
                row.note,
                row.hip_added,
            )
    return None


def _not_installed(ctx: Context, path: str, start: int, end: int, result: RuleResult) -> None:
    """HIP128: the (translated) include names a ROCm library header the installed HIP lacks."""
    missing = ctx.options.missing_headers
    if is_missing(path, missing):
        library = path.partition("/")[0] if "/" in path else path.rpartition(".")[0]
        message = f"<{path}> is not installed beside the HIP in use (no `{library}` package): the build fails"
        hint = None
        modern = _modern_form(ctx, path)
        if modern is not None and not is_missing(modern, missing):
            message = (
                f"<{path}> is not installed beside the HIP in use, which has the library's header only as "
                f"<{modern}> (ROCm 7 dropped the flat headers): the build fails"
            )
            hint = f"Include <{modern}>, which every ROCm from 5.x ships."
        result.diagnostics.append(ctx.diag("HIP128", start, end, message, hint))


def _modern_form(ctx: Context, path: str) -> str | None:
    """`hipfft/hipfft.h` for the flat `hipfft.h` (a headers.yaml row's legacy form), else None."""
    for header in ctx.tables.mappings.headers.values():
        if header.legacy == path and header.hip and header.hip != path:
            return header.hip
    return None


def _not_packaged(
    ctx: Context, header: Header, target: str, start: int, end: int, result: RuleResult
) -> None:
    """HIP140: the target release has no installable package of the library the include now names (RCCL,
    roctx: mappings/vendor-libs-<version>.yaml), unless HIP128 already says the installed HIP lacks it."""
    library = load_facts(ctx.options.hip_version).libraries.get(header.family)
    if library is None or not probed_for(library, ctx.options.hip_version):
        return
    if is_missing(target, ctx.options.missing_headers):
        return  # HIP128 said it at this include
    if library.packaged and target in library.unusable:
        message = (
            f"<{target}>: ROCm {library.release}'s {library.package} installs it without the headers it "
            f"includes: the build fails here unless AMD's {library.name} for this release is installed"
        )
    elif library.packaged:
        return
    else:
        message = (
            f"<{target}>: ROCm {library.release} has no installable {library.name} package "
            f"({library.package}); the build fails here unless AMD's {library.name} for this release is "
            "installed, and what it lacks is not checked"
        )
    result.diagnostics.append(ctx.diag("HIP140", start, end, message))


def _trailing_comment(source: bytes, offset: int) -> int | None:
    """Start of a comment after the include's path on the same line: the comment is kept, not deleted."""
    rest = source[offset : offset + 256].lstrip(b" \t")
    if rest.startswith((b"//", b"/*")):
        return offset + source[offset : offset + 256].index(rest[:2])
    return None


def _line_end(source: bytes, offset: int) -> int:
    """Offset just past the newline ending the line that contains offset-1 (the include)."""
    if offset > 0 and source[offset - 1 : offset] == b"\n":
        return offset
    nl = source.find(b"\n", offset)
    return len(source) if nl == -1 else nl + 1


def _too_new(ctx: Context, header: Header, target: str, start: int, end: int, result: RuleResult) -> bool:
    """Report version/partial-library notes; True when --version-policy keep leaves the include."""
    hip_added = header.hip_added
    target_version = ctx.options.hip_version
    too_new = bool(hip_added and target_version and compare_versions(hip_added, target_version) > 0)
    keep = too_new and ctx.options.version_policy == "keep"
    if too_new:
        verb = "left as is" if keep else "rewritten"
        note = f"; {header.note}" if header.note else ""
        message = f"<{target}> needs HIP >= {hip_added} (target {target_version}); {verb}{note}"
        result.diagnostics.append(ctx.diag("HIP103", start, end, message))
    if header.note and header.family in _PARTIAL_LIBRARIES:
        result.diagnostics.append(
            ctx.diag("HIP110", start, end, f"<{header.cuda}> -> <{target}>: {header.note}")
        )
    return keep


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={10: rewrite_includes},
    texts=(
        Rule(
            "HIP128",
            "library-not-installed",
            Severity.ERROR,
            "ROCm library header not installed",
            "Install the ROCm package that provides it (hipCUB, rocThrust, hipBLAS, hipFFT, hipSOLVER, ...; "
            "Debian 12 packages none of these), or build where ROCm is complete.",
            "The translation is right, but the installed HIP (found from hipcc on PATH, $ROCM_PATH, "
            "/opt/rocm, /usr) has no such header, so the build fails at this include. Checked once per run "
            "for every library header the tables can write (and rocThrust's thrust/); not reported when no "
            "HIP is installed or in code hipcc never compiles.",
        ),
        Rule(
            "HIP232",
            "brought-header",
            Severity.INFO,
            "A library header the CUDA one brings along is included",
            "Nothing to do; to keep the file as it was, include the header yourself.",
            "Some CUDA headers include another library header whose HIP counterpart the HIP header does not "
            "include (cublasLt.h includes cublas_api.h; hipblaslt.h only hipblas-common.h), so a file that "
            "includes the one and calls the other's API (`cublasGetStatusString`, `cublasCreate`) would "
            "compile with nvcc and not with hipcc. The HIP header of the brought one (headers.yaml `brings`) "
            "is included after it where the file uses one of its names and includes none of its headers; "
            "a type header always (cuda_bf16.h includes cuda_fp16.h, hip_bf16.h not hip_fp16.h: `half` "
            "and `__float2half` are used through it, in the file or in the files that include it).",
        ),
        Rule(
            "HIP140",
            "library-not-packaged",
            Severity.ERROR,
            "The target ROCm release has no installable package of this library (RCCL, roctx)",
            "Install the library from AMD's ROCm repositories for this release (RCCL: librccl-dev/rccl, "
            "roctx: roctracer), or build for a release that packages it.",
            "NCCL code includes <rccl/rccl.h> after translation (RCCL keeps the nccl* names), NVTX code "
            "<roctracer/roctx.h>. Where the target's Debian has no installable package of that library "
            "(mappings/vendor-libs-<version>.yaml: HIP 5.2 has neither RCCL nor roctx, ROCm 6.4's RCCL 5.4 "
            "package needs HIP 5), the include fails and which names that library lacks cannot be checked; "
            "so does an include of a header the package installs without what it includes (ROCm 7.2's "
            "rccl/nccl_net.h). Reported at the include, only for a target whose table was probed for that "
            "very release and not where HIP128 already says the installed HIP lacks the header.",
        ),
    ),
    loads=(load_facts,),
    fixtures=(
        "includes",
        "include_order/cooperative_groups_first",
        "libraries",
        "installed/libraries_not_installed",
        "installed_rocm7/*",
        "guards/libraries_not_packaged",
    ),
)
