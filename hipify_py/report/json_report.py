"""`--report x.json`: the machine-readable report. Schema: docs/report-schema.json (documented in
docs/reports.md). Deterministic: no timestamps, files by path, diagnostics by position, sorted keys."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import hipify_py
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.report.summary import (
    RunInfo,
    Totals,
    display_path,
    end_position,
    file_totals,
    fingerprints,
    homepage,
    ordered_diagnostics,
    ordered_outcomes,
    rules_used,
    totals,
)
from hipify_py.run.outcome import FileOutcome

# bump the minor for added fields, the major for changed/removed ones
# 1.1: `verify` (convert --verify, hipify-py verify), the diagnostics' `predicted_by`, run.target
SCHEMA_VERSION = "1.1"
TOOL_NAME = "hipify-py"


def build_report(outcomes: Sequence[FileOutcome], info: RunInfo | None = None) -> dict[str, Any]:
    info = info or RunInfo()
    report = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": hipify_py.__version__, "information_uri": homepage()},
        "mappings": {"digest": info.mapping_digest, "latest_hip_version": info.latest_hip_version},
        "run": {
            "mode": info.mode,
            "options": _jsonable(dict(info.options)),
            "target": {"hip_version": info.target_hip_version or None, "reason": info.target_reason},
        },
        "totals": _totals(totals(outcomes)),
        "files": [_file(o, info) for o in ordered_outcomes(outcomes, info.cwd)],
        "rules": [
            {"id": r.id, "name": r.name, "severity": str(r.severity), "title": r.title, "hint": r.hint}
            for r in rules_used(outcomes)
        ],
    }
    if info.verify is not None:
        report["verify"] = _verify(info.verify)
    return report


def _verify(v: Any) -> dict[str, Any]:
    """The compile of the translation (verify.session.VerifySummary)."""
    return {
        "compiler": v.compiler,
        "compiler_version": v.compiler_version,
        "offload_arch": list(v.offload_arch),
        "units": v.units,
        "compiled": v.compiled,
        "failed": v.units - v.compiled,
        "cache_hits": v.cache_hits,
        "failures": [{"path": f.path, "first_error": f.first_error, "command": f.command} for f in v.failed],
        "causes": [{"message": text, "units": n, "example": example} for text, n, example in v.causes],
    }


def render_json(outcomes: Sequence[FileOutcome], info: RunInfo | None = None) -> str:
    return json.dumps(build_report(outcomes, info), indent=2, ensure_ascii=False) + "\n"


def _totals(t: Totals) -> dict[str, Any]:
    return {
        "files": t.files,
        "changed": t.changed,
        "unchanged": t.unchanged,
        "skipped": t.skipped,
        "errors": t.errors,
        "lines": t.lines,
        "converted": t.converted,
        "unsupported": t.counts["unsupported"],
        "launches": t.counts["launches"],
        "conversion_percent": round(t.conversion_percent, 1),
        "identifiers": dict(sorted(t.identifiers.items())),
        "counts": dict(sorted(t.counts.items())),
        "diagnostics": {
            "total": sum(t.rules.values()),
            "by_severity": {s: t.severities[s] for s in ("error", "warning", "info")},
            "by_rule": dict(sorted(t.rules.items())),
        },
    }


def _file(o: FileOutcome, info: RunInfo) -> dict[str, Any]:
    path = display_path(o.path, info.cwd)
    t = file_totals(o)
    diagnostics = ordered_diagnostics(o)
    return {
        "path": path,
        "output": display_path(o.output, info.cwd) if o.output is not None else None,
        "kind": o.kind,
        "status": o.status.value,
        "message": o.message,
        "lines": o.lines,
        "converted": t.converted,
        "identifiers": dict(sorted(t.identifiers.items())),
        "counts": dict(sorted(t.counts.items())),
        "diagnostics": [
            _diagnostic(d, fp) for d, fp in zip(diagnostics, fingerprints(path, diagnostics), strict=True)
        ],
    }


def _diagnostic(d: Diagnostic, fingerprint: str) -> dict[str, Any]:
    end_line, end_col = end_position(d)
    return {
        "rule": d.rule,
        "severity": str(d.severity),
        "line": d.line,
        "col": d.col,
        "end_line": end_line,
        "end_col": end_col,
        "offset": d.start,
        "length": max(d.end - d.start, 0),
        "message": d.message,
        "hint": d.hint,
        "source_line": d.source_line,
        "fingerprint": fingerprint,
        **({"predicted_by": list(d.predicted_by)} if d.predicted_by else {}),
    }


def _jsonable(value: Any) -> Any:
    """Options as plain JSON: sets become sorted lists, paths strings."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in sorted(value.items())}
    if isinstance(value, set | frozenset | tuple | list):
        items = [_jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
