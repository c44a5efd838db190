"""Terminal output: diagnostics as file:line:col lines and a one-screen summary."""

from __future__ import annotations

from collections.abc import Sequence

from hipify_py.diagnostics import Severity
from hipify_py.report.summary import totals
from hipify_py.runner import FileOutcome, Status


def format_diagnostics(outcome: FileOutcome, min_severity: Severity = Severity.INFO) -> list[str]:
    lines = []
    for d in outcome.diagnostics:
        if d.severity < min_severity:
            continue
        lines.append(f"{outcome.path}:{d.line}:{d.col}: {d.severity}: {d.rule} {d.message}")
        if d.source_line.strip():
            lines.append(f"    {d.source_line.strip()}")
        if d.hint:
            lines.append(f"    hint: {d.hint}")
    return lines


def format_problem(outcome: FileOutcome) -> str | None:
    if outcome.status in (Status.ERROR, Status.SKIPPED) or outcome.message:
        return f"{outcome.path}: {outcome.status.value}: {outcome.message}"
    return None


def format_summary(outcomes: Sequence[FileOutcome], verb: str = "converted") -> str:
    t = totals(outcomes)
    out = [
        f"hipify-py: {t.files} file(s) scanned, {t.changed} {verb}, {t.unchanged} unchanged, "
        f"{t.skipped} skipped, {t.errors} error(s); {t.lines} lines",
    ]
    if t.identifiers:
        fams = ", ".join(
            f"{fam} {n}" for fam, n in sorted(t.identifiers.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        out.append(f"  identifiers replaced: {sum(t.identifiers.values())} ({fams})")
    extras = [
        f"{name} {t.counts[name]}"
        for name in ("launches", "includes", "symbols", "build_files")
        if t.counts[name]
    ]
    if extras:
        out.append("  " + ", ".join(extras))
    if t.counts["unsupported"]:
        out.append(f"  unsupported CUDA API uses: {t.counts['unsupported']}")
    if t.rules:
        sev = ", ".join(f"{t.severities[s]} {s}" for s in ("error", "warning", "info") if t.severities[s])
        rules = ", ".join(f"{rule} x{n}" for rule, n in sorted(t.rules.items()))
        out.append(f"  diagnostics: {sev} ({rules})")
    return "\n".join(out)
