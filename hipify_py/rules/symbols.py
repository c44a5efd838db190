"""cudaMemcpyToSymbol(sym, ...) and friends: wrap the symbol in HIP_SYMBOL(), as HIP on AMD needs."""

from __future__ import annotations

import re

from hipify_py.context import REWRITABLE, Context
from hipify_py.edits import Edit
from hipify_py.rules import RuleResult

# function -> index of its symbol argument
SYMBOL_ARGUMENT = {
    b"cudaMemcpyToSymbol": 0,
    b"cudaMemcpyToSymbolAsync": 0,
    b"cudaMemcpyFromSymbol": 1,
    b"cudaMemcpyFromSymbolAsync": 1,
    b"cudaGetSymbolAddress": 1,
    b"cudaGetSymbolSize": 1,
}
_CALLS = re.compile(rb"\b(" + b"|".join(SYMBOL_ARGUMENT) + rb")\s*\(")
_WRAPPED = re.compile(rb"\s*HIP_SYMBOL\s*\(")


def wrap_symbols(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"Symbol" not in ctx.source:  # every name in SYMBOL_ARGUMENT has it; most files have none
        return result
    for m in _CALLS.finditer(ctx.source):
        if ctx.is_protected(m.start()) or ctx.classify(m.start(1), m.end(1)) not in REWRITABLE:
            continue
        if _declares(ctx, m.start(1)):
            continue  # a wrapper's own declaration: its parameters are no symbol arguments
        index = SYMBOL_ARGUMENT[m.group(1)]
        span = _tree_argument_span(ctx, m.start(1), index) or _argument_span(ctx.source, m.end(), index)
        if span is None:
            continue
        start, end = span
        if _WRAPPED.match(ctx.source, start) or start == end:
            continue
        # why: HIP_SYMBOL is a macro; `A<int, 4>::x` would be two macro arguments without parentheses
        double = b"," in ctx.source[start:end]
        result.edits.append(Edit(start, start, b"HIP_SYMBOL((" if double else b"HIP_SYMBOL("))
        result.edits.append(Edit(end, end, b"))" if double else b")"))
        result.counts["symbols"] += 1
    return result


def _declares(ctx: Context, name_at: int) -> bool:
    node = ctx.root.descendant_for_byte_range(name_at, name_at + 1)
    return node is not None and node.parent is not None and node.parent.type == "function_declarator"


def _tree_argument_span(ctx: Context, name_at: int, index: int) -> tuple[int, int] | None:
    """The argument's span from the syntax tree (understands templates); None outside parsed code."""
    node = ctx.root.descendant_for_byte_range(name_at, name_at + 1)
    call = node.parent if node is not None else None
    if call is None or call.type != "call_expression" or call.has_error:
        return None
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or function.start_byte != name_at or arguments is None:
        return None
    args = [c for c in arguments.named_children if c.type != "comment"]
    if index >= len(args):
        return None
    return args[index].start_byte, args[index].end_byte


_OPEN = b"([{"
_CLOSE = b")]}"


def _argument_span(source: bytes, pos: int, index: int) -> tuple[int, int] | None:
    """Span (without surrounding blanks) of argument `index` of the call whose `(` ends at pos.

    Lexical on purpose: it works the same in code, macro bodies and error regions. Brackets nest;
    commas inside them or inside literals do not split arguments.
    """
    depth = 0
    current = 0
    arg_start = pos
    i = pos
    n = len(source)
    while i < n:
        c = source[i]
        if c in b"\"'" and not (c == ord("'") and source[i - 1 : i].isalnum()):  # 1'000: a separator
            i = _skip_literal(source, i)
            continue
        if source.startswith(b"//", i) or source.startswith(b"/*", i):
            i = _skip_comment(source, i)
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return _trimmed(source, arg_start, i) if current == index else None
            depth -= 1
        elif c == ord(",") and depth == 0:
            if current == index:
                return _trimmed(source, arg_start, i)
            current += 1
            arg_start = i + 1
        i += 1
    return None


def _trimmed(source: bytes, start: int, end: int) -> tuple[int, int]:
    """Without surrounding blanks, and without comments before the argument."""
    while start < end:
        if source[start] in b" \t\r\n\\":
            start += 1
        elif source.startswith((b"//", b"/*"), start):
            start = min(_skip_comment(source, start), end)
        else:
            break
    while end > start and source[end - 1] in b" \t\r\n\\":
        end -= 1
    return start, end


def _skip_literal(source: bytes, i: int) -> int:
    quote = source[i]
    i += 1
    while i < len(source) and source[i] != quote and source[i] != ord("\n"):
        i += 2 if source[i] == ord("\\") else 1
    return i + 1


def _skip_comment(source: bytes, i: int) -> int:
    if source.startswith(b"//", i):
        nl = source.find(b"\n", i)
        return len(source) if nl == -1 else nl
    end = source.find(b"*/", i + 2)
    return len(source) if end == -1 else end + 2
