"""CUDA identifiers -> HIP identifiers, with version/support diagnostics.

Candidates come from one compiled pattern over the whole file; the tree (or the lexer, in macro
bodies and error regions) decides whether each hit is code, a member, a comment or a string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.analysis.project_aliases import defined_aliases
from hipify_py.data.renames import Rename, renames_for
from hipify_py.data.renames import load_table as _renames_table
from hipify_py.data.schema import Entry
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Diagnostic, Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.options import Options
from hipify_py.engine.parser import Node, has_ancestor
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.rules.symbol_tables import kept_table_entry, member_arguments
from hipify_py.util.lazyre import lazy

# why module-level: compiled from the shipped programs (util/lazyre.py), not by each worker
_CLOSING = lazy(rb"[ \t]*\)")


def replacement(entry: Entry, options: Options) -> tuple[str | None, bool]:
    """The name to write for `entry`, and whether --roc had to fall back to the hip* name."""
    if options.roc and entry.roc:
        return entry.roc, False
    fell_back = options.roc and entry.family in _ROC_FAMILIES and entry.hip is not None
    return entry.hip, fell_back


_ROC_FAMILIES = frozenset({"cublas", "curand", "cusolver", "cusparse", "cudnn"})


def _version_findings(
    entry: Entry, options: Options, absent_in: Mapping[str, str], present_in: Mapping[str, str] | None = None,
    removed_in: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:  # fmt: skip
    """(rule id, message) pairs about versions for a supported entry. `absent_in` and `removed_in`
    (mappings/hip-headers-*.yaml) catch names the tables date too early or do not know were removed
    (ROCm 7.2 dropped HIP_MEMSET_NODE_PARAMS)."""
    found: list[tuple[str, str]] = []
    target = options.hip_version
    added = entry.roc_added if options.roc and entry.roc else entry.hip_added
    name = entry.roc if options.roc and entry.roc else entry.hip
    verb = "left as is" if options.version_policy == "keep" else "rewritten"
    checked = absent_in.get(name or "", "")
    seen = (present_in or {}).get(name or "", "")  # a real install this old declares it: dated too late
    if (
        target
        and added
        and compare_versions(added, target) > 0
        and not (seen and compare_versions(target, seen) >= 0)
    ):
        found.append(("HIP103", f"{entry.cuda} -> {name} needs HIP >= {added} (target {target}); {verb}"))
    elif target and checked and compare_versions(target, checked) <= 0:
        dated = f"the tables say {added}" if added else "the tables give no version"
        where = f"not in the HIP {checked} headers ({dated}; target {target})"
        found.append(("HIP103", f"{entry.cuda} -> {name} is {where}; {verb}"))
    gone = (removed_in or {}).get(name or "", "")
    if target and gone and compare_versions(target, gone) >= 0 and not found:
        gone_text = f"{entry.cuda} -> {name} is not in the HIP {gone} headers (removed; target {target})"
        found.append(("HIP103", f"{gone_text}; {verb}"))
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
    matches = list(ctx.tables.candidates.finditer(ctx.source, ctx.identifiers))
    shimmed = _shim_definitions(ctx, matches) | _user_definitions(ctx, matches)
    alias_names = _alias_names(ctx, matches)
    for_target = renames_for(ctx.target).names if ctx.target else {}
    project = _project_aliases(ctx)
    members = member_arguments(ctx)
    for m in matches:
        token = m.group()
        entry = names.get(token)
        ns_target = namespaces.get(token)
        nested = ctx.tables.nested_namespaces.get(token)
        if (entry is None and ns_target is None and nested is None) or token in shimmed:
            continue
        start, end = m.span()
        if start in alias_names:
            continue
        if ctx.is_protected(start) or ctx.classify(start, end) not in REWRITABLE:
            continue
        if entry is None and ns_target is None and nested is not None:
            target = _nested_target(ctx.source, start, nested)
            if target is not None:
                result.edits.append(Edit(start, end, target))
                result.counts["identifiers.thrust"] += 1
            continue
        if entry is None:
            if ns_target != token and _is_namespace_use(ctx.source, start, end) and not _nested(ctx, start):
                result.edits.append(Edit(start, end, ns_target))
                result.counts[f"identifiers.{_family_of_namespace(ctx, token)}"] += 1
            continue
        if entry.kind == "function" and (start in members or kept_table_entry(ctx, start, end, result)):
            continue
        rename = for_target.get(token)
        if token in project and _project_rename(ctx, entry, rename, start, end, project[token], result):
            continue
        if rename is not None:
            _rename_for_target(ctx, entry, rename, start, end, result)
            continue
        _rewrite_entry(ctx, entry, start, end, result)
    result.diagnostics.extend(_pasted_names(ctx))
    return result


def _project_aliases(ctx: Context) -> dict[bytes, bytes]:
    """The project's own mapping of CUDA names where it differs from the tables: from the headers this
    file includes (Options.project_aliases) and, first, from the file itself."""
    found = {cuda.encode(): hip.encode() for cuda, hip in ctx.options.project_aliases}
    if b"hip" in ctx.source or b"HIP" in ctx.source:
        found.update(defined_aliases(ctx.source, ctx.tables.names))
    return found


def _project_rename(
    ctx: Context, entry: Entry, rename: Rename | None, start: int, end: int, hip: bytes, result: RuleResult
) -> bool:
    """A use of a name the project maps itself becomes the project's HIP name (HIP170); its definition
    stays. False where the tables' name for the target is the project's, or another version of it, or
    where the target's headers lack the project's name (probed)."""
    ours = rename.hip if rename is not None else entry.hip
    if ours is not None and _unversioned(ours.encode()) == _unversioned(hip):
        return False  # the same API in another version (hipblasGemmEx for hipblasGemmEx_v2, chosen with
        # its arguments' types): the tables' version holds
    lacking = ctx.tables.mappings.absent_in.get(hip.decode(), "")
    if ctx.target and lacking and compare_versions(ctx.target, lacking) <= 0:
        return False  # the target's headers lack the project's name (probed): the tables' name holds
    if _definition(ctx, start, end) is None:
        result.edits.append(Edit(start, end, hip))
        result.counts["identifiers.project"] += 1
        theirs = f"the tables' {ours}" if ours else "no HIP counterpart in the tables"
        message = f"{entry.cuda} written as {hip.decode()}, as the project's own HIP mapping has it"
        message += f" ({theirs})"
        result.diagnostics.append(ctx.diag("HIP170", start, end, message))
    return True


_VERSION_SUFFIX = lazy(rb"_v\d+$")


def _unversioned(name: bytes) -> bytes:
    return _VERSION_SUFFIX.sub(b"", name)


# Declarator wrappers between a defined name and its definition node.
_DECLARATORS = frozenset(
    {"function_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator"}
)
# node type -> field holding the name it defines
_NAMED = {
    "preproc_def": "name",
    "preproc_function_def": "name",
    "enumerator": "name",
    "enum_specifier": "name",
    "struct_specifier": "name",
    "union_specifier": "name",
    "class_specifier": "name",
}
# `\b(?:hip[A-Za-z_]|HIP[A-Z]*_|roc[a-z]*_)\w*` (HIPBLAS_C_32F too) with the boundary checked behind the
# first letter (`h(?<!\wh)` == `\bh`): the engine searches for the letters instead of trying every byte
_HIP_NAME = lazy(rb"(?:h(?<!\wh)ip[A-Za-z_]|H(?<!\wH)IP[A-Z]*_|r(?<!\wr)oc[a-z]*_)\w*")


def _shim_definitions(ctx: Context, matches: list[re.Match[bytes]]) -> frozenset[bytes]:
    """CUDA names a CUDA-on-HIP compatibility shim defines itself: they stay as they are in the file.

    `cudaError_t cudaGetLastError() { return hipGetLastError(); }` would become a second definition of
    hipGetLastError calling itself. A definition is a shim's when the file includes HIP headers or the
    definition itself uses the HIP name it would be renamed to.
    """
    if not matches or not _HIP_NAME.search(ctx.source):
        return frozenset()
    hip_file = ctx.includes_hip
    found = set()
    for m in matches:
        entry = ctx.tables.names.get(m.group())
        definition = _definition(ctx, m.start(), m.end()) if entry is not None else None
        if definition is None or _elsewhere(ctx, definition.start_byte):
            continue
        text = ctx.source[definition.start_byte : definition.end_byte]
        if _is_alias(text, entry):
            continue  # `#define cudaStream_t hipStream_t`: the uses mean the HIP name either way, rename them
        if hip_file or _HIP_NAME.search(text):
            found.add(m.group())
    return frozenset(found)


# an object-like macro that names one identifier: `#define cudaStream_t hipStream_t`
_ALIAS_DEFINE = lazy(rb"[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\w+)[ \t]*(?://[^\n]*)?\r?\n?\Z")


def _is_alias(text: bytes, entry: object) -> bool:
    """`text` (a definition) makes the CUDA name a macro for exactly its HIP counterpart."""
    alias = _ALIAS_DEFINE.match(text)
    hip = getattr(entry, "hip", None)
    return alias is not None and hip is not None and alias.group(2) == hip.encode()


def _alias_names(ctx: Context, matches: list[re.Match[bytes]]) -> frozenset[int]:
    """Where the file's own `#define cudaX hipX` names cudaX: that name stays as written (the uses are
    renamed; a `#define hipX hipX` would say nothing)."""
    if not matches or b"define" not in ctx.source:
        return frozenset()
    found = set()
    for m in matches:
        entry = ctx.tables.names.get(m.group())
        definition = _definition(ctx, m.start(), m.end()) if entry is not None else None
        text = ctx.source[definition.start_byte : definition.end_byte] if definition is not None else b""
        if definition is not None and definition.type == "preproc_def" and _is_alias(text, entry):
            found.add(m.start())
    return frozenset(found)


def _user_definitions(ctx: Context, matches: list[re.Match[bytes]]) -> frozenset[bytes]:
    """Names with no HIP counterpart that the file defines itself (`inline void memoryBarrier() {...}`,
    a `#define`, a typedef): every use in the file is the user's, not the CUDA API of that name."""
    found = set()
    for m in matches:
        entry = ctx.tables.names.get(m.group())
        if entry is None or entry.hip is not None:
            continue
        definition = _definition(ctx, m.start(), m.end())
        if definition is not None and _elsewhere(ctx, definition.start_byte):
            continue
        if definition is not None or _macro_defines(ctx, m.start(), m.end()):
            found.add(m.group())
    return frozenset(found)


def _elsewhere(ctx: Context, offset: int) -> bool:
    """A definition the translated code may be compiled without: in a branch hipcc never compiles
    (ctx.branches), or in a HIP-platform branch (`#else` of `#ifndef USE_ROCM`), which the translated
    CUDA branch beside it does not see when the output is built without that macro. The uses outside
    then take the HIP name, which holds in either build; the definition itself stays (protected)."""
    if ctx.in_hip_branch(offset):
        return True
    return any(a <= offset < b for a, b in ctx.branches.dead)


_MACRO_CALL = lazy(rb"(?:^|[;}\n])[ \t]*([A-Za-z_]\w*)[ \t]*\([ \t]*\Z")
_FUNCTION_MACRO = r"^[ \t]*#[ \t]*define[ \t]+{0}\(([^)]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)"


def _macro_defines(ctx: Context, start: int, end: int) -> bool:
    """`MAKE_FUNCTOR(saturate)` at file scope, with `#define MAKE_FUNCTOR(func) ... T func(...) {...}` in
    the file: the macro defines a function of that name, the file's own."""
    src = ctx.source
    line = src.rfind(b"\n", 0, start) + 1
    call = _MACRO_CALL.search(src, max(0, line - 1), start)
    if call is None or not _CLOSING.match(src[end:]):
        return False
    define = re.search(_FUNCTION_MACRO.format(re.escape(call.group(1).decode())).encode(), src, re.M)
    if define is None:
        return False
    params = [p.strip() for p in define.group(1).split(b",")]
    if len(params) != 1 or not params[0]:
        return False
    body = define.group(2).replace(b"\\\n", b" ")
    declared = rb"[\w>&*][ \t*&]*\b" + re.escape(params[0]) + rb"[ \t]*\([^;{}]*\)[ \t]*(?:const[ \t]*)?\{"
    return re.search(declared, body) is not None


def _definition(ctx: Context, start: int, end: int) -> Node | None:
    """The definition (function with body, typedef, variable, #define, enum) that declares this token."""
    node = ctx.root.descendant_for_byte_range(start, end)
    if node is None or node.start_byte != start or node.end_byte != end or node.parent is None:
        return None
    parent = node.parent
    field = _NAMED.get(parent.type)
    if field is not None:
        forward = parent.type.endswith("_specifier") and parent.child_by_field_name("body") is None
        return parent if parent.child_by_field_name(field) == node and not forward else None
    if parent.type not in _DECLARATORS and parent.type not in ("type_definition", "init_declarator"):
        return None
    child = node
    while parent is not None and parent.type in _DECLARATORS:
        if parent.child_by_field_name("declarator") != child:
            return None
        child, parent = parent, parent.parent
    if parent is None or parent.child_by_field_name("declarator") != child:
        return None
    if parent.type in ("function_definition", "type_definition"):
        return parent
    if parent.type == "init_declarator" and parent.parent is not None and parent.parent.type == "declaration":
        return parent.parent
    return None


# `cuda##name` / `name##_v2`-style pasting of a CUDA prefix: the tables never see the result.
_PASTED = lazy(rb"\b(?:cuda|cu|CU|CUDA|cublas|cublasLt|curand|cufft|cusparse|cusolver|cudnn|nvrtc)_?\s*##")


def _pasted_names(ctx: Context) -> list[Diagnostic]:
    if b"##" not in ctx.source:  # why: a C-speed test spares most files a whole-file regex scan
        return []
    return [
        ctx.diag(
            "HIP102",
            m.start(),
            m.end(),
            f"`{m.group().decode()}` builds CUDA names by token pasting: they are not translated;"
            " spell the names out or paste the HIP prefix",
        )
        for m, _ in ctx.code_matches(_PASTED)
    ]


def _nested_target(source: bytes, start: int, rows: tuple[tuple[bytes, bytes], ...]) -> bytes | None:
    """`thrust::cuda` (also `::thrust::cuda`, `thrust::system::cuda`): the replacement of the last part.

    Only right after its parent: a user's own `cuda::` or `mylib::thrust::cuda` stays."""
    before = source[max(0, start - 96) : start]
    for parent, target in rows:
        spaced = rb"\s*::\s*".join(re.escape(part) for part in parent.split(b"::"))
        if re.search(rb"(?:^|[^\w:]|(?<![\w:])::\s*)" + spaced + rb"\s*::\s*\Z", before):
            return target
    return None


# `namespace cub {`, `using namespace cub;`, `namespace c = cub;` (text just before the name)
_NAMESPACE_BEFORE = lazy(rb"\bnamespace\s+(?:\w+\s*=\s*)?\Z")
_NESTED_BEFORE = lazy(rb"\w\s*::\s*\Z")
# `#define MY_CUB_NS cub` (or `::cub`): a macro that is the namespace, used as `MY_CUB_NS::DeviceScan`
_NAMESPACE_MACRO_BEFORE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+(?:::[ \t]*)?\Z", re.M)
_LINE_END_AFTER = lazy(rb"[ \t]*(?://[^\n]*|/\*[^\n]*?\*/[ \t]*)?(?:\r?\n|\Z)")


def _is_namespace_use(source: bytes, start: int, end: int) -> bool:
    """`cub::x` or a namespace declaration/alias/using, not a variable that happens to be called `cub`.

    `mylib::cub::x` is a user's nested namespace and stays; `::cub::x` is the library.
    """
    before = source[max(0, start - 64) : start]
    after = source[end : end + 8].lstrip()
    if after.startswith(b"::"):
        return not _NESTED_BEFORE.search(before)
    if after.startswith(b"=") and not after.startswith(b"=="):
        return False  # `namespace cub = hipcub;`: the file's own alias, it must keep its name
    if _NAMESPACE_MACRO_BEFORE.search(before) and _LINE_END_AFTER.match(source, end):
        return True
    return bool(_NAMESPACE_BEFORE.search(before))


def _nested(ctx: Context, start: int) -> bool:
    """`namespace mylib { namespace cub {` declares a user namespace, not the library's."""
    node = ctx.root.descendant_for_byte_range(start, start + 1)
    parent = node.parent if node is not None else None
    return parent is not None and parent.type == "namespace_definition" and has_ancestor(parent, _NS_DEF)


_NS_DEF = frozenset({"namespace_definition"})


def _family_of_namespace(ctx: Context, token: bytes) -> str:
    for ns in ctx.tables.mappings.namespaces:
        if ns.cuda.encode() == token:
            return ns.family
    return "cub"


# cuDNN -> hipDNN is what the reference data lists, but hipDNN is not released for the HIP we
# target, and cuDNN -> MIOpen is a port (different descriptors, algorithm search, workspaces).
# So cuDNN names stay as they are unless --roc asks for the MIOpen names. The "port by hand" note
# comes from the cudnn.h include (HIP101) or the library detector (HIP110), once per file.
NOT_A_RENAME = frozenset({"cudnn"})


def _not_a_rename(ctx: Context, entry: Entry, start: int, end: int, result: RuleResult) -> bool:
    """Handle a name of a library whose port is not a rename; True when the entry is dealt with."""
    if entry.family not in NOT_A_RENAME:
        return False
    if not ctx.options.roc:
        return True
    if entry.roc is None:
        result.diagnostics.append(ctx.diag("HIP101", start, end, f"{entry.cuda} has no MIOpen counterpart"))
        result.counts["unsupported"] += 1
        return True
    return False


_IDENTIFIER = lazy(r"[A-Za-z_]\w*\Z")


def _declared_here(ctx: Context, start: int, end: int) -> bool:
    """The token is the name a declarator declares (typedef/variable/function name)."""
    node = ctx.root.descendant_for_byte_range(start, end)
    if node is None or node.start_byte != start or node.end_byte != end or node.parent is None:
        return False
    return node.parent.child_by_field_name("declarator") == node


def _rename_for_target(
    ctx: Context, entry: Entry, rename: Rename, start: int, end: int, result: RuleResult
) -> None:
    """A name whose HIP counterpart depends on the target (mappings/version-renames.yaml): no findings."""
    if not _IDENTIFIER.match(rename.hip) and _declared_here(ctx, start, end):
        return  # a user's own declaration of that name stays
    if rename.hip == entry.cuda:
        return  # the target has CUDA's name itself
    result.edits.append(Edit(start, end, rename.hip.encode()))
    result.counts[f"identifiers.{entry.family}"] += 1


def _later_rename(cuda: str, target: str | None) -> Rename | None:
    """The oldest version-renames row for `cuda` that holds only from a release after `target`."""
    if not target:
        return None
    later = [
        r for r in _renames_table()[0] if r.cuda == cuda and r.since and compare_versions(r.since, target) > 0
    ]
    return min(later, key=lambda r: [int(x) for x in (r.since or "0").split(".")], default=None)


def _rewrite_entry(ctx: Context, entry: Entry, start: int, end: int, result: RuleResult) -> None:
    options = ctx.options
    if _not_a_rename(ctx, entry, start, end, result):
        return
    status = _cuda_status(entry)
    if status:
        result.diagnostics.append(ctx.diag("HIP105", start, end, status))
    if entry.hip is None and not (options.roc and entry.roc):
        group = f" ({entry.family}: {entry.group})" if entry.group else f" ({entry.family})"
        note = f": {entry.note}" if entry.note else ""
        later = _later_rename(entry.cuda, ctx.target)
        if later is not None:
            note = f"; {later.hip} from HIP {later.since} (the target is {ctx.target})"
        result.diagnostics.append(
            ctx.diag("HIP101", start, end, f"{entry.cuda} has no HIP counterpart{group}{note}")
        )
        result.counts["unsupported"] += 1
        return
    new, fell_back = replacement(entry, options)
    mappings = ctx.tables.mappings
    findings = _version_findings(entry, options, mappings.absent_in, mappings.present_in, mappings.removed_in)
    for rule_id, message in findings:
        result.diagnostics.append(ctx.diag(rule_id, start, end, message))
    if fell_back:
        result.diagnostics.append(
            ctx.diag("HIP106", start, end, f"{entry.cuda}: no ROC counterpart, using {entry.hip}")
        )
    too_new = any(rule_id == "HIP103" for rule_id, _ in findings)
    if new is None or new == entry.cuda or (too_new and options.version_policy == "keep"):
        return
    if not _IDENTIFIER.match(new) and _declared_here(ctx, start, end):
        return  # `typedef size_t (*CUoccupancyB2DSize)(int)` cannot become `(*void*)`: a user's own type
    if not new:  # a name HIP needs no counterpart for (CUDART_CB): dropped with the blanks after it
        end += len(ctx.source[end : end + 16]) - len(ctx.source[end : end + 16].lstrip(b" \t"))
    text = new.encode()
    if text in _EMPTY_ON_NVIDIA and _value_in_condition(ctx.source, start):
        text = b"defined(" + text + b")"
    result.edits.append(Edit(start, end, text))
    result.counts[f"identifiers.{entry.family}"] += 1


# HIP macros some platform defines with no value: HIP's NVIDIA platform `#define __HIPCC__` (hip_common.h),
# so `#if __CUDACC__` must become `#if defined(__HIPCC__)`, not `#if __HIPCC__` (an empty #if there)
_EMPTY_ON_NVIDIA = frozenset({b"__HIPCC__"})
_CONDITION_LINE = lazy(rb"[ \t]*#[ \t]*(?:el)?if\b")
_DEFINED_BEFORE = lazy(rb"\bdefined[ \t]*\(?[ \t]*\Z")


def _value_in_condition(source: bytes, start: int) -> bool:
    """The token is read as a value in an #if/#elif (not the operand of `defined`)."""
    line = source.rfind(b"\n", 0, start) + 1
    return bool(_CONDITION_LINE.match(source, line)) and not _DEFINED_BEFORE.search(source, line, start)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={20: rename_identifiers},
    texts=(
        Rule(
            "HIP101",
            "unsupported-api",
            Severity.ERROR,
            "CUDA API with no HIP counterpart",
            "Rewrite this code by hand (see the HIP docs for an alternative) or guard it with `#ifndef "
            "__HIP_PLATFORM_AMD__`.",
            "The mapping tables list this CUDA name but HIP has no counterpart for it, so the name is left "
            "as is and the translated file will not compile on ROCm until it is replaced. Not reported: "
            "names under another scope (`sycl::mul24`, `Ops::mul24`, also in macro bodies), names the file "
            "defines itself (`inline void memoryBarrier() {...}`, a #define), member accesses, and code "
            "hipcc never compiles.",
        ),
        Rule(
            "HIP103",
            "hip-version-too-old",
            Severity.ERROR,
            "HIP counterpart is newer than the target HIP version",
            "Raise --hip-version, or keep a CUDA-only path for older ROCm releases.",
            "The HIP counterpart of this CUDA name was added in a HIP release newer than the target given "
            "with --hip-version; the translated code will not compile against the older HIP. Names the "
            "headers of a real install lack (mappings/hip-headers-*.yaml) count as newer than that install "
            "even where the reference tables date them earlier. An error: the target (by default the "
            "installed HIP) cannot compile the line.",
        ),
        Rule(
            "HIP104",
            "hip-deprecated-or-removed",
            Severity.WARNING,
            "HIP counterpart is deprecated or removed in the target HIP version",
            "Move to the replacement API named in the HIP documentation.",
            "The HIP counterpart exists but is deprecated or removed in the target HIP version.",
        ),
        Rule(
            "HIP105",
            "cuda-deprecated",
            Severity.INFO,
            "CUDA API is deprecated or removed in CUDA itself",
            "Consider moving to the current CUDA API first; its HIP counterpart is usually better supported.",
            "The CUDA name is deprecated or removed in CUDA; HIP may still provide a counterpart.",
        ),
        Rule(
            "HIP106",
            "roc-fallback",
            Severity.INFO,
            "No ROC library counterpart: translated to the hip* wrapper instead",
            "Mixing roc* and hip* calls on one handle does not work; use hip* for this library or port this "
            "call by hand.",
            "With --roc, names are translated to the roc* library (rocBLAS, rocRAND, ...) where the tables "
            "have a counterpart; this one has none, so the hip* wrapper name is used.",
        ),
        Rule(
            "HIP107",
            "experimental-mapping",
            Severity.INFO,
            "HIP counterpart is experimental",
            "Test this call carefully on ROCm; its behaviour may differ from CUDA.",
            "The mapping tables mark this HIP counterpart as experimental.",
        ),
        Rule(
            "HIP170",
            "project-own-mapping",
            Severity.INFO,
            "A CUDA name the project maps to HIP itself: it takes the project's HIP name",
            "Nothing to do; the name is the one the project's own HIP build gives it.",
            "A code base built for both platforms often has its own compatibility header for the HIP side "
            "(`#define CUDA_MEMCPY3D hipMemcpy3DParms`, `typedef hipFoo cudaFoo;`, "
            "`using cudaFoo = hipFoo;`) and writes its HIP branches against it. Where that maps a CUDA "
            "name to another HIP name than "
            "the tables (hipMemcpy3DParms, the runtime's struct, for the driver's CUDA_MEMCPY3D, whose "
            "table name is HIP_MEMCPY3D), the uses in the shared code take the project's name, so they fit "
            "its HIP branches (the fields they set) and hold whether or not the header is reached. Read "
            "from the file itself and, for a file with HIP-platform branches, from the project headers it "
            "includes; the definitions stay as written.",
        ),
    ),
    tables=(_renames_table,),
    views=(renames_for,),
    fixtures=(
        "identifiers",
        "calls/project_aliases*",
        "guards/cudacc_value",
        "extras",
        "namespaces",
        "renames",
        "roc",
        "hipblas",
        "cub",
        "device",
        "macros",
        "hip_version",
        "fp4",
    ),
)
