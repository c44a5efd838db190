"""Aggregate per-file outcomes into run totals, plus helpers shared by every report format."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from hipify_py.engine.diagnostics import Diagnostic, Rule, Severity
from hipify_py.engine.rule_texts import RULES
from hipify_py.run.outcome import FileOutcome, Status


class Totals:
    """Sums over a run's outcomes: files by status, lines, converted names, findings.

    why a plain class (and RunInfo a NamedTuple), not dataclasses: see engine/options.py"""

    def __init__(self, files: int = 0) -> None:
        self.files = files
        self.changed = self.unchanged = self.skipped = self.errors = self.lines = 0
        self.identifiers: Counter[str] = Counter()  # per API family
        self.counts: Counter[str] = Counter()  # launches, includes, symbols, ...
        self.rules: Counter[str] = Counter()  # diagnostics per rule id
        self.severities: Counter[str] = Counter()

    @property
    def converted(self) -> int:
        """CUDA references rewritten (identifiers of every family)."""
        return sum(self.identifiers.values())

    @property
    def conversion_percent(self) -> float:
        """Like hipify-perl's CONVERSION %: converted / (converted + unsupported references)."""
        seen = self.converted + self.counts["unsupported"]
        return 100.0 * self.converted / seen if seen else 100.0


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


def homepage() -> str:
    """The project URL from the installed package metadata ("" when none is declared)."""
    from importlib import metadata

    try:
        meta = metadata.metadata("hipify-py")
    except metadata.PackageNotFoundError:
        return ""
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "source", "repository"):
            return url.strip()
    return (meta.get("Home-page") or "").strip()


def file_totals(outcome: FileOutcome) -> Totals:
    return totals([outcome])


class RunInfo(NamedTuple):
    """What a report says about the run besides the outcomes (all optional for library callers)."""

    mode: str = ""
    options: Mapping[str, object] = MappingProxyType({})
    mapping_digest: str = ""
    latest_hip_version: str = ""
    target_hip_version: str = ""  # the run's target (target.Target.version) ...
    target_reason: str = ""  # ... and why: "--hip-version", "installed HIP 5.2.21153 (hipcc at ...)"
    cwd: Path | None = None  # paths are shown relative to it where possible (default: os.getcwd())
    verify: object | None = None  # verify.session.VerifySummary of a --verify run


def display_path(path: Path | str, cwd: Path | None = None) -> str:
    """POSIX path relative to `cwd` when the file is below it, else absolute."""
    absolute = os.path.abspath(path)
    base = os.path.abspath(cwd if cwd is not None else os.getcwd())
    try:
        inside = os.path.commonpath([absolute, base]) == base
    except ValueError:  # other drive (Windows)
        inside = False
    shown = os.path.relpath(absolute, base) if inside else absolute
    return Path(shown).as_posix()


def end_position(d: Diagnostic) -> tuple[int, int]:
    """(line, col) just after the diagnostic's range; ranges spanning lines end at their first line's end.

    why: outcomes keep the offending line, not the file (in --in-place mode the original is gone).
    """
    line_bytes = len(d.source_line.encode("utf-8", "replace"))
    if not line_bytes:
        return d.line, d.col
    return d.line, max(d.col, min(d.col + max(d.end - d.start, 0), line_bytes + 1))


def code_point_col(d: Diagnostic, byte_col: int) -> int:
    """A 1-based byte column converted to Unicode code points (what SARIF and editors count)."""
    prefix = d.source_line.encode("utf-8", "replace")[: max(byte_col - 1, 0)]
    return len(prefix.decode("utf-8", "replace")) + 1


def ordered_outcomes(outcomes: Sequence[FileOutcome], cwd: Path | None = None) -> list[FileOutcome]:
    """Deterministic report order: by displayed path (input order depends on how paths were given)."""
    return sorted(outcomes, key=lambda o: display_path(o.path, cwd))


def ordered_diagnostics(outcome: FileOutcome) -> list[Diagnostic]:
    return sorted(outcome.diagnostics, key=lambda d: (d.line, d.col, d.rule, d.end, d.message))


def fingerprints(path: str, diagnostics: Sequence[Diagnostic]) -> Iterator[str]:
    """A stable id per diagnostic that survives unrelated edits (no line numbers in it).

    Rule + file + the trimmed source line + the occurrence number of that triple in the file.
    """
    import hashlib  # why here: only reports need it; ~3 ms of OpenSSL start-up for every run otherwise

    seen: Counter[tuple[str, str]] = Counter()
    for d in diagnostics:
        text = " ".join(d.source_line.split())
        seen[(d.rule, text)] += 1
        key = f"{d.rule}\0{path}\0{text}\0{seen[(d.rule, text)]}"
        yield hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:32]


def rules_used(outcomes: Sequence[FileOutcome]) -> list[Rule]:
    """Registry entries of every rule that fired, by id (unknown ids get a generic entry)."""
    ids = sorted({d.rule for o in outcomes for d in o.diagnostics})
    return [RULES.get(i) or Rule(i, i.lower(), _worst(outcomes, i), i, "", "") for i in ids]


def _worst(outcomes: Sequence[FileOutcome], rule_id: str) -> Severity:
    return max(d.severity for o in outcomes for d in o.diagnostics if d.rule == rule_id)
