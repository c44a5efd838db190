"""Branches compiled only under a project's build option (`#ifdef PTX`, the `#else` of `#ifndef NO_PTX`):
which option macros each needs, by three-valued evaluation under hipcc's device pass (pp_branches)."""

from __future__ import annotations

from collections.abc import Callable

from hipify_py.analysis.pp_branches import _condition, amd_env, directives, evaluate

_UNKNOWN = [("i", b"__hipify_unknown__")]  # a condition that is not C: its value is unknown


def _branch_liveness(earlier: list[list[tuple[str, bytes]]], own: list[tuple[str, bytes]] | None) -> list:
    """Tokens of `!(c1) && ... && !(ck-1) && (ck)`: the branch after the conditions `earlier` of its chain."""
    toks: list[tuple[str, bytes]] = [("n", b"1")]
    for cond in earlier:
        toks += [("o", b"&&"), ("o", b"!"), ("o", b"("), *cond, ("o", b")")]
    if own is not None:
        toks += [("o", b"&&"), ("o", b"("), *own, ("o", b")")]
    return toks


def option_branches(
    source: bytes, candidate: Callable[[bytes], bool]
) -> list[tuple[int, int, frozenset[bytes]]]:
    """(body start, body end, macros) of each branch that is compiled only when each of `macros` is
    defined: `#ifdef PTX`, `#if defined(VERIFY) && N > 2`, the `#else` of `#ifndef NO_PTX`.

    `candidate` picks the names worth asking about (a project's option macros, not the compiler's or a
    library's). A name is required when the branch is certainly not compiled with it undefined, the
    other unknown macros taking any value (three-valued evaluation under hipcc's device pass)."""
    out: list[tuple[int, int, frozenset[bytes]]] = []
    # open chains: [conditions so far, condition of the current branch (None: #else), body start]
    stack: list[list] = []

    def close(frame: list, at: int) -> None:
        earlier, own, body = frame
        chain = [*earlier, *([own] if own is not None else [])]
        names = {t for cond in chain for k, t in cond if k == "i" and candidate(t)}
        if not names:
            return
        toks = _branch_liveness(earlier, own)
        names_all = frozenset(t for k, t in toks if k == "i")
        required = frozenset(n for n in names if evaluate(toks, amd_env(frozenset({n}))(names_all)) == 0)
        if required:
            out.append((body, at, required))

    for start, end, kind, text in directives(source):
        if kind in (b"if", b"ifdef", b"ifndef"):
            stack.append([[], _condition(kind, text) or _UNKNOWN, end])
        elif not stack:
            continue
        elif kind == b"elif":
            frame = stack[-1]
            close(frame, start)
            if frame[1] is not None:
                frame[0] = [*frame[0], frame[1]]
            frame[1], frame[2] = _condition(kind, text) or _UNKNOWN, end
        elif kind == b"else":
            frame = stack[-1]
            close(frame, start)
            if frame[1] is not None:
                frame[0] = [*frame[0], frame[1]]
            frame[1], frame[2] = None, end
        else:  # endif
            close(stack.pop(), start)
    return out
