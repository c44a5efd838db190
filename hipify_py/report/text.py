"""Terminal output: diagnostics as file:line:col lines and a one-screen summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hipify_py.engine.diagnostics import Severity
from hipify_py.engine.rule_texts import RULES
from hipify_py.report.summary import Totals, file_totals, totals
from hipify_py.run.outcome import FileOutcome, Status

MAX_PER_RULE = 5  # findings of one rule printed per file; the rest are counted (all are in --report)


def format_diagnostics(outcome: FileOutcome, min_severity: Severity = Severity.INFO) -> list[str]:
    """Terminal lines for a file's findings: the first MAX_PER_RULE of each rule in full (its hint once),
    then a count, so one file with 700 inline-asm statements does not bury everything else."""
    lines = []
    shown: Counter[str] = Counter()
    for d in outcome.diagnostics:
        if d.severity < min_severity:
            continue
        shown[d.rule] += 1
        if shown[d.rule] > MAX_PER_RULE:
            continue
        lines.append(f"{outcome.path}:{d.line}:{d.col}: {d.severity}: {d.rule} {d.message}")
        if d.source_line.strip():
            lines.append(f"    {d.source_line.strip()}")
        if d.hint and shown[d.rule] == 1:
            lines.append(f"    hint: {d.hint}")
    for rule, count in shown.items():
        if count > MAX_PER_RULE:
            more = count - MAX_PER_RULE
            lines.append(f"{outcome.path}: ... {more} more {rule} finding(s) in this file (see --report)")
    return lines


def format_problem(outcome: FileOutcome) -> str | None:
    if outcome.status in (Status.ERROR, Status.SKIPPED) or outcome.message:
        return f"{outcome.path}: {outcome.status.value}: {outcome.message}"
    return None


MAX_RULE_LINES = 12  # one screen: the rest is in --report


def format_summary(outcomes: Sequence[FileOutcome], verb: str = "converted") -> str:
    """Run totals in the spirit of `hipify-perl -print-stats`, on one screen."""
    t = totals(outcomes)
    out = [
        f"hipify-py: {t.files} file(s) scanned, {t.changed} {verb}, {t.unchanged} unchanged, "
        f"{t.skipped} skipped, {t.errors} error(s); {t.lines} lines",
    ]
    if t.identifiers or t.counts["unsupported"]:
        out.append(
            f"  CUDA refs converted: {t.converted}{_families(t)}; unsupported: {t.counts['unsupported']}"
            f" ({t.conversion_percent:.1f}% converted)"
        )
    extras = [
        f"{name.replace('_', ' ')} {t.counts[name]}"
        for name in ("launches", "includes", "guards", "symbols", "build_files", "renamed_includes")
        if t.counts[name]
    ]
    if extras:
        out.append("  " + ", ".join(extras))
    if t.rules:
        sev = ", ".join(f"{t.severities[s]} {s}" for s in ("error", "warning", "info") if t.severities[s])
        out.append(f"  diagnostics: {sev}")
        ranked = sorted(t.rules, key=lambda r: (-_severity(r), -t.rules[r], r))
        for rule_id in ranked[:MAX_RULE_LINES]:
            info = RULES.get(rule_id)
            name, level = (info.name, str(info.severity)) if info else ("", "")
            out.append(f"    {rule_id} {name:<28} {level:<8} {t.rules[rule_id]:>5}")
        if len(ranked) > MAX_RULE_LINES:
            rest = sum(t.rules[r] for r in ranked[MAX_RULE_LINES:])
            out.append(
                f"    ... {len(ranked) - MAX_RULE_LINES} more rule(s), {rest} diagnostic(s): see --report"
            )
    return "\n".join(out)


def format_file_stats(outcome: FileOutcome) -> str:
    """One line per file for `--stats`: LOC, references converted by family, launches, findings."""
    t = file_totals(outcome)
    parts = [f"{t.lines} lines", f"{t.converted} refs converted{_families(t)}"]
    if t.counts["unsupported"]:
        parts.append(f"{t.counts['unsupported']} unsupported")
    if t.counts["launches"]:
        parts.append(f"{t.counts['launches']} launches")
    findings = ", ".join(f"{rule} x{n}" for rule, n in sorted(t.rules.items()))
    if findings:
        parts.append(findings)
    return f"{outcome.path}: {outcome.status.value}: " + "; ".join(parts)


def _families(t: Totals) -> str:
    if not t.identifiers:
        return ""
    ranked = sorted(t.identifiers.items(), key=lambda kv: (-kv[1], kv[0]))
    return " (" + ", ".join(f"{fam} {n}" for fam, n in ranked) + ")"


def _severity(rule_id: str) -> int:
    info = RULES.get(rule_id)
    return int(info.severity) if info else 0
