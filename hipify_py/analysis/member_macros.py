"""Function-like macros that paste an argument after `->` or `.`: that argument's first name is a member.

Code that loads libcuda itself calls through a table of function pointers, often with a macro that
does the member access: IREE's `#define IREE_CURESULT_TO_STATUS(syms, expr, ...) ... ((syms)->expr)`,
called as `IREE_CURESULT_TO_STATUS(syms, cuCtxCreate(&c, 0, d))`. `cuCtxCreate` there names the table's
member, which keeps CUDA's name (rules/symbol_tables.py), as a member access written out
(`syms->cuCtxCreate(...)`) does. The macros are found in the file itself and (run/helper_defs.py) in the
headers it includes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from hipify_py.util.lazyre import lazy

# `#define NAME(params) body`, the body with its continuation lines
_DEFINE = lazy(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.MULTILINE
)
_NAME = lazy(rb"[A-Za-z_]\w*")
# A call whose argument could be such a name: an upper-case macro called with a plain first argument (the
# table) and an API call (cu*, cuda*, ...) next; only files with one read their headers for the macros.
# why not any argument: `CUDA_CHECK(cudaMalloc(...))` is in most files, and a cache hit re-reads the
# headers of every file that looked
_CANDIDATE = lazy(rb"\b[A-Z][A-Z0-9_]*[ \t]*\([^;{}()]*,[ \t\r\n\\]*(?:cu|cuda|nccl|nvrtc)[A-Z]\w*[ \t]*\(")


Definition = tuple[bytes, tuple[bytes, ...], bytes]  # name, parameters, body


def definitions(text: bytes) -> tuple[Definition, ...]:
    """The function-like macros of `text` whose body accesses a member or calls something."""
    if b"#" not in text or b"define" not in text:
        return ()
    found = []
    for m in _DEFINE.finditer(text):
        body = m.group(3)
        if b"->" in body or b"." in body or b"(" in body:
            found.append((m.group(1), tuple(p.strip() for p in m.group(2).split(b",")), body))
    return tuple(found)


def pasted(text: bytes) -> dict[bytes, frozenset[int]]:
    """Macro name -> the indexes of the parameters its body writes right after `->` or `.`."""
    return pasted_of(definitions(text))


def pasted_of(defs: Iterable[Definition]) -> dict[bytes, frozenset[int]]:
    """pasted() over definitions from any number of files: a macro that passes a parameter on to such an
    argument of another (`RETURN_IF_ERROR(syms, expr)` calling `CALL(syms, expr)`) pastes it too."""
    defs = [d for d in defs if d[1]]
    found: dict[bytes, frozenset[int]] = {}
    for name, params, body in defs:
        if b"->" in body or b"." in body:
            members = frozenset(
                i for i, p in enumerate(params) if _NAME.fullmatch(p) and _after_access(body, p)
            )
            if members:
                found.setdefault(name, members)
    for _ in range(4):  # why bounded: a chain of macros deeper than this is not met in real code
        grown = False
        for name, params, body in defs:
            if not found or not any(other in body for other in found):
                continue
            opened = {body[i : i + 64] for i in member_starts(body, found)}
            more = frozenset(i for i, p in enumerate(params) if any(_opens(t, p) for t in opened))
            if not more <= found.get(name, frozenset()):
                found[name] = found.get(name, frozenset()) | more
                grown = True
        if not grown:
            break
    return found


def _opens(text: bytes, param: bytes) -> bool:
    return (
        text.startswith(param)
        and not text[len(param) : len(param) + 1].isalnum()
        and text[len(param) : len(param) + 1] != b"_"
    )


def _after_access(body: bytes, param: bytes) -> bool:
    """`->param` or `x.param` in `body`, not a number's `1.e5` nor `...`."""
    for m in re.finditer(rb"(->|\.)[ \t]*" + re.escape(param) + rb"(?!\w)", body):
        if m.group(1) == b"->":
            return True
        token = re.search(rb"[\w.]*\Z", body[: m.start()])
        if token is not None and not token.group()[:1].isdigit() and not token.group().endswith(b"."):
            return True
    return False


def may_use(source: bytes) -> bool:
    """Whether `source` calls an upper-case macro with an API call after a plain first argument."""
    return _CANDIDATE.search(source) is not None


def member_starts(source: bytes, macros: Mapping[bytes, Iterable[int]]) -> frozenset[int]:
    """Offsets of the names that open a pasted argument of a call of one of `macros` in `source`."""
    from hipify_py.analysis.callargs import from_text  # why here: process.py imports this module early

    starts: set[int] = set()
    for name, indexes in macros.items():
        for m in re.finditer(rb"(?<![\w#])" + re.escape(name) + rb"(?=[ \t]*\()", source):
            call = from_text(source, m.span())
            if call is not None:
                starts.update(call.args[i][0] for i in indexes if i < len(call.args))
    return frozenset(starts)
