"""Case labels that name a CUDA value HIP lacks (HIP158): commented out.

Real code turns library statuses into text with a switch that lists every value of the enum:
`case CUSOLVER_STATUS_INVALID_LICENSE: return "...";`. The switch is over the HIP type once translated,
and HIP has no such value, so the label alone stopped the build (HIP101, in a header every TU includes:
ABACUS). HIP never produces a value it does not define, so the label can go: commenting out only the
label (not the code after it) changes nothing for the other values, since a label is no more than a
jump target; code that only that label reached becomes unreachable, which C++ accepts.

The same switch is often written with a macro of the file, one label per call (OCCA:
`#define OCCA_CUDA_ERROR_CASE(MACRO) case MACRO: return #MACRO`, then
`OCCA_CUDA_ERROR_CASE(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING);`). There the label cannot be separated
from its code, so the whole call is commented out, and only where that changes nothing: the macro's code
ends in `return` or `break` (nothing falls through out of it) and nothing falls into it (the call follows
the switch's `{`, a `break;` or `return ...;`, or another call of the same macro). The if-chain form
(Ginkgo: `#define GKO_REGISTER_CUFFT_ERROR(e) if (error_code == int64(e)) { return #e; }`) is a test
that a value HIP never returns cannot pass: its calls are commented out the same way, anywhere.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.collision_tokens import skipped
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

_CASE = lazy(rb"\bcase\s+([A-Za-z_]\w*)\s*:(?!:)")
_SETTLES = frozenset({"HIP101"})
# `#define M(P) case P: <code>` up to the end of the logical line (continuations included)
_CASE_MACRO = lazy(
    rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\([ \t]*(\w+)[ \t]*\)((?:[^\n\\]|\\\r?\n|\\)*)", re.MULTILINE
)
# the code after the label ends the case: one `return <expr>` statement, or anything ending in `break`
_ENDS_CASE = lazy(rb"return\b[^;{}]*;?|(?:[^{}]*;)?\s*break\s*;?")
_BEFORE = lazy(rb"(?:break|return\b[^;{}]*)\s*;\s*\Z")


def comment_out_lacking_cases(ctx: Context) -> RuleResult:
    result = RuleResult()
    # why first: C-speed tests spare most files the name set
    labels, macros = b"case" in ctx.source, b"define" in ctx.source
    if not labels and not macros:
        return result
    lacking = ctx.lacking_names
    if not lacking:
        return result
    for m in _CASE.finditer(ctx.source) if labels else ():
        name = m.group(1)
        if name not in lacking or ctx.classify(m.start(1), m.end(1)) != Where.CODE:
            continue
        case = ctx.root.descendant_for_byte_range(m.start(), m.start() + 4)
        if case is not None and case.type == "case":
            case = case.parent
        if case is None or case.type != "case_statement" or case.has_error or skipped(ctx, case):
            continue
        value = case.child_by_field_name("value")
        if value is None or (value.start_byte, value.end_byte) != m.span(1):
            continue
        start, end = m.start(), m.end()
        result.edits += [Edit(start, start, b"/* hipify-py: not in HIP: "), Edit(end, end, b" */")]
        label = name.decode()
        message = f"`case {label}:` names a CUDA value HIP does not have (and never returns): commented out"
        result.diagnostics.append(ctx.diag("HIP158", start, end, message))
        result.settled.append((start, end, _SETTLES))
    if macros:
        _macro_labels(ctx, lacking, result)
    return result


def case_macros(source: bytes) -> dict[bytes, bool]:
    """Function-like macros of the file that name a value for a status-to-text table, and whether they
    are a case label (True: `#define ERR_CASE(e) case e: return #e`, a label on their parameter followed by
    code that ends the case) or a guarded return (False: `if (code == int64(e)) { return #e; }`)."""
    found = {}
    for m in _CASE_MACRO.finditer(source):
        body = m.group(3).replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").strip()
        param = re.escape(m.group(2))
        label = compiled(rb"case\s+" + param + rb"\s*:(?!:)\s*").match(body)
        if label is not None and _ENDS_CASE.fullmatch(body, label.end()):
            found[m.group(1)] = True
        value = rb"(?:" + param + rb"|\w+\s*\(\s*" + param + rb"\s*\)|\(\s*\w+\s*\)\s*" + param
        value += rb"|static_cast\s*<\s*\w+\s*>\s*\(\s*" + param + rb"\s*\))"
        other = rb"[\w.>-]+(?:\s*\(\s*[\w.>-]*\s*\))?"  # `code`, `err.value()`, `s->status`
        equal = rb"(?:" + other + rb"\s*==\s*" + value + rb"|" + value + rb"\s*==\s*" + other + rb")"
        test = rb"if\s*\(\s*" + equal + rb"\s*\)"
        test += rb"\s*(?:\{\s*return\b[^;{}]*;\s*\}|return\b[^;{}]*;)"
        if compiled(test).fullmatch(body):
            found[m.group(1)] = False
    return found


def _macro_labels(ctx: Context, lacking: frozenset[bytes], result: RuleResult) -> None:
    macros = case_macros(ctx.source)
    if not macros:
        return
    names = b"|".join(sorted(macros, key=len, reverse=True))
    calls = compiled(rb"\b(" + names + rb")\s*\(\s*([A-Za-z_]\w*)\s*\)(?:\s*;)?")
    src = ctx.source
    for m in calls.finditer(src):
        if m.group(2) not in lacking or ctx.classify(m.start(), m.end()) != Where.CODE:
            continue
        label = macros[m.group(1)]
        if (label and not _nothing_falls_in(src, m.start(), m.group(1))) or b"*/" in m.group():
            continue
        start, end = m.start(), m.end()
        result.edits += [Edit(start, start, b"/* hipify-py: not in HIP: "), Edit(end, end, b" */")]
        call = f"{m.group(1).decode()}({m.group(2).decode()})"
        what = "a case label naming" if label else "a test for"
        message = f"`{call}` is {what} a CUDA value HIP does not have (never returned): commented out"
        result.diagnostics.append(ctx.diag("HIP158", start, end, message))
        result.settled.append((start, end, _SETTLES))


def _nothing_falls_in(src: bytes, at: int, macro: bytes) -> bool:
    """What comes before the call at `at` cannot run on into it: the switch's `{`, a `break;` or a
    `return ...;`, or a call of the same macro (which ends its case)."""
    before = _without_comments(src[max(0, at - 2048) : at]).rstrip()
    if before.endswith(b"{"):
        return True
    if _BEFORE.search(before):
        return True
    same = compiled(rb"\b" + macro + rb"\s*\(\s*\w+\s*\)\s*;?\Z")
    return same.search(before) is not None


def _without_comments(text: bytes) -> bytes:
    return _COMMENT.sub(b" ", text)


_COMMENT = lazy(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={28: comment_out_lacking_cases},
    texts=(
        Rule(
            "HIP158",
            "lacking-case-label",
            Severity.INFO,
            "A case label naming a CUDA value HIP lacks is commented out",
            "Nothing to do, unless the switch's value can be that number by other means (computed, read "
            "from a file): then give the case its own test.",
            "A switch that turns statuses into text lists every value of a CUDA enum; HIP's counterpart "
            "enum lacks some (CUSOLVER_STATUS_INVALID_LICENSE, CUFFT_LICENSE_ERROR), and the label alone "
            "stopped the build. HIP never returns a value it does not define, so only the label is "
            "commented out: the other values run what they ran, and the code that only this label reached "
            "is left in place, unreachable. A call of the file's own label macro (`#define ERR_CASE(e) "
            "case e: return #e`) is commented out whole where its code ends the case and nothing falls "
            "into it; a call of its test macro (`if (code == int64(e)) { return #e; }`) anywhere.",
        ),
    ),
    fixtures=("identifiers/hip64/lacking_case_*", "identifiers/hip64/lacking_test_macros"),
)
