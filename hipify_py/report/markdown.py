"""`--report x.md`: a Markdown migration report to paste into a pull-request description.

Summary table, references converted by family, one section per rule (id, title, fix hint) listing
`file:line` links (`path#Lline`, relative to the directory hipify-py ran in); long lists are collapsed
in <details> so the description stays readable.
"""

from __future__ import annotations

from collections.abc import Sequence

import hipify_py
from hipify_py.engine.diagnostics import Rule
from hipify_py.report.summary import (
    RunInfo,
    Totals,
    display_path,
    file_totals,
    ordered_diagnostics,
    ordered_outcomes,
    rules_used,
    totals,
)
from hipify_py.run.outcome import FileOutcome, Status
from hipify_py.util.lazyre import lazy

COLLAPSE_AFTER = 8  # findings of one rule shown open; more go into <details>
_CODE_SPAN = lazy(r"(`+)(.+?)\1")
# why so few: GitHub ignores `_` inside words (hipDeviceProp_t), `>` and `#` matter only at a line start
_SPECIAL = lazy(r"([\\*\[\]<|`]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def render_markdown(outcomes: Sequence[FileOutcome], info: RunInfo | None = None) -> str:
    info = info or RunInfo()
    t = totals(outcomes)
    ordered = ordered_outcomes(outcomes, info.cwd)
    out = ["## hipify-py migration report", "", _byline(info), ""]
    out += _summary_table(t)
    if info.verify is not None:
        out += _verify_section(info.verify)
    if t.identifiers:
        out += [
            "",
            "### CUDA references converted by family",
            "",
            "| Family | References |",
            "| --- | ---: |",
        ]
        out += [
            f"| {fam} | {n} |" for fam, n in sorted(t.identifiers.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
    out += _rule_table(outcomes, t)
    out += _problem_files(ordered, info)
    if len(ordered) > 1:
        out += _file_table(ordered, info)
    for rule in rules_used(outcomes):
        out += _rule_section(rule, ordered, info)
    return "\n".join(out).rstrip("\n") + "\n"


def _byline(info: RunInfo) -> str:
    parts = [f"hipify-py {hipify_py.__version__}"]
    if info.mode:
        parts.append(f"mode `{info.mode}`")
    if info.mapping_digest:
        parts.append(f"mapping tables `{info.mapping_digest[:12]}`")
    if info.latest_hip_version:
        parts.append(f"tables up to HIP {info.latest_hip_version}")
    if info.target_hip_version:
        parts.append(f"target HIP {info.target_hip_version} ({inline(info.target_reason)})")
    return " · ".join(parts)


def _summary_table(t: Totals) -> list[str]:
    sev = t.severities
    return [
        "| Files | Changed | Unchanged | Skipped | Errors | Lines | CUDA refs converted | Unsupported "
        "| Launches | Conversion | Diagnostics |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        f"| {t.files} | {t.changed} | {t.unchanged} | {t.skipped} | {t.errors} | {t.lines} | {t.converted} "
        f"| {t.counts['unsupported']} | {t.counts['launches']} | {t.conversion_percent:.1f}% "
        f"| {sev['error']} error, {sev['warning']} warning, {sev['info']} info |",
    ]


def _verify_section(v: object) -> list[str]:
    """The compile of the translation: P/N, then failing TUs grouped by their first error."""
    units, compiled = v.units, v.compiled  # type: ignore[attr-defined]
    out = ["", "### Compile check (hipcc)", "", f"Translation units compiled: **{compiled}/{units}**"]
    causes = v.causes  # type: ignore[attr-defined]
    if causes:
        out += ["", "| TUs | First error | Example |", "| ---: | --- | --- |"]
        out += [f"| {n} | {inline(text)} | {inline(example)} |" for text, n, example in causes]
    failed = v.failed  # type: ignore[attr-defined]
    if failed:
        items = [f"- {inline(f.path)}: {inline(f.first_error)}" for f in failed]
        if len(items) > COLLAPSE_AFTER:
            items = [f"<details><summary>{len(items)} failing units</summary>", "", *items, "", "</details>"]
        out += ["", *items]
    return out


def _rule_table(outcomes: Sequence[FileOutcome], t: Totals) -> list[str]:
    rules = rules_used(outcomes)
    if not rules:
        return ["", "No diagnostics: nothing needs human attention."]
    out = ["", "### Findings by rule", "", "| Rule | Severity | Count | What |", "| --- | --- | ---: | --- |"]
    order = sorted(rules, key=lambda r: (-r.severity, -t.rules[r.id], r.id))  # as in the terminal
    out += [f"| {r.id} `{r.name}` | {r.severity} | {t.rules[r.id]} | {inline(r.title)} |" for r in order]
    return out


def _problem_files(ordered: Sequence[FileOutcome], info: RunInfo) -> list[str]:
    bad = [o for o in ordered if o.status in (Status.ERROR, Status.SKIPPED) or o.message]
    if not bad:
        return []
    out = ["", "### Files not converted cleanly", ""]
    return out + [
        f"- `{display_path(o.path, info.cwd)}` ({o.status.value}): {inline(o.message)}" for o in bad
    ]


def _file_table(ordered: Sequence[FileOutcome], info: RunInfo) -> list[str]:
    out = [
        "",
        "<details><summary>Per file</summary>",
        "",
        "| File | Status | Lines | Converted | Unsupported | Launches | Error | Warning | Info |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for o in ordered:
        f = file_totals(o)
        out.append(
            f"| {inline(display_path(o.path, info.cwd))} | {o.status.value} | {o.lines} | {f.converted} "
            f"| {f.counts['unsupported']} | {f.counts['launches']} | {f.severities['error']} "
            f"| {f.severities['warning']} | {f.severities['info']} |"
        )
    return [*out, "", "</details>"]


def _rule_section(rule: Rule, ordered: Sequence[FileOutcome], info: RunInfo) -> list[str]:
    items = []
    for o in ordered:
        path = display_path(o.path, info.cwd)
        items += [
            f"- [{inline(path)}:{d.line}]({_link(path)}#L{d.line}) {inline(d.message)}"
            for d in ordered_diagnostics(o)
            if d.rule == rule.id
        ]
    out = ["", f"### {rule.id} `{rule.name}`: {inline(rule.title)}", ""]
    fix = f" · **Fix:** {inline(rule.hint)}" if rule.hint else ""
    out += [f"**{rule.severity}** · {len(items)} finding(s){fix}", ""]
    if len(items) > COLLAPSE_AFTER:
        return [*out, f"<details><summary>{len(items)} locations</summary>", "", *items, "", "</details>"]
    return out + items


def _link(path: str) -> str:
    """A relative link target: spaces and parentheses would end the Markdown link."""
    from urllib.parse import quote

    return quote(path, safe="/._-~")


def inline(text: str) -> str:
    """Text for one Markdown line: code spans kept, everything else escaped (no HTML, no tables)."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_SPECIAL.sub(r"\\\1", text[pos : m.start()]))
        out.append(m.group(0).replace("|", "\\|"))
        pos = m.end()
    out.append(_SPECIAL.sub(r"\\\1", text[pos:]))
    return " ".join("".join(out).split())
