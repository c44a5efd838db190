"""Case labels that become one value after renaming (HIP126, HIP212, HIP213), for collisions.py: the
later label is commented out, or reported where that cannot be done safely."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from hipify_py.analysis.context import Context
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.collision_tokens import CONDITIONALS, Renamer, exclusive, skipped, spell


def case_labels(ctx: Context, renamer: Renamer, spots: list[int], result: RuleResult) -> None:
    switches: dict[int, Node] = {}
    for at in spots:
        node = ctx.root.descendant_for_byte_range(at, at + 1)
        cur = node
        while cur is not None and cur.type not in (
            "case_statement",
            "compound_statement",
            "translation_unit",
        ):
            cur = cur.parent
        if cur is None or cur.type != "case_statement":
            continue
        value = cur.child_by_field_name("value")
        if value is None or not (value.start_byte <= at < value.end_byte):
            continue
        switch = _switch_of(cur)
        if switch is not None:
            switches.setdefault(switch.start_byte, switch)
    for switch in switches.values():
        _duplicates_in(ctx, renamer, switch, result)


def _switch_of(case: Node) -> Node | None:
    cur = case.parent
    while cur is not None and cur.type in CONDITIONALS | {"preproc_else", "compound_statement"}:
        if cur.type == "compound_statement":
            parent = cur.parent
            return parent if parent is not None and parent.type == "switch_statement" else None
        cur = cur.parent
    return None


def _cases(switch: Node) -> Iterator[Node]:
    """The case labels of this switch (not of switches nested in it), also inside #if arms."""
    body = switch.child_by_field_name("body")
    stack = list(reversed(body.named_children)) if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "case_statement":
            yield node
        elif node.type in CONDITIONALS or node.type == "preproc_else":
            stack.extend(reversed(node.named_children))


def _duplicates_in(ctx: Context, renamer: Renamer, switch: Node, result: RuleResult) -> None:
    seen: dict[tuple[bytes, ...], list[Node]] = defaultdict(list)
    for case in _cases(switch):
        value = case.child_by_field_name("value")
        if value is None or skipped(ctx, case):
            continue
        renamed = renamer.tokens(value)
        earlier = next(
            (
                c
                for c in seen.get(renamed, ())
                if renamer.original(c.child_by_field_name("value")) != renamer.original(value)
                and not exclusive(c, case)
            ),
            None,
        )
        seen[renamed].append(case)
        if earlier is None:
            continue
        _report_case(ctx, renamer, earlier, case, value, result)


def _label_end(case: Node) -> int:
    colon = next((c for c in case.children if c.type == ":"), None)
    return colon.end_byte if colon is not None else case.end_byte


def _statements(renamer: Renamer, case: Node) -> tuple[bytes, ...]:
    """What runs from this label on until the next label (a label alone shares the next label's)."""
    cur: Node | None = case
    while cur is not None and cur.type == "case_statement":
        stmts = [
            c for c in cur.named_children if c != cur.child_by_field_name("value") and c.type != "comment"
        ]
        if stmts:
            return tuple(t for s in stmts for t in renamer.tokens(s))
        cur = cur.next_named_sibling
    return ()


def _report_case(
    ctx: Context, renamer: Renamer, earlier: Node, case: Node, value: Node, result: RuleResult
) -> None:
    line = ctx.lines.line_col(earlier.start_byte)[0]
    label = spell(renamer.tokens(value))
    was = spell(renamer.original(value))
    start, end = case.start_byte, _label_end(case)
    text = ctx.source[start:end]
    if b"*/" in text or case.has_error:
        result.diagnostics.append(
            ctx.diag(
                "HIP126",
                start,
                end,
                f"`case {was}:` becomes `case {label}:` after renaming, like line {line}: remove one of them",
            )
        )
        return
    result.edits += [
        Edit(start, start, b"/* hipify-py: duplicate after renaming: "),
        Edit(end, end, b" */"),
    ]
    same = _statements(renamer, earlier) == _statements(renamer, case)
    if same:
        message = (
            f"`case {was}:` becomes `case {label}:` after renaming, like line {line}, and runs the same "
            "code: commented out"
        )
        result.diagnostics.append(ctx.diag("HIP213", start, end, message))
    else:
        message = (
            f"`case {was}:` becomes `case {label}:` after renaming, like line {line}: commented out; "
            f"the value now runs line {line}'s code, which differs from this case's"
        )
        result.diagnostics.append(ctx.diag("HIP212", start, end, message))
