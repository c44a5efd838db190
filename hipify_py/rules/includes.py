"""CUDA headers -> HIP headers, collapsing duplicates the rewrite creates."""

from __future__ import annotations

import re

from hipify_py.context import Context
from hipify_py.edits import Edit
from hipify_py.mappings import Header, compare_versions
from hipify_py.options import Options
from hipify_py.rules import RuleResult

# Libraries whose HIP/ROCm counterpart covers only part of the API: worth a warning on include.
_PARTIAL_LIBRARIES = frozenset({"nvtx", "nvml", "cutensor"})
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:<([^>\n]+)>|"([^"\n]+)")', re.MULTILINE)


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
    for m in _INCLUDE.finditer(ctx.source):
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
        header = ctx.tables.headers.get(path.strip())
        if header is None:
            included.add((block, path.strip()))
            continue
        target = header_target(header, ctx.options)
        if target is None:
            note = f": {header.note}" if header.note else ""
            result.diagnostics.append(
                ctx.diag("HIP101", path_start, path_end, f"<{path.decode()}> has no HIP counterpart{note}")
            )
            continue
        _check_header_version(ctx, header, target, path_start, path_end, result)
        key = (block, target.encode())
        if key in included:
            # Two CUDA headers mapping to one HIP header: drop the second include line.
            line_start = ctx.lines.line_start(m.start())
            result.edits.append(Edit(line_start, _line_end(ctx.source, include.end_byte), b""))
        else:
            included.add(key)
            result.edits.append(Edit(path_start, path_end, target.encode()))
        result.counts["includes"] += 1
    return result


def _line_end(source: bytes, offset: int) -> int:
    """Offset just past the newline ending the line that contains offset-1 (the include)."""
    if offset > 0 and source[offset - 1 : offset] == b"\n":
        return offset
    nl = source.find(b"\n", offset)
    return len(source) if nl == -1 else nl + 1


def _check_header_version(
    ctx: Context, header: Header, target: str, start: int, end: int, result: RuleResult
) -> None:
    hip_added = getattr(header, "hip_added", "")
    if hip_added and ctx.options.hip_version and compare_versions(hip_added, ctx.options.hip_version) > 0:
        result.diagnostics.append(
            ctx.diag(
                "HIP103",
                start,
                end,
                f"<{target}> needs HIP >= {hip_added} (target {ctx.options.hip_version})",
            )
        )
    if header.note and header.hip is not None and header.family in _PARTIAL_LIBRARIES:
        result.diagnostics.append(
            ctx.diag("HIP110", start, end, f"<{header.cuda}> -> <{target}>: {header.note}")
        )
