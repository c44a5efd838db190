"""kernel<<<grid, block[, shmem[, stream]]>>>(args) -> hipLaunchKernelGGL(kernel, dim3(grid), ...).

Only the launch punctuation is edited (`<<<`, `>>>`, the argument list's `(`) plus insertions, so
identifier edits inside the launch never overlap and comments inside the launch survive.

nvcc lexes `<<<` as three tokens, so `k << < g, b >> > (x)` (blanks, newlines, comments or line
continuations between the brackets) is a launch too; clang's HIP mode needs `<<<` written as one token.
The grammar accepts blanks inside its `<<<`/`>>>` tokens; comments and continuations there are blanked
in a copy of the text for the parse, and kept byte for byte in the output.
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context, Where
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node, parse
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# What may stand between the brackets of a launch for nvcc: blanks, comments, line continuations.
# Each alternative matches a piece one way only (a line comment runs to the line's end, a block comment
# to its first `*/`): overlapping ones made `<<` before comment lines holding `//` twice backtrack
# exponentially (minutes for a dozen lines).
_GAP = rb"(?:[ \t\r\n\f\v]|\\\r?\n|/\*(?:[^*]|\*+[^*/])*\*+/|//[^\n]*(?![^\n]))*"
_CHEVRONS = lazy(rb"<" + _GAP + rb"<" + _GAP + rb"<", re.S)
_CLOSING = lazy(rb">" + _GAP + rb">" + _GAP + rb">", re.S)
# Comments and continuations inside a bracket group: the grammar's tokens allow only blanks.
_FILLER = lazy(rb"\\\r?\n|/\*.*?\*/|//[^\n]*", re.S)
# The end of a string or character literal (escapes skipped), from just after its opening quote.
_LITERAL_END = {q: lazy(rb"(?:[^\\\n" + q + rb"]|\\.)*" + q, re.S) for q in (b'"', b"'")}
# A token paste between identifier characters, inside a #define body
_PASTE = lazy(rb"(?<=\w)##(?=\w)")
# `operator<< <T>(...)`: an explicit template argument list of a user's operator<<, not a launch
_OPERATOR_BEFORE = lazy(rb"\boperator\s*\Z")
# Wraps a macro body so it parses as statements: offsets are shifted back by len(_PREFIX).
_PREFIX = b"void __hipify_py_macro_body__() {\n"
_SUFFIX = b"\n;}\n"


def convert_launches(ctx: Context) -> RuleResult:
    result = RuleResult()
    result.valid_hip = True  # `<<<>>>` compiles as HIP: alone, it leaves a HIP file as it is
    keep = ctx.options.keep_launch_syntax
    source = ctx.source
    macro_bodies: dict[int, Node] = {}
    filled: list[re.Match[bytes]] = []  # comments/continuations between brackets: parsed from a copy
    for m in _CHEVRONS.finditer(source):
        start = m.start()
        if (keep and m.group() == b"<<<") or ctx.is_protected(start) or _operator(source, start):
            continue
        where = ctx.classify(start, m.end())
        if where in (Where.COMMENT, Where.STRING):
            continue
        node = ctx.root.descendant_for_byte_range(start, m.end())
        body = _macro_body(node)
        if body is not None:
            macro_bodies.setdefault(body.start_byte, body)
            continue
        if _FILLER.search(m.group()):
            filled.append(m)
            continue
        call = _launch_call(node)
        edits = _edits(source, call, 0, keep or _a_value(call)) if call is not None else None
        if edits is None:
            edits = _braced_edits(source, m, keep)
        if edits is None and call is None:
            edits = _statement_edits(source, m, keep)
        _convert(ctx, start, m.end(), edits, result)
    if filled:
        copy, fillers = _blanked(source)
        root = parse(copy).root_node
        for m in filled:
            call = _launch_call(root.descendant_for_byte_range(m.start(), m.end()))
            edits = _edits(copy, call, 0, keep) if call is not None else None
            _convert(ctx, m.start(), m.end(), _keep_fillers(edits, fillers), result)
    for body in macro_bodies.values():
        if not _defines_launch_macro(body):
            _convert_in_macro(ctx, body, result)
    return result


def _a_value(call: Node) -> bool:
    """A launch used as a value (`CHECK((k<<<g, b>>>()))`, `return k<<<g, b>>>();`): hipLaunchKernelGGL is
    a statement (`do { ... } while (0)`), so there the `<<<>>>` stays, which HIP compiles too. A whole
    macro argument (`CHECK(k<<<g, b>>>())`) is most often a statement in the macro's body: converted."""
    parent = call.parent
    return parent is not None and parent.type not in ("expression_statement", "argument_list", "ERROR")


def _defines_launch_macro(body: Node) -> bool:
    """`#define hipLaunchKernelGGL(F, G, B, M, S, ...) F<<<G, B, M, S>>>(__VA_ARGS__)`: a CUDA build's
    stand-in for HIP's launch macro. Converted, it would expand to itself (an undeclared call); as
    written, `<<<>>>` is valid HIP too."""
    definition = body.parent
    name = definition.child_by_field_name("name") if definition is not None else None
    return name is not None and name.text == b"hipLaunchKernelGGL"


def _operator(text: bytes, start: int) -> bool:
    return bool(_OPERATOR_BEFORE.search(text, max(0, start - 40), start))


def _convert(ctx: Context, start: int, end: int, edits: list[Edit] | None, result: RuleResult) -> None:
    if edits is not None:
        result.edits.extend(edits)
        if not ctx.options.keep_launch_syntax:
            result.counts["launches"] += 1
    elif not ctx.options.keep_launch_syntax:
        result.diagnostics.append(ctx.diag("HIP403", start, end))


def _edits(source: bytes, call: Node, shift: int, keep: bool) -> list[Edit] | None:
    return bracket_edits(source, call, shift) if keep else launch_edits(source, call, shift)


def _braced_edits(source: bytes, m: re.Match[bytes], keep: bool) -> list[Edit] | None:
    """A launch whose configuration holds braced lists (`<<<grid, {x, y, 1}, 0, s>>>`: nvcc takes them as
    dim3s; tree-sitter and clang do not). Parsed from a copy with those braces as parentheses (same
    length); each braced grid/block becomes `dim3(x, y, 1)` (parentheses: no narrowing error on ints)."""
    close = _CLOSING.search(source, m.end())
    if keep or close is None or b"{" not in source[m.end() : close.start()]:
        return None
    copy = bytearray(source)
    for i in range(m.end(), close.start()):
        if copy[i] in b"{}":
            copy[i] = ord("(") if copy[i] == ord("{") else ord(")")
    text = bytes(copy)
    call = _launch_call(parse(text).root_node.descendant_for_byte_range(m.start(), m.end()))
    edits = launch_edits(text, call, 0) if call is not None else None
    if edits is None:
        return None
    out = []
    for e in edits:
        if e.start == e.end and e.text == b"dim3(" and source[e.start : e.start + 1] == b"{":
            out.append(Edit(e.start, e.start + 1, b"dim3("))
        elif e.start == e.end and e.text == b")" and source[e.start - 1 : e.start] == b"}":
            out.append(Edit(e.start - 1, e.start, b")"))
        else:
            out.append(e)
    return out


def _statement_edits(source: bytes, m: re.Match[bytes], keep: bool) -> list[Edit] | None:
    """A launch the file's parse leaves in an ERROR node, most often after a statement macro written
    without `;` (`CHECK_KERNEL` on the line before `k<<<g, b>>>(x);`): parsed alone, as the statement
    from its line's first token to the `;` that ends it. None when that does not parse as a launch."""
    start = source.rfind(b"\n", 0, m.start()) + 1
    end = _statement_end(source, m.end())
    if end is None:
        return None
    text, fillers = _blanked(source[start:end])
    wrapped = _PREFIX + text + _SUFFIX
    at = len(_PREFIX) + m.start() - start
    call = _launch_call(parse(wrapped).root_node.descendant_for_byte_range(at, at + len(m.group())))
    if call is None or call.has_error:
        return None
    shift = start - len(_PREFIX)
    fillers = [(a + start, b + start) for a, b in fillers]
    return _keep_fillers(_edits(wrapped, call, shift, keep), fillers)


def _statement_end(source: bytes, pos: int, limit: int = 1 << 16) -> int | None:
    """The offset just past the `;` that ends the statement going on at `pos` (outside brackets, string
    and character literals and comments); None at an unmatched closing bracket or past `limit` bytes."""
    depth, i, stop = 0, pos, min(len(source), pos + limit)
    while i < stop:
        c = source[i : i + 1]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
            if depth < 0:
                return None
        elif c == b";" and depth == 0:
            return i + 1
        elif c in b"\"'":
            close = _LITERAL_END[c].search(source, i + 1)
            if close is None:
                return None
            i = close.end() - 1
        elif source.startswith(b"//", i) or source.startswith(b"/*", i):
            close = source.find(b"\n" if source[i + 1] == ord("/") else b"*/", i + 2)
            if close < 0:
                return None
            i = close
        i += 1
    return None


def _blanked(text: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """`text` with comments and continuations inside bracket groups blanked (same length), and their spans."""
    if b"/" not in text and b"\\" not in text:
        return text, []
    out = bytearray(text)
    spans: list[tuple[int, int]] = []
    for pattern in (_CHEVRONS, _CLOSING):
        for group in pattern.finditer(text):
            for filler in _FILLER.finditer(text, group.start(), group.end()):
                spans.append(filler.span())
                out[filler.start() : filler.end()] = b" " * (filler.end() - filler.start())
    return bytes(out), sorted(spans)


def _keep_fillers(edits: list[Edit] | None, fillers: list[tuple[int, int]]) -> list[Edit] | None:
    """Split edits around comment/continuation spans so those bytes survive; None if one cuts a span."""
    if edits is None or not fillers:
        return edits
    out: list[Edit] = []
    for edit in edits:
        inside = [f for f in fillers if edit.start < f[1] and f[0] < edit.end]
        if any(a < edit.start or b > edit.end for a, b in inside):
            return None
        pos, text = edit.start, edit.text
        for a, b in inside:
            out.append(Edit(pos, a, text))
            pos, text = b, b""
        out.append(Edit(pos, edit.end, text))
    return [e for e in out if e.start != e.end or e.text]


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
    keep = ctx.options.keep_launch_syntax
    text, fillers = _blanked(ctx.source[body.start_byte : body.end_byte])
    # `relu_##T##_kernel<<<g, b>>>(x)`: a pasted kernel name parses as one identifier (same length)
    wrapped = _PREFIX + _PASTE.sub(b"__", text) + _SUFFIX
    tree = parse(wrapped)
    shift = body.start_byte - len(_PREFIX)
    fillers = [(a + body.start_byte, b + body.start_byte) for a, b in fillers]
    for m in _CHEVRONS.finditer(text):
        if (keep and m.group() == b"<<<") or _operator(text, m.start()):
            continue
        node = tree.root_node.descendant_for_byte_range(len(_PREFIX) + m.start(), len(_PREFIX) + m.end())
        call = _launch_call(node)
        edits = _keep_fillers(_edits(wrapped, call, shift, keep) if call is not None else None, fillers)
        start = body.start_byte + m.start()
        if edits is None and ctx.classify(start, start + 1) in (Where.COMMENT, Where.STRING):
            continue
        _convert(ctx, start, body.start_byte + m.end(), edits, result)


def _syntax(call: Node) -> Node | None:
    return next((c for c in call.children if c.type == "kernel_call_syntax"), None)


def bracket_edits(source: bytes, call: Node, shift: int) -> list[Edit] | None:
    """--keep-launch-syntax: only `<< <` / `>> >` become the single tokens `<<<` / `>>>` clang needs."""
    syntax = _syntax(call)
    if syntax is None or syntax.has_error:
        return None
    edits = []
    for token, text in ((syntax.children[0], b"<<<"), (syntax.children[-1], b">>>")):
        if source[token.start_byte : token.end_byte] != text:
            edits.append(Edit(token.start_byte + shift, token.end_byte + shift, text))
    return edits


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
    syntax = _syntax(call)
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
    opening_text = source[opening.start_byte : opening.end_byte]  # `<<<`, or `<< <` split by blanks
    if _blank(source, kernel.end_byte, config[0].start_byte, (opening_text,)):
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
    if _blank(source, last.end_byte, after, (source[closing.start_byte : closing.end_byte], b"(")):
        edits.append(Edit(last.end_byte, after, defaults + separator))
    else:
        edits.append(Edit(last.end_byte, last.end_byte, defaults))
        edits.append(Edit(closing.start_byte, closing.end_byte, b""))
        paren = args.children[0]
        edits.append(Edit(paren.start_byte, paren.end_byte, separator))
    return [Edit(e.start + shift, e.end + shift, e.text) for e in edits if e != Edit(0, 0, b"")]


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={50: convert_launches},
    texts=(
        Rule(
            "HIP403",
            "unparsed-launch",
            Severity.WARNING,
            "Kernel launch could not be structured and was left as is",
            "Check the launch by hand; HIP also accepts the <<<>>> syntax.",
            "The parser could not recover the structure of this kernel launch (e.g. it is split across "
            "macros). It was left in triple-chevron form, which hip-clang also accepts.",
        ),
    ),
    fixtures=(
        "launch",
        "keep_launch",
        "launch_spaced",
    ),
)
