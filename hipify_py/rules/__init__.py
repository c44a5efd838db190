"""Rules: each takes the per-file Context and returns a RuleResult (edits, diagnostics, counts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.edits import Edit


def _no_counts() -> Counter[str]:
    """An empty Counter, made without Counter.__init__ (Python code that calls update(None)): a file
    makes ~25 RuleResults, and most of them count nothing."""
    return Counter.__new__(Counter)


class RuleResult:
    """What one rule made of a file: edits, findings, counts, and the findings its edits settle.

    why a plain class, not a dataclass: see engine/options.py"""

    __slots__ = ("counts", "diagnostics", "edits", "settled")

    def __init__(
        self,
        edits: list[Edit] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        counts: Counter[str] | None = None,
        settled: list[tuple[int, int, frozenset[str]]] | None = None,
    ) -> None:
        self.edits: list[Edit] = [] if edits is None else edits
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.counts: Counter[str] = _no_counts() if counts is None else counts
        # (start, end, rule ids): other rules' findings in the span that this rule's edits settle (a
        # `__shfl_down_sync` rewritten for the target is no longer "unsupported"); translate drops them
        self.settled: list[tuple[int, int, frozenset[str]]] = [] if settled is None else settled


RuleFn = Callable[[Context], RuleResult]
