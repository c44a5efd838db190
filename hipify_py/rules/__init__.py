"""Rules: each takes the per-file Context and returns a RuleResult (edits, diagnostics, counts)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.edits import Edit


def _no_counts() -> Counter[str]:
    """An empty Counter, made without Counter.__init__ (Python code that calls update(None)): a file
    makes ~25 RuleResults, and most of them count nothing."""
    return Counter.__new__(Counter)


@dataclass
class RuleResult:
    """What one rule made of a file: edits, findings, counts, and the findings its edits settle."""

    edits: list[Edit] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=_no_counts)
    # (start, end, rule ids): other rules' findings in the span that this rule's edits settle (a
    # `__shfl_down_sync` rewritten for the target is no longer "unsupported"); translate drops them
    settled: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)


RuleFn = Callable[[Context], RuleResult]
