"""Rules: each takes the per-file Context and returns a RuleResult (edits, diagnostics, counts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from hipify_py.analysis.context import Context
from hipify_py.analysis.includes import after_last_include
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.edits import Edit
from hipify_py.engine.source import newline_of


def _no_counts() -> Counter[str]:
    """An empty Counter, made without Counter.__init__ (Python code that calls update(None)): a file
    makes ~25 RuleResults, and most of them count nothing."""
    return Counter.__new__(Counter)


# Where an insertion goes at one offset, first to last, after the rules' own edits there
# (pipeline/insertions.py places them; the order is written down in docs/architecture.md, "Insertions").
MACRO = 0  # `#ifndef M / #define M / #endif`: a macro HIP's headers read, so before any include
RUNTIME = 1  # hip/hip_runtime.h where nvcc included cuda_runtime.h implicitly (the planner's own)
PREREQUISITE = 2  # a header an included HIP header needs before it (the planner's own)
INCLUDE = 3  # `#include <H>`: a header the code needs (C headers nvcc brought along, thrust's)
HELPER = 4  # a definition (shim, helper): it uses what the includes above declare
GUARDED = 5  # hip/hip_runtime.h under `#if`, right above the line it protects (rules/macro_order.py)
TOP = -1  # `at` for "the top of the include block" (analysis/includes.py include_position)


class Insertion(NamedTuple):
    """Text a rule asks to have inserted; the planner (pipeline/insertions.py) formats and orders it.

    MACRO: `text` is the macro's name. INCLUDE: the header (`string.h`). HELPER: the definition as
    written, ending with a newline. `at`: TOP, or the offset of the line it goes before (or after the
    end of an included line: at a file's end with no newline, the newline moves to the front)."""

    slot: int
    at: int
    text: bytes
    guard: bytes = b""  # an `#if` line the insertion sits under (with its `#endif`)

    @staticmethod
    def include(header: bytes, at: int = TOP) -> Insertion:
        return Insertion(INCLUDE, at, header)

    @staticmethod
    def macro(name: bytes) -> Insertion:
        return Insertion(MACRO, TOP, name)

    @staticmethod
    def helper(at: int, text: bytes) -> Insertion:
        return Insertion(HELPER, at, text)

    @staticmethod
    def helper_before(ctx: Context, first: int, text: bytes) -> Insertion:
        """A helper block for uses from `first` on: after the last include above it (analysis/includes.py
        after_last_include), with `\n` written as the file's newline."""
        at, lead = after_last_include(ctx, first)
        return Insertion(HELPER, at, lead + text.replace(b"\n", newline_of(ctx.source)))


class RuleResult:
    """What one rule made of a file: edits, insertions it requests, findings, counts, and the findings its
    edits settle. `valid_hip`: the edits are valid HIP as written too (`<<<>>>`), so a file that includes HIP
    headers and has no other edit keeps its text.

    why a plain class, not a dataclass: see engine/options.py"""

    __slots__ = ("counts", "diagnostics", "edits", "requests", "settled", "valid_hip")

    def __init__(
        self,
        edits: list[Edit] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        counts: Counter[str] | None = None,
        settled: list[tuple[int, int, frozenset[str]]] | None = None,
        requests: list[Insertion] | None = None,
    ) -> None:
        self.edits: list[Edit] = [] if edits is None else edits
        self.requests: list[Insertion] = [] if requests is None else requests
        self.valid_hip = False
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.counts: Counter[str] = _no_counts() if counts is None else counts
        # (start, end, rule ids): other rules' findings in the span that this rule's edits settle (a
        # `__shfl_down_sync` rewritten for the target is no longer "unsupported"); translate drops them
        self.settled: list[tuple[int, int, frozenset[str]]] = [] if settled is None else settled


RuleFn = Callable[[Context], RuleResult]
