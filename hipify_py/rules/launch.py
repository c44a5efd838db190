"""kernel<<<grid, block[, shmem[, stream]]>>>(args) -> hipLaunchKernelGGL(kernel, dim3(grid), ...).

Only the launch punctuation is edited (`<<<`, `>>>`, the argument list's `(`) plus insertions, so
identifier edits inside the launch never overlap and comments inside the launch survive.
"""

from __future__ import annotations

import re

from hipify_py.context import Context, Where
from hipify_py.edits import Edit
from hipify_py.parser import Node, parse
from hipify_py.rules import RuleResult

_CHEVRONS = re.compile(rb"<<<")
# Wraps a macro body so it parses as statements: offsets are shifted back by len(_PREFIX).
_PREFIX = b"void __hipify_py_macro_body__() {\n"
_SUFFIX = b"\n;}\n"


def convert_launches(ctx: Context) -> RuleResult:
    result = RuleResult()
    if ctx.options.keep_launch_syntax:
        return result
    macro_bodies: dict[int, Node] = {}
    for m in _CHEVRONS.finditer(ctx.source):
        start = m.start()
        if ctx.is_protected(start):
            continue
        where = ctx.classify(start, m.end())
        if where in (Where.COMMENT, Where.STRING):
            continue
        node = ctx.root.descendant_for_byte_range(start, m.end())
        call = _launch_call(node)
        if call is not None:
            edits = launch_edits(ctx.source, call, 0)
            if edits is not None:
                result.edits.extend(edits)
                result.counts["launches"] += 1
                continue
        body = _macro_body(node)
        if body is not None:
            macro_bodies.setdefault(body.start_byte, body)
            continue
        result.diagnostics.append(ctx.diag("HIP403", start, m.end()))
    for body in macro_bodies.values():
        _convert_in_macro(ctx, body, result)
    return result


def _launch_call(node: Node | None) -> Node | None:
    while node is not None and node.type != "kernel_call_syntax":
        if node.type in ("ERROR", "preproc_arg", "translation_unit"):
            return None
        node = node.parent
    if node is None or node.parent is None or node.parent.type != "call_expression":
        return None
    return node.parent


def _macro_body(node: Node | None) -> Node | None:
    while node is not None:
        if node.type == "preproc_arg":
            return node
        node = node.parent
    return None


def _convert_in_macro(ctx: Context, body: Node, result: RuleResult) -> None:
    """Re-parse a #define body as statements and convert the launches found in it."""
    text = ctx.source[body.start_byte : body.end_byte]
    wrapped = _PREFIX + text + _SUFFIX
    tree = parse(wrapped)
    shift = body.start_byte - len(_PREFIX)
    converted = 0
    for m in _CHEVRONS.finditer(text):
        node = tree.root_node.descendant_for_byte_range(len(_PREFIX) + m.start(), len(_PREFIX) + m.end())
        call = _launch_call(node)
        edits = launch_edits(wrapped, call, shift) if call is not None else None
        if edits is None:
            start = body.start_byte + m.start()
            if ctx.classify(start, start + 3) not in (Where.COMMENT, Where.STRING):
                result.diagnostics.append(ctx.diag("HIP403", start, start + 3))
            continue
        result.edits.extend(edits)
        converted += 1
    result.counts["launches"] += converted


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def _blank(source: bytes, start: int, end: int, tokens: tuple[bytes, ...]) -> bool:
    """True if source[start:end] is only whitespace and the given punctuation tokens."""
    gap = source[start:end]
    for token in tokens:
        gap = gap.replace(token, b"", 1)
    return not gap.strip(b" \t\r\n\\")


def launch_edits(source: bytes, call: Node, shift: int) -> list[Edit] | None:
    """Edits turning one launch call_expression into hipLaunchKernelGGL; offsets + shift.

    Whitespace around the chevrons is dropped when it holds nothing else; comments are kept.
    """
    kernel = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    syntax = next((c for c in call.children if c.type == "kernel_call_syntax"), None)
    if kernel is None or args is None or syntax is None or syntax.has_error:
        return None
    config = _named(syntax)
    opening = syntax.children[0]
    closing = syntax.children[-1]
    if not 2 <= len(config) <= 4 or opening.type != "<<<" or closing.type != ">>>":
        return None
    kernel_text = source[kernel.start_byte : kernel.end_byte]
    needs_parens = kernel.type != "parenthesized_expression" and b"<" in kernel_text
    edits = [
        Edit(kernel.start_byte, kernel.start_byte, b"hipLaunchKernelGGL(" + (b"(" if needs_parens else b""))
    ]
    head = (b")" if needs_parens else b"") + b", "
    if _blank(source, kernel.end_byte, config[0].start_byte, (b"<<<",)):
        edits.append(Edit(kernel.end_byte, config[0].start_byte, head))
    else:
        edits.append(Edit(kernel.end_byte, kernel.end_byte, head[:-2]) if needs_parens else Edit(0, 0, b""))
        edits.append(Edit(opening.start_byte, opening.end_byte, b", "))
    for arg in config[:2]:
        edits.append(Edit(arg.start_byte, arg.start_byte, b"dim3("))
        edits.append(Edit(arg.end_byte, arg.end_byte, b")"))
    last = config[-1]
    defaults = b", 0" * (4 - len(config))
    arguments = _named(args)
    after = arguments[0].start_byte if arguments else args.children[-1].start_byte
    separator = b", " if arguments else b""
    if _blank(source, last.end_byte, after, (b">>>", b"(")):
        edits.append(Edit(last.end_byte, after, defaults + separator))
    else:
        edits.append(Edit(last.end_byte, last.end_byte, defaults))
        edits.append(Edit(closing.start_byte, closing.end_byte, b""))
        paren = args.children[0]
        edits.append(Edit(paren.start_byte, paren.end_byte, separator))
    return [Edit(e.start + shift, e.end + shift, e.text) for e in edits if e != Edit(0, 0, b"")]
