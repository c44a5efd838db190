"""One verify pass over the outcomes of a run: map the compile errors back, attach findings, summarise.

Used by `convert --verify` and `hipify-py verify`; importable by scripts (see hipify_py/verify/__init__.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.run.outcome import FileOutcome, Status
from hipify_py.verify.attribute import RunFile, attribute, first_causes, with_units
from hipify_py.verify.stage import Source, VerifyResult, VerifySettings


@dataclass(frozen=True)
class FailedUnit:
    path: str  # the TU as the user knows it (input path, displayed)
    first_error: str  # "file:line: message" in original terms
    command: str


@dataclass(frozen=True)
class VerifySummary:
    """What every report format says about the compile (RunInfo.verify)."""

    compiler: str  # hipcc path
    compiler_version: str
    offload_arch: tuple[str, ...]
    units: int
    compiled: int
    cache_hits: int
    failed: tuple[FailedUnit, ...] = ()
    causes: tuple[tuple[str, int, str], ...] = ()  # (first error text, TUs, example TU displayed)


@dataclass
class VerifyReport:
    result: VerifyResult
    summary: VerifySummary
    findings_by_file: dict[str, list[Diagnostic]] = field(default_factory=dict)


def sources_of(
    outcomes: Sequence[FileOutcome], roots: dict[str, str], compiled_of: Callable[[FileOutcome], str]
) -> list[Source]:
    """The run's converted files as verify sees them (errors and skipped files are left out)."""
    out = []
    for o in outcomes:
        if o.status in (Status.ERROR, Status.SKIPPED) or o.output is None:
            continue
        original = os.path.abspath(o.path)
        out.append(Source(original, compiled_of(o), roots.get(original, os.path.dirname(original)), o.kind))
    return out


def verify_outcomes(
    outcomes: Sequence[FileOutcome],
    sources: Sequence[Source],
    result: VerifyResult,
    settings: VerifySettings,
    display: Callable[[str], str],
) -> VerifyReport:
    """Map the errors of the run's compiles back and add the HIP5xx findings to the outcomes' diagnostics."""
    by_original = {os.path.abspath(o.path): o for o in outcomes}
    files = [RunFile(s.original, s.compiled, by_original[s.original].moves) for s in sources]
    static = {path: o.diagnostics for path, o in by_original.items()}
    findings, first_found = attribute(result, files, static, display)
    added: dict[str, list[Diagnostic]] = {}
    for finding in findings:
        d = with_units(finding.diagnostic, len(set(finding.units)))
        added.setdefault(finding.original, []).append(d)
    for path, diagnostics in added.items():
        outcome = by_original.get(path)
        if outcome is not None:
            outcome.diagnostics = sorted(
                [*outcome.diagnostics, *diagnostics], key=lambda d: (d.start, d.rule)
            )
    first = {
        key: f"{display(f.original)}:{f.diagnostic.line}: {f.diagnostic.message}"
        for key, f in first_found.items()
    }
    failed = tuple(
        FailedUnit(
            display(u.source.original), first.get(id(u), f"hipcc exited with {u.returncode}"), u.command
        )
        for u in result.failed
    )
    causes = tuple((text, n, display(example)) for text, n, example in first_causes(result))
    summary = VerifySummary(
        settings.compiler.path,
        settings.compiler.version,
        settings.offload_arch,
        len(result.units),
        result.compiled,
        result.cache_hits,
        failed,
        causes,
    )
    return VerifyReport(result, summary, added)


def summary_lines(summary: VerifySummary, max_causes: int = 10) -> list[str]:
    """Terminal lines: the P/N figure, then failing TUs grouped by their first error."""
    lines = [
        f"  translation units compiled: {summary.compiled}/{summary.units}"
        + (f" ({summary.cache_hits} from cache)" if summary.cache_hits else "")
    ]
    for text, n, example in summary.causes[:max_causes]:
        where = f"e.g. {example}" if n > 1 else example
        lines.append(f"    {n:>4} TU{'s' if n > 1 else ' '} {text}  ({where})")
    rest = summary.causes[max_causes:]
    if rest:
        lines.append(
            f"    ... {len(rest)} more first-error cause(s), {sum(n for _, n, _ in rest)} TU(s): see --report"
        )
    return lines
