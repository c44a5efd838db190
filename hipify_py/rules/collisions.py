"""Definitions and case labels that CUDA keeps apart and HIP merges (HIP125, HIP126, HIP212, HIP213).

CUDA has distinct types and enumerators where HIP has one: cudaError_t and CUresult both become
hipError_t, cudaStream_t and CUstream hipStream_t, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH and
..._HEIGHT both hipDeviceAttributeMaxTexture2DWidth... The merge sets are not a hand list: they are the
CUDA names of the mapping tables that share a translation target (or a CUDA name next to its own HIP
target in a mixed file). Where the user's code names two of a set, renaming can make

- two overloads one signature (`name(cudaError_t)` + `name(CUresult)`): a redefinition;
- two case labels of one switch one value: a duplicate case label.

Both are compile errors. The fix keeps the first (in source order) and disables the later one, the same
rule C++ applies to the merged value at run time: `#if 0` around the later definition (no HIP platform
keeps the two types apart), the later case label commented out (labels never change control flow, so
every other case behaves as before). When the disabled code does the same as the kept code after
renaming, nothing changes (HIP213); otherwise the merged values now run the first one's code (HIP212).
What cannot be disabled safely (member declarations in a class, code in macro bodies) is reported
(HIP125/HIP126) and left for a human.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import NamedTuple

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.engine.parser import Node
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.collision_cases import case_labels
from hipify_py.rules.collision_tokens import Renamer, exclusive, skipped, spell
from hipify_py.rules.merge_sets import VOID, merge_candidates, void_handles
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_DECLARATOR_WRAPPERS = frozenset(
    {"pointer_declarator", "reference_declarator", "array_declarator", "parenthesized_declarator"}
)
_FUNCTION_UNITS = frozenset({"function_definition", "field_declaration", "declaration"})
_SCOPES = frozenset({"namespace_definition", "struct_specifier", "class_specifier", "union_specifier"})


def check_collisions(ctx: Context) -> RuleResult:
    result = RuleResult()
    targets, merged = merge_candidates(ctx)
    if not merged:
        return result
    hot = {n for n, t in targets.items() if t in merged} | merged
    spots = [m.start() for m in IDENTIFIER.finditer(ctx.source) if m.group() in hot]
    renamer = Renamer(ctx, targets)
    _overloads(ctx, renamer, spots, result)
    case_labels(ctx, renamer, spots, result)
    return result


# -- overloads --------------------------------------------------------------------------------------


class _Unit(NamedTuple):
    """One function (or class template specialization) that may collide with another."""

    node: Node  # what gets disabled: the definition, with its `template <...>` header
    name: bytes
    scope: tuple[bytes, ...]
    renamed: tuple[bytes, ...]  # signature after renaming
    original: tuple[bytes, ...]  # signature as written
    shown: str  # how messages name it: `errorName(CUresult)`, `Handle<CUstream>`
    shown_hip: str  # and after renaming
    body: Node | None
    params: tuple[bytes, ...]  # parameter names, so bodies compare up to their renaming
    in_class: bool


def _overloads(ctx: Context, renamer: Renamer, spots: list[int], result: RuleResult) -> None:
    units: dict[int, _Unit] = {}
    for at in spots:
        unit = _unit_at(ctx, renamer, at)
        if unit is not None:
            units.setdefault(unit.node.start_byte, unit)
    if len(units) < 2:
        return
    handles = {n.encode() for n in void_handles(ctx.options.hip_version)}
    groups: dict[tuple, list[_Unit]] = defaultdict(list)
    for unit in sorted(units.values(), key=lambda u: u.node.start_byte):
        groups[(unit.scope, unit.name, tuple(VOID if t in handles else t for t in unit.renamed))].append(unit)
    for group in groups.values():
        if len(group) < 2:
            continue
        kept: list[_Unit] = []
        for unit in group:
            first = next(
                (k for k in kept if k.original != unit.original and not exclusive(k.node, unit.node)), None
            )
            if first is None:
                kept.append(unit)
                continue
            _report_overload(ctx, renamer, first, unit, result)


def _report_overload(ctx: Context, renamer: Renamer, first: _Unit, later: _Unit, result: RuleResult) -> None:
    line = ctx.lines.line_col(first.node.start_byte)[0]
    signature = later.shown_hip
    was = later.shown
    declaration = first.body is None or later.body is None
    if declaration and not (first.in_class and later.in_class):
        return  # a function may be declared again at namespace scope: only two definitions collide
    start, end = later.node.start_byte, later.node.end_byte
    if first.renamed != later.renamed:  # `destroy(hipsparseMatDescr_t)`, `destroy(hipsparseDnVecDescr_t)`
        message = (
            f"`{was}` becomes `{signature}` after renaming and line {line}'s `{first.shown}` becomes "
            f"`{first.shown_hip}`: HIP declares both types as `void*`, so the two are one function, a "
            "redefinition; calls could not tell them apart, so neither is disabled: give them different names"
        )
        result.diagnostics.append(ctx.diag("HIP125", start, end, message))
        return
    if not _can_wrap(ctx, later.node):
        message = (
            f"`{was}` becomes `{signature}` after renaming, like line {line}: a redefinition; keep one "
            "of the two (HIP has a single type for both)"
        )
        result.diagnostics.append(ctx.diag("HIP125", start, end, message))
        return
    result.edits.extend(_disable(ctx, later.node, f"same signature as line {line} after renaming"))
    if declaration:
        message = (
            f"member `{was}` becomes `{signature}` after renaming, like line {line}: disabled with #if 0; "
            "calls now reach line {line}'s member (an out-of-line definition of this one collides too)"
        ).replace("{line}", str(line))
        result.diagnostics.append(ctx.diag("HIP212", start, end, message))
    elif _same_body(renamer, first, later):
        message = (
            f"`{was}` becomes `{signature}` after renaming, like line {line}, and does the same: "
            "disabled with #if 0"
        )
        result.diagnostics.append(ctx.diag("HIP213", start, end, message))
    else:
        message = (
            f"`{was}` becomes `{signature}` after renaming, a redefinition of line {line}: disabled with "
            f"#if 0; calls that reached this overload now run line {line}'s body, which differs"
        )
        result.diagnostics.append(ctx.diag("HIP212", start, end, message))


_DIRECTIVE = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b", re.M)


def _can_wrap(ctx: Context, node: Node) -> bool:
    """`#if 0` around the node keeps the file's conditionals balanced and covers no parse error."""
    text = ctx.source[node.start_byte : node.end_byte]
    if node.has_error:
        return False
    depth = 0
    for m in _DIRECTIVE.finditer(text):
        depth += -1 if m.group(1) == b"endif" else 1
        if depth < 0:
            return False
    return depth == 0


def _unit_at(ctx: Context, renamer: Renamer, at: int) -> _Unit | None:
    """The function declarator/specialization whose signature holds the name at `at`."""
    node = ctx.root.descendant_for_byte_range(at, at + 1)
    declarator = None
    cur = node
    while cur is not None and cur.type not in (
        "compound_statement",
        "translation_unit",
        "field_declaration_list",
    ):
        if (
            cur.type == "parameter_list"
            and cur.parent is not None
            and cur.parent.type == "function_declarator"
        ):
            declarator = cur.parent
            break
        if (
            cur.type == "template_argument_list"
            and cur.parent is not None
            and cur.parent.type == "template_type"
        ):
            return _specialization(ctx, renamer, cur.parent)
        if cur.type == "operator_cast":
            return _conversion(ctx, renamer, cur)
        cur = cur.parent
    if declarator is None:
        return None
    holder = declarator
    while holder.parent is not None and holder.parent.type in _DECLARATOR_WRAPPERS | {"function_declarator"}:
        holder = holder.parent
    owner = holder.parent
    if (
        owner is None
        or owner.type not in _FUNCTION_UNITS
        or owner.child_by_field_name("declarator") != holder
    ):
        return None
    if skipped(ctx, owner):
        return None
    name_node = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name_node is None or params is None:
        return None
    skip, names = _parameter_names(params)
    trailing = [c for c in declarator.children if c.start_byte >= params.end_byte]
    unit_node = (
        owner.parent if owner.parent is not None and owner.parent.type == "template_declaration" else owner
    )
    header = unit_node.child_by_field_name("parameters") if unit_node is not owner else None
    signature_parts = [header, name_node, params, *trailing]
    renamed: list[bytes] = []
    original: list[bytes] = []
    for part in signature_parts:
        if part is None:
            continue
        renamed += [*renamer.tokens(part, skip), b"\0"]
        original += [*renamer.original(part, skip), b"\0"]
    body = owner.child_by_field_name("body") if owner.type == "function_definition" else None
    in_class = owner.parent is not None and owner.parent.type == "field_declaration_list"
    parts = (name_node, params, *trailing)
    shown = spell(tuple(t for p in parts for t in renamer.original(p, skip)))
    shown_hip = spell(tuple(t for p in parts for t in renamer.tokens(p, skip)))
    return _Unit(
        node=unit_node,
        name=b"".join(renamer.original(name_node)),
        scope=_scope(ctx, unit_node),
        renamed=tuple(renamed),
        original=tuple(original),
        shown=shown,
        shown_hip=shown_hip,
        body=body,
        params=names,
        in_class=in_class,
    )


def _conversion(ctx: Context, renamer: Renamer, cast: Node) -> _Unit | None:
    """A conversion function, `operator cublasHandle_t&() const`: its type is its name, so two of them
    whose types HIP merges (or declares `void*` both) are one function declared twice."""
    owner = cast.parent.parent if cast.parent and cast.parent.type == "qualified_identifier" else cast.parent
    if owner is None or owner.type not in _FUNCTION_UNITS or skipped(ctx, owner):
        return None
    unit_node = owner.parent if owner.parent and owner.parent.type == "template_declaration" else owner
    body = owner.child_by_field_name("body") if owner.type == "function_definition" else None
    return _Unit(
        node=unit_node,
        name=b"operator",
        scope=_scope(ctx, unit_node),
        renamed=renamer.tokens(cast),
        original=renamer.original(cast),
        shown=spell(renamer.original(cast)),
        shown_hip=spell(renamer.tokens(cast)),
        body=body,
        params=(),
        in_class=owner.parent is not None and owner.parent.type == "field_declaration_list",
    )


def _specialization(ctx: Context, renamer: Renamer, template_type: Node) -> _Unit | None:
    """`template <> struct Traits<cudaStream_t> {...}` next to `Traits<CUstream>`."""
    spec = template_type.parent
    if spec is None or spec.type not in ("struct_specifier", "class_specifier", "union_specifier"):
        return None
    if spec.child_by_field_name("name") != template_type or spec.child_by_field_name("body") is None:
        return None
    holder = spec.parent
    unit_node = holder if holder is not None and holder.type == "template_declaration" else None
    if unit_node is None or skipped(ctx, unit_node):
        return None
    header = unit_node.child_by_field_name("parameters")
    parts = [p for p in (header, template_type) if p is not None]
    renamed = tuple(t for p in parts for t in (*renamer.tokens(p), b"\0"))
    original = tuple(t for p in parts for t in (*renamer.original(p), b"\0"))
    name_node = template_type.child_by_field_name("name")
    return _Unit(
        node=unit_node,
        name=renamer.text(name_node) if name_node is not None else b"",
        scope=_scope(ctx, unit_node),
        renamed=renamed,
        original=original,
        shown=spell(renamer.original(template_type)),
        shown_hip=spell(renamer.tokens(template_type)),
        body=spec.child_by_field_name("body"),
        params=(),
        in_class=False,
    )


def _parameter_names(params: Node) -> tuple[frozenset[int], tuple[bytes, ...]]:
    """Offsets of what does not belong to a signature (parameter names, default values, top-level
    const/volatile), and the parameter names in order."""
    skip: set[int] = set()
    names: list[bytes] = []
    for param in params.named_children:
        if param.type not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        declarator = param.child_by_field_name("declarator")
        plain = declarator is None or declarator.type == "identifier"
        cur = declarator
        while cur is not None and cur.type in _DECLARATOR_WRAPPERS:
            inner = cur.child_by_field_name("declarator") or next(
                (c for c in cur.named_children if c.type == "identifier"), None
            )
            cur = inner
        if cur is not None and cur.type == "identifier":
            skip.add(cur.start_byte)
            names.append(cur.text or b"")
        default = param.child_by_field_name("default_value")
        if default is not None:
            eq = default.prev_sibling
            for leaf in _all_leaves(default):
                skip.add(leaf.start_byte)
            if eq is not None:
                skip.add(eq.start_byte)
        if plain:  # top-level cv-qualifiers are not part of a function's type
            for child in param.children:
                if child.type == "type_qualifier" and child.text in (b"const", b"volatile"):
                    skip.update(leaf.start_byte for leaf in _all_leaves(child))
    return frozenset(skip), tuple(names)


def _all_leaves(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.child_count == 0:
            yield cur
        else:
            stack.extend(cur.children)


def _scope(ctx: Context, node: Node) -> tuple[bytes, ...]:
    names: list[bytes] = []
    cur = node.parent
    while cur is not None:
        if cur.type in _SCOPES:
            name = cur.child_by_field_name("name")
            names.append(b"" if name is None else ctx.source[name.start_byte : name.end_byte])
            names.append(cur.type.encode())
        cur = cur.parent
    return tuple(reversed(names))


def _same_body(renamer: Renamer, first: _Unit, later: _Unit) -> bool:
    if first.body is None or later.body is None or len(first.params) != len(later.params):
        return False

    def normalised(unit: _Unit) -> tuple[bytes, ...]:
        assert unit.body is not None
        positions = {name: b"\0p%d" % i for i, name in enumerate(unit.params)}
        return tuple(positions.get(t, t) for t in renamer.tokens(unit.body))

    return normalised(first) == normalised(later)


def _line_bounds(source: bytes, start: int, end: int) -> tuple[int, int, bool, bool]:
    """Line start before `start` and line end after `end`, and whether only blanks lie between."""
    line_start = source.rfind(b"\n", 0, start) + 1
    alone_before = not source[line_start:start].strip()
    nl = source.find(b"\n", end)
    line_end = len(source) if nl == -1 else nl + 1
    alone_after = not source[end:line_end].strip()
    return line_start, line_end, alone_before, alone_after


def _disable(ctx: Context, node: Node, why: str) -> list[Edit]:
    """`#if 0` ... `#endif` around a definition (insertions only: renames inside it still apply)."""
    nl = newline_of(ctx.source)
    line_start, line_end, alone_before, alone_after = _line_bounds(ctx.source, node.start_byte, node.end_byte)
    opening = b"#if 0 // hipify-py: " + why.encode() + nl
    before = (
        Edit(line_start, line_start, opening)
        if alone_before
        else Edit(node.start_byte, node.start_byte, nl + opening)
    )
    if alone_after:
        tail = b"" if ctx.source[line_end - 1 : line_end] == b"\n" else nl
        after = Edit(line_end, line_end, tail + b"#endif" + nl)
    else:
        after = Edit(node.end_byte, node.end_byte, nl + b"#endif" + nl)
    return [before, after]


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={190: check_collisions},
    texts=(
        Rule(
            "HIP125",
            "merged-overloads",
            Severity.ERROR,
            "Two definitions get one signature after renaming (HIP merges their CUDA types)",
            "Keep one of the two definitions (HIP has a single type for both, e.g. hipError_t for "
            "cudaError_t and CUresult) or guard the other with `#if 0`.",
            "CUDA has distinct types where HIP has one (cudaError_t/CUresult -> hipError_t, "
            "cudaStream_t/CUstream -> hipStream_t, cudaEvent_t/CUevent, cudaArray_t/CUarray, ...; the merge "
            "sets are the CUDA names the mapping tables send to one HIP name). Overloads on such a pair, "
            "and conversion functions to both (`operator cublasHandle_t&()`), become redefinitions. "
            "Where the later definition can be wrapped safely, the tool does it "
            "(HIP212/HIP213); this finding is what it could not fix, and overloads on CUDA types HIP "
            "declares `void*` (cuSPARSE descriptors, ...; probed): nothing disabled there.",
        ),
        Rule(
            "HIP126",
            "merged-case-labels",
            Severity.ERROR,
            "Two case labels get one value after renaming (HIP merges their CUDA enumerators)",
            "Remove the later label: HIP has a single enumerator for both, so it can never be reached.",
            "Several CUDA enumerators map to one HIP enumerator (cudaErrorX and CUDA_ERROR_X -> hipErrorX; "
            "CU_DEVICE_ATTRIBUTE_..._WIDTH and _HEIGHT -> one hipDeviceAttribute...), so a switch naming "
            "both gets a duplicate case label. The tool comments the later label out (HIP212/HIP213); this "
            "finding is what it could not fix.",
        ),
    ),
    loads=(void_handles,),
    fixtures=("collisions",),
)
