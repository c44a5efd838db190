"""CUDA identifiers -> HIP identifiers, with version/support diagnostics.

Candidates come from one compiled pattern over the whole file; the tree (or the lexer, in macro
bodies and error regions) decides whether each hit is code, a member, a comment or a string.
"""

from __future__ import annotations

from hipify_py.context import REWRITABLE, Context
from hipify_py.edits import Edit
from hipify_py.mappings import Entry, compare_versions
from hipify_py.options import Options
from hipify_py.rules import RuleResult


def replacement(entry: Entry, options: Options) -> tuple[str | None, bool]:
    """The name to write for `entry`, and whether --roc had to fall back to the hip* name."""
    if options.roc and entry.roc:
        return entry.roc, False
    fell_back = options.roc and entry.family in _ROC_FAMILIES and entry.hip is not None
    return entry.hip, fell_back


_ROC_FAMILIES = frozenset({"cublas", "curand", "cusolver", "cusparse", "cudnn"})


def _version_findings(entry: Entry, options: Options) -> list[tuple[str, str]]:
    """(rule id, message) pairs about versions for a supported entry."""
    found: list[tuple[str, str]] = []
    target = options.hip_version
    added = entry.roc_added if options.roc and entry.roc else entry.hip_added
    name = entry.roc if options.roc and entry.roc else entry.hip
    if target and added and compare_versions(added, target) > 0:
        verb = "left as is" if options.version_policy == "keep" else "rewritten"
        found.append(("HIP103", f"{entry.cuda} -> {name} needs HIP >= {added} (target {target}); {verb}"))
    removed = entry.roc_removed if options.roc and entry.roc else entry.hip_removed
    deprecated = entry.roc_deprecated if options.roc and entry.roc else entry.hip_deprecated
    if removed and (not target or compare_versions(removed, target) <= 0):
        found.append(("HIP104", f"{name} was removed in HIP {removed}"))
    elif deprecated and (not target or compare_versions(deprecated, target) <= 0):
        found.append(("HIP104", f"{name} is deprecated since HIP {deprecated}"))
    if entry.hip_experimental and not (options.roc and entry.roc):
        found.append(("HIP107", f"{entry.cuda} -> {name} is experimental (HIP {entry.hip_experimental})"))
    return found


def _cuda_status(entry: Entry) -> str | None:
    if entry.cuda_removed:
        return f"{entry.cuda} was removed in CUDA {entry.cuda_removed}"
    if entry.cuda_deprecated:
        return f"{entry.cuda} is deprecated since CUDA {entry.cuda_deprecated}"
    if entry.group_status:
        return f"{entry.cuda} belongs to a {entry.group_status} CUDA API group ({entry.group})"
    return None


def rename_identifiers(ctx: Context) -> RuleResult:
    result = RuleResult()
    names = ctx.tables.names
    namespaces = ctx.tables.cuda_namespaces
    for m in ctx.tables.candidates.finditer(ctx.source):
        token = m.group()
        entry = names.get(token)
        ns_target = namespaces.get(token)
        if entry is None and ns_target is None:
            continue
        start, end = m.span()
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        if entry is None:
            if _is_namespace_use(ctx.source, end):
                result.edits.append(Edit(start, end, ns_target))
                result.counts[f"identifiers.{_family_of_namespace(ctx, token)}"] += 1
            continue
        _rewrite_entry(ctx, entry, start, end, result)
    return result


def _is_namespace_use(source: bytes, end: int) -> bool:
    """`cub::` or `namespace cub` use, not a variable that happens to be called `cub`."""
    rest = source[end : end + 8].lstrip()
    return rest.startswith(b"::") or source[max(0, end - 40) : end].rstrip().endswith(b"namespace cub")


def _family_of_namespace(ctx: Context, token: bytes) -> str:
    for ns in getattr(ctx.tables.mappings, "namespaces", ()):
        if ns.cuda.encode() == token:
            return ns.family
    return "cub"


def _rewrite_entry(ctx: Context, entry: Entry, start: int, end: int, result: RuleResult) -> None:
    options = ctx.options
    status = _cuda_status(entry)
    if status:
        result.diagnostics.append(ctx.diag("HIP105", start, end, status))
    if entry.hip is None and not (options.roc and entry.roc):
        group = f" ({entry.family}: {entry.group})" if entry.group else f" ({entry.family})"
        result.diagnostics.append(
            ctx.diag("HIP101", start, end, f"{entry.cuda} has no HIP counterpart{group}")
        )
        result.counts["unsupported"] += 1
        return
    new, fell_back = replacement(entry, options)
    findings = _version_findings(entry, options)
    for rule_id, message in findings:
        result.diagnostics.append(ctx.diag(rule_id, start, end, message))
    if fell_back:
        result.diagnostics.append(
            ctx.diag("HIP106", start, end, f"{entry.cuda}: no ROC counterpart, using {entry.hip}")
        )
    too_new = any(rule_id == "HIP103" for rule_id, _ in findings)
    if new is None or new == entry.cuda or (too_new and options.version_policy == "keep"):
        return
    result.edits.append(Edit(start, end, new.encode()))
    result.counts[f"identifiers.{entry.family}"] += 1
