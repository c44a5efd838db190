"""Aggregate per-file outcomes into run totals (shared by every report format)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from hipify_py.runner import FileOutcome, Status


@dataclass
class Totals:
    files: int = 0
    changed: int = 0
    unchanged: int = 0
    skipped: int = 0
    errors: int = 0
    lines: int = 0
    identifiers: Counter[str] = field(default_factory=Counter)  # per API family
    counts: Counter[str] = field(default_factory=Counter)  # launches, includes, symbols, ...
    rules: Counter[str] = field(default_factory=Counter)  # diagnostics per rule id
    severities: Counter[str] = field(default_factory=Counter)


def totals(outcomes: Sequence[FileOutcome]) -> Totals:
    t = Totals(files=len(outcomes))
    for o in outcomes:
        if o.status is Status.CHANGED:
            t.changed += 1
        elif o.status is Status.UNCHANGED:
            t.unchanged += 1
        elif o.status is Status.SKIPPED:
            t.skipped += 1
        else:
            t.errors += 1
        t.lines += o.lines
        for key, n in o.counts.items():
            if key.startswith("identifiers."):
                t.identifiers[key.split(".", 1)[1]] += n
            else:
                t.counts[key] += n
        for d in o.diagnostics:
            t.rules[d.rule] += 1
            t.severities[str(d.severity)] += 1
    return t
