"""Equivalents for names the target HIP lacks (mappings/shims.yaml): written into the file that uses them.

`cusparseGetErrorString(s)` becomes `hipsparseGetErrorString(s)` (identifiers.py); hipSPARSE before
ROCm 6.0 has no such function, so for such a target this rule inserts a static inline definition of
it, once per file, on the line before the declaration that first uses it (after the includes that
declare its types), and reports HIP134 there instead of the HIP103/HIP101 findings at each use.
A file that defines the name itself (a user's own shim in any branch, or a second run over our output)
gets none, and no finding at its uses either; nor does one whose included headers define it (the run
finds those: `Options.defined_elsewhere`, run/helper_defs.py). A shim for a name CUDA defines steps
aside on HIP's NVIDIA platform (data/shim_table.py `nvidia_condition`), where CUDA's own is used.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from hipify_py.analysis import callargs
from hipify_py.analysis.context import REWRITABLE, Context, Where
from hipify_py.analysis.includes import include_position
from hipify_py.data.renames import renames_for
from hipify_py.data.shim_table import (
    GUARD_PREFIX,
    Shim,
    case_lines,
    definition,
    error_string_cases,
    lacking,
    shims_for,
)
from hipify_py.data.shim_table import error_strings as _error_strings
from hipify_py.data.shim_table import load_table as _shims_table
from hipify_py.data.tables import Tables
from hipify_py.data.versions import compare_versions
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.options import Options
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.cxx import redefined_names
from hipify_py.rules.detectors.common import DeviceSpans
from hipify_py.rules.detectors.host_math import surely_host
from hipify_py.rules.detectors.overloads import spelled_type
from hipify_py.rules.fp_limits import HELPER as FP_LIMITS
from hipify_py.rules.fp_limits import fp_limits_uses
from hipify_py.rules.registry import declare
from hipify_py.rules.symbol_tables import member_arguments, table_entry
from hipify_py.util.lazyre import compiled, lazy

# Findings at a use that the inserted shim settles: "no HIP counterpart", "newer than the target" and
# "a CUDA name in no table" (a CUDA name the shim defines itself); at a call an overload shim serves,
# "no overload for this type".
SETTLED_RULES = frozenset({"HIP101", "HIP102", "HIP103"})
_OVERLOAD_SETTLED = frozenset({"HIP215"})
_HOST_SETTLED = frozenset({"HIP217"})  # "a device function in HIP: host code cannot call it"
# Containers the shim goes inside (a use in `#ifdef USE_SPARSE` gets its shim there, after the
# branch's includes); anything else (function, namespace, extern "C", #define) gets it before.
_DESCEND = frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"})
_DECLARATOR_PARENTS = frozenset({"function_declarator", "preproc_function_def", "preproc_def"})


def insert_shims(ctx: Context) -> RuleResult:
    result = RuleResult()
    target = ctx.target
    if not target:
        return result
    shims = shims_for(target)
    triggers = _triggers(ctx, target)
    uses: dict[str, list[tuple[int, int]]] = {}
    # the project's own definitions: this file's, in any branch hipcc compiles (one for HIP only, under
    # `#ifdef __HIP_PLATFORM_AMD__` or in the `#else` of `#ifndef USE_ROCM`, is protected code but still a
    # definition), and those the run found in the headers the file includes (run/helper_defs.py)
    defined = set(ctx.options.defined_elsewhere)
    if triggers:
        pattern = compiled(
            rb"(?<![\w$])(" + b"|".join(sorted(triggers, key=len, reverse=True)) + rb")(?![\w$])"
        )
        dead = ctx.branches.dead
        spans_needed = any(shims[n].device or shims[n].host for n in triggers.values())
        device = DeviceSpans(ctx) if spans_needed else None
        members = member_arguments(ctx)
        redefined: frozenset[int] | None = None  # found on the first declaration (rules/cxx.py)
        for m in pattern.finditer(ctx.source):
            where = ctx.classify(m.start(), m.end())
            if where in (Where.COMMENT, Where.STRING):
                continue
            if any(a <= m.start() < b for a, b in dead):
                continue  # a branch hipcc never compiles (`#if __CUDA_ARCH__ < 350`): no use, no definition
            name = triggers[m.group(1)]
            if _declares(ctx, m.start(1), m.end(1)):
                redefined = redefined_names(ctx) if redefined is None else redefined
                if m.start(1) not in redefined:  # guarded out on AMD: not the file's own there
                    defined.add(name)
            elif (
                where in REWRITABLE
                and not ctx.is_protected(m.start())
                and table_entry(ctx, m.start(1), m.end(1)) is None  # kept as CUDA's (rules/symbol_tables.py)
                and m.start(1) not in members
                and (device is None or not shims[name].device or device.contains(m.start()))
                and (not shims[name].host or _host_use(ctx, m.start(), device))
            ):
                uses.setdefault(name, []).append(m.span(1))
    for name, span in _register_reads(ctx, shims):
        uses.setdefault(name, []).append(span)
    for span in fp_limits_uses(ctx):  # `cub::FpLimits<T>` renamed to the helper (rules/fp_limits.py)
        uses.setdefault(FP_LIMITS, []).append(span)
    overloads = overload_uses(ctx, target)
    if not uses and not overloads:
        return result
    nl = newline_of(ctx.source)
    blocks: dict[int, list[bytes]] = {}
    for name, spans in sorted({**uses, **overloads}.items(), key=lambda item: item[1][0]):
        shim = shims[name]
        settles = SETTLED_RULES
        if shim.overload is not None or shim.host:
            settles = _OVERLOAD_SETTLED if shim.overload is not None else _HOST_SETTLED
        result.settled.extend((a, b, settles) for a, b in spans)
        if name in defined or shim.macro.encode() in ctx.source:
            continue  # the file has its own definition (or ours, from an earlier run): the uses compile
        first = spans[0]
        at = _below_top_comments(ctx, _position(ctx, first[0]))
        blocks.setdefault(at, []).append(definition(shim, target, _cases(ctx, shim, target), nl))
        rule = "HIP223" if shim.device or shim.overload is not None else "HIP134"
        message = _message(shim, target, ctx.lines.line_col(at)[0])
        if shim.differs:
            rule, message = "HIP227", f"{message}; it {shim.differs}"
        result.diagnostics.append(ctx.diag(rule, *first, message))
        result.counts["shims"] += 1
    result.requests.extend(
        Insertion.helper(at, _at_file_scope(ctx, at, b"".join(texts), nl)) for at, texts in blocks.items()
    )
    return result


def _at_file_scope(ctx: Context, at: int, text: bytes, nl: bytes) -> bytes:
    """A shim placed inside a namespace (`namespace kernel_float { #if ... <use>`) closes and reopens it
    around itself: HIP's functions are global, and a namespace's `__hneu2(bf16)` would hide HIP's
    `__hneu2(__half2)` from every call in that namespace."""
    headers = []
    node = ctx.root.descendant_for_byte_range(at, at)
    while node is not None:
        body = node.child_by_field_name("body") if node.type == "namespace_definition" else None
        if body is not None and body.start_byte < at < body.end_byte:
            headers.append(ctx.source[node.start_byte : body.start_byte + 1])
        node = node.parent
    if not headers:
        return text
    close = b"".join(b"}  // hipify-py: HIP's functions are global" + nl for _ in headers)
    reopen = b"".join(header + b"  // hipify-py: reopened" + nl for header in reversed(headers))
    return close + text + reopen


@functools.lru_cache(maxsize=16)
def shim_tokens(target: str) -> dict[bytes, str]:
    """The HIP names of the shims `target` needs, as the tokens a file spells them (once per target);
    overload rows are found by their call and its argument's type instead."""
    return {s.name.encode(): s.name for s in shims_for(target).values() if s.overload is None}


@functools.lru_cache(maxsize=16)
def overload_rows(target: str) -> dict[bytes, list[Shim]]:
    """Call name -> the overload shims `target` needs for it."""
    rows: dict[bytes, list[Shim]] = {}
    for shim in shims_for(target).values():
        if shim.overload is not None:
            rows.setdefault(shim.overload.call.encode(), []).append(shim)
    return rows


def overload_uses(ctx: Context, target: str) -> dict[str, list[tuple[int, int]]]:
    """Overload shim name -> the spans of the calls whose argument has one of its types, where the code
    spells the type (a cast, the variable's declaration: detectors/overloads.spelled_type)."""
    rows = overload_rows(target)
    calls = [c for c in rows if c in ctx.identifiers]
    if not calls:
        return {}
    found: dict[str, list[tuple[int, int]]] = {}
    src, dead = ctx.source, ctx.branches.dead
    pattern = compiled(rb"(?<![\w$.>])(" + b"|".join(calls) + rb")(?=\s*\()")
    for m, where in ctx.code_matches(pattern):
        if where not in REWRITABLE or any(a <= m.start() < b for a, b in dead):
            continue
        call = callargs.from_text(src, (m.start(), m.end()))
        for shim in rows[m.group(1)]:
            spec = shim.overload
            assert spec is not None
            if call is None or len(call.args) <= spec.arg:
                continue
            spelled = spelled_type(ctx, call.text(src, spec.arg), m.start(), spec.pointer)
            if spelled is not None and _maybe_any(ctx, spelled, m.start(), spec.types):
                found.setdefault(shim.name, []).append(m.span(1))
            elif spec.hip_types:  # a spelled type but one HIP's own overloads take (a typedef: c_number)
                if spelled is not None and spelled.decode() not in spec.hip_types:
                    found.setdefault(shim.name, []).append(m.span(1))
            elif spelled is not None and spelled.decode() in spec.types:
                found.setdefault(shim.name, []).append(m.span(1))
    return found


def _maybe_any(ctx: Context, spelled: bytes, at: int, types: Iterable[str]) -> bool:
    """The argument's type is a template parameter of a template around the call, and the file names one
    of the overload's types: an instantiation with it calls for the overload (lightseq's `atomicAdd(&
    grad[0], v)` with `T* grad`, T = __half). An overload no instantiation calls is never used."""
    if not any(t.encode() in ctx.identifiers for t in types):
        return False
    node = ctx.root.descendant_for_byte_range(at, at)
    while node is not None:
        if node.type == "template_declaration":
            params = node.child_by_field_name("parameters")
            for param in params.named_children if params is not None else ():
                if param.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                    name = next((c for c in param.named_children if c.type == "type_identifier"), None)
                    if name is not None and ctx.source[name.start_byte : name.end_byte] == spelled:
                        return True
        node = node.parent
    return False


def _register_reads(ctx: Context, shims: dict[str, Shim]) -> list[tuple[str, tuple[int, int]]]:
    """Reads of PTX special registers and bit-field instructions that rules/ptx_equivalents.py writes as a
    call of a helper of this table (`asm("mov.u32 %0, %%laneid;" : "=r"(l))` -> `((l) =
    hipify_py_laneid())`): the helper's uses."""
    if b"%%" not in ctx.source and b"%1" not in ctx.source:
        return []
    from hipify_py.rules.ptx_equivalents import live_operations, live_special_reads  # only files with PTX pay

    found = []
    for start, end, text in live_special_reads(ctx) + live_operations(ctx):
        name = _HELPER_CALL.search(text)
        if name is not None and name.group().decode() in shims:
            found.append((name.group().decode(), (start, end)))
    return found


_HELPER_CALL = lazy(rb"\bhipify_py_\w+(?=\()")


def _triggers(ctx: Context, target: str) -> dict[bytes, str]:
    """Tokens of this file that call for a shim: the HIP name, or a CUDA name the tables map to it."""
    wanted = shim_tokens(target)
    if not wanted:
        return {}
    found: dict[bytes, str] = {}
    names = ctx.tables.names
    # why the intersections (C-level): a file has thousands of identifiers, a few of them mapped names
    present = ctx.identifiers & ctx.tables.candidates.keys  # every mapped name is a candidate
    renamed = renames_for(target).names  # names whose HIP spelling depends on the target
    for token in present.union(ctx.identifiers.intersection(wanted)):
        if token in wanted:
            found[token] = wanted[token]
            continue
        rename = renamed.get(token)
        hip = rename.hip if rename is not None else None
        if hip is None:
            entry = names.get(token)
            hip = entry.hip if entry is not None else None
        if hip is not None and hip.encode() in wanted:
            found[token] = hip
    return found


def _declares(ctx: Context, start: int, end: int) -> bool:
    """The token is the name in a function declaration/definition or a #define: the file's own."""
    node = ctx.root.descendant_for_byte_range(start, end)
    if node is None or node.start_byte != start or node.end_byte != end or node.parent is None:
        return False
    parent = node.parent
    if parent.type in _DECLARATOR_PARENTS:
        return (
            parent.child_by_field_name("declarator" if parent.type == "function_declarator" else "name")
            == node
        )
    # what tree-sitter's error recovery misreads (a prototype after an unknown export macro,
    # `STUB_API hipError_t name(` read as a qualified name in tilelang's driver stub)
    return looks_like_prototype(ctx.source, start, end)


def looks_like_prototype(source: bytes, start: int, end: int) -> bool:
    """The name at start..end is followed by `(` and preceded on its line by two or more words that can
    be a declaration's specifiers (`STUB_API hipError_t`), none of them a keyword a call follows."""
    line_start = source.rfind(b"\n", 0, start) + 1
    head = _PROTOTYPE_HEAD.fullmatch(source, line_start, start)
    return (
        head is not None
        and source[end : end + 64].lstrip().startswith(b"(")
        and not _NOT_A_TYPE.intersection(head.group().replace(b"*", b" ").replace(b"&", b" ").split())
    )


# `[macro] type [*] ` at a line's start, before a function's name
_PROTOTYPE_HEAD = lazy(rb"[ \t]*(?:[A-Za-z_]\w*[ \t*&]+){2,}")
_NOT_A_TYPE = frozenset(
    {b"return", b"new", b"delete", b"throw", b"else", b"case", b"goto", b"co_return", b"sizeof"}
)


def _position(ctx: Context, offset: int) -> int:
    """The start of the line of the outermost declaration holding `offset` (inside #if branches)."""
    node: Node = ctx.root
    while True:
        child = next((c for c in node.children if c.start_byte <= offset < c.end_byte), None)
        if child is None:
            return ctx.lines.line_start(offset)
        if child.type in _DESCEND and _body_holds(child, offset):
            node = child
            continue
        inner = _namespace_branch(child, offset)
        if inner is not None:  # `namespace prk { #ifdef PRK_USE_CUBLAS ... }`: into the branch
            node = inner
            continue
        return ctx.lines.line_start(_leading_comments(ctx, child).start_byte)


def _host_use(ctx: Context, offset: int, device: DeviceSpans | None) -> bool:
    """A call in host code (where HIP217 reports a device-only math function): a __host__ overload
    serves it; device and __host__ __device__ code already have HIP's own."""
    return (device is None or not device.contains(offset)) and surely_host(ctx, offset)


def _namespace_branch(node: Node, offset: int) -> Node | None:
    """The body of a namespace whose use at `offset` sits in an #if branch of it: the shim goes into
    that branch (before the namespace, it would be compiled where the branch's headers are not)."""
    if node.type != "namespace_definition":
        return None
    body = node.child_by_field_name("body")
    if body is None:
        return None
    child = next((c for c in body.children if c.start_byte <= offset < c.end_byte), None)
    return body if child is not None and child.type in _DESCEND and _body_holds(child, offset) else None


def _below_top_comments(ctx: Context, at: int) -> int:
    """Not above the top of the include block when only comments lie between: a file with no include
    gets the runtime header there (after its licence comment), and the shim needs its types."""
    top = include_position(ctx)
    if at < top and all(c.type == "comment" for c in ctx.root.children if at <= c.start_byte < top):
        return top
    return at


def _leading_comments(ctx: Context, node: Node) -> Node:
    """The first of the comments right above `node` (no blank line between): they describe it."""
    first = node
    prev = node.prev_sibling
    while prev is not None and prev.type == "comment":
        gap = ctx.source[prev.end_byte : first.start_byte]
        if gap.count(b"\n") > 1 or gap.strip():
            break
        first, prev = prev, prev.prev_sibling
    return first


def _body_holds(branch: Node, offset: int) -> bool:
    """The offset is in the branch's body, not on its `#if` line (the condition)."""
    condition = branch.child_by_field_name("condition") or branch.child_by_field_name("name")
    return condition is None or offset >= condition.end_byte


def _cases(ctx: Context, shim: Shim, target: str) -> str:
    if shim.strings is not None:
        return error_string_cases(target, shim.strings)
    if shim.cases is None:
        return ""
    mappings = ctx.tables.mappings
    absent = mappings.absent_in

    def exists(hip: str) -> bool:
        entry = next((e for e in pairs if e.hip == hip), None)
        added = entry.hip_added if entry is not None else ""
        if added and compare_versions(added, target) > 0:
            return False
        checked = absent.get(hip, "")
        return not (checked and compare_versions(target, checked) <= 0)

    # why by key: the keys are the CUDA names; making an Entry for each of the ~9k rows took ~60 ms
    by_cuda, prefix = mappings.by_cuda, shim.cases.cuda
    pairs = [by_cuda[name] for name in by_cuda if name.startswith(prefix)]
    return case_lines(shim.cases, ((e.cuda, e.hip) for e in pairs), exists)


def _message(shim: Shim, target: str, line: int) -> str:
    return f"{lacking(shim, target, '`')}: an equivalent was inserted before line {line}"


def defined_helpers(source: bytes, names: Iterable[str], tables: Tables) -> frozenset[str]:
    """Which of the shim `names` a file the translation does not see (a header the file includes)
    defines or declares, in any branch hipcc compiles: a user's own `__vsub4` under
    `#ifdef __HIP_PLATFORM_AMD__`, or our guarded shim from an earlier run. Parsed only when a name's
    bytes are there at all."""
    present = [n for n in names if n.encode() in source]
    if not present:
        return frozenset()
    found = {n for n in present if (GUARD_PREFIX + n).encode() in source}
    ctx = Context(source, tables, Options())
    pattern = compiled(rb"(?<![\w$])(" + b"|".join(sorted(n.encode() for n in present)) + rb")(?![\w$])")
    dead = ctx.branches.dead
    for m in pattern.finditer(source):
        if ctx.classify(m.start(), m.end()) in (Where.COMMENT, Where.STRING):
            continue
        if not any(a <= m.start() < b for a, b in dead) and _declares(ctx, m.start(1), m.end(1)):
            found.add(m.group(1).decode())
    return frozenset(found)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={130: insert_shims},
    texts=(
        Rule(
            "HIP134",
            "equivalent-written",
            Severity.INFO,
            "Name the target HIP lacks: an equivalent definition was written into the file",
            "Nothing to do; the shim switches itself off when the code is built against a HIP release that "
            "has the name, and on HIP's NVIDIA platform where CUDA defines it. Delete it once you no longer "
            "build for the older release.",
            "The target HIP version lacks this name (hipsparseGetErrorString before ROCm 6.0, CUDA's SIMD "
            "video intrinsics such as __vmaxs4 in every release) but a small exact equivalent exists: "
            "hipify-py inserts it once per file, before the declaration that first uses it, wrapped in `#if "
            "!defined(HIPIFY_PY_SHIM_<name>) && !defined(__HIP_PLATFORM_NVIDIA__) && (<the library still "
            "lacks it>)` (the NVIDIA test for names CUDA defines, with the CUDA release where CUDA gained "
            "the name later than 11.0: CUDA's own definition is used there). mappings/shims.yaml lists each "
            "shim, the HIP versions that need it and the source of the fact. Files that define the name "
            "themselves, in any branch hipcc compiles, or include a project header that does (the run reads "
            "the file's include closure) get none, and their uses are not reported. A cache-hint load or "
            "store on a type the target lacks (`__ldcs` on a float4) calls a helper template hipify-py "
            "writes the same way (`hipify_py_ldcs`; mappings/cache-hints.yaml).",
        ),
        Rule(
            "HIP223",
            "device-overload-written",
            Severity.INFO,
            "A device overload the target HIP lacks: an equivalent definition was written into the file",
            "Nothing to do; the definition is off on HIP's NVIDIA platform (CUDA has its own) and where the "
            "file defines the function itself. Delete it once HIP declares the overload.",
            "CUDA declares `atomicAdd` for `__half`, `__half2`, `__nv_bfloat16` and `__nv_bfloat162`, and "
            "`cudaGetErrorString`/`cudaGetErrorName` for device code; no HIP release does (probed per "
            "release: scripts/probe_device_gaps.py). Where the code spells the atomic's pointer type (a "
            "cast, the variable's declaration) or calls the error functions in a __device__/__global__ "
            "function, hipify-py writes the overload once per file, before the declaration that first uses "
            "it, wrapped in `#if !defined(HIPIFY_PY_SHIM_<name>) && !defined(__HIP_PLATFORM_NVIDIA__) ...`: "
            "the atomics as an atomicCAS loop on the aligned 32-bit word (the old value returned, as "
            "CUDA's), the error functions as a switch returning the strings the target's runtime returns on "
            "the host (mappings/device-gaps-<HIP>.yaml). mappings/shims.yaml lists them with their sources.",
        ),
        Rule(
            "HIP227",
            "device-call-answered-differently",
            Severity.WARNING,
            "A runtime call in device code HIP has only for the host: a device version that answers "
            "differently was written",
            "Check that the device code does not depend on the answer (a __host__ __device__ wrapper the "
            "host alone calls needs nothing); otherwise move the call to the host.",
            "CUDA's device runtime declares some runtime functions for device code too (cudaGetDevice, "
            "cudaGetDeviceCount, cudaDeviceGetAttribute: dynamic parallelism, and __host__ __device__ "
            "wrappers of the runtime API that only the host calls). HIP declares them for the host only, "
            "so a device compile of such a function fails ('reference to __host__ function in __host__ "
            "__device__ function'). hipify-py writes a __device__ version beside HIP's host one (clang "
            "overloads on __host__/__device__), and where no device code can answer as CUDA does (the "
            "current device's number or attributes), the version returns hipErrorNotSupported: this "
            "finding says so at the first use. mappings/shims.yaml lists them (`differs`).",
        ),
    ),
    tables=(_shims_table,),
    views=(
        shim_tokens,
        overload_rows,
        _error_strings,
    ),
    fixtures=(
        "shims",
        "overloads/missing_overload*",
        "overloads/declared_whole_word",
        "overloads_hip63",
    ),
)
