"""`--report x.sarif`: SARIF 2.1.0, so GitHub code scanning (and IDE viewers) show findings inline.

Locations are relative to %SRCROOT% (the directory the tool ran in); columns count Unicode code points.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import hipify_py
from hipify_py.engine.diagnostics import Diagnostic, Rule, Severity
from hipify_py.report.json_report import TOOL_NAME
from hipify_py.report.summary import (
    RunInfo,
    code_point_col,
    display_path,
    end_position,
    fingerprints,
    homepage,
    ordered_diagnostics,
    ordered_outcomes,
    rules_used,
)
from hipify_py.run.outcome import FileOutcome

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "hipifyPy/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def build_sarif(outcomes: Sequence[FileOutcome], info: RunInfo | None = None) -> dict[str, Any]:
    info = info or RunInfo()
    rules = rules_used(outcomes)
    index = {r.id: i for i, r in enumerate(rules)}
    driver: dict[str, Any] = {
        "name": TOOL_NAME,
        "version": hipify_py.__version__,
        "semanticVersion": hipify_py.__version__,
        "rules": [_rule(r) for r in rules],
    }
    if homepage():
        driver["informationUri"] = homepage()
    results = []
    for o in ordered_outcomes(outcomes, info.cwd):
        path = display_path(o.path, info.cwd)
        diagnostics = ordered_diagnostics(o)
        for d, fp in zip(diagnostics, fingerprints(path, diagnostics), strict=True):
            results.append(_result(d, path, index[d.rule], fp))
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The directory hipify-py ran in."}}},
        "results": results,
        "properties": {
            "mode": info.mode,
            "mappingDigest": info.mapping_digest,
            "targetHipVersion": info.target_hip_version,
            "targetReason": info.target_reason,
            **_verify(info),
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _verify(info: RunInfo) -> dict[str, Any]:
    v = info.verify
    if v is None:
        return {}
    units, compiled = v.units, v.compiled  # type: ignore[attr-defined]
    return {"verify": {"compiler": v.compiler_version, "units": units, "compiled": compiled}}  # type: ignore[attr-defined]


def render_sarif(outcomes: Sequence[FileOutcome], info: RunInfo | None = None) -> str:
    return json.dumps(build_sarif(outcomes, info), indent=2, ensure_ascii=False) + "\n"


def _rule(r: Rule) -> dict[str, Any]:
    return {
        "id": r.id,
        "name": _pascal(r.name),
        "shortDescription": {"text": r.title},
        "fullDescription": {"text": r.docs or r.title},
        "help": {"text": r.hint, "markdown": f"**{r.title}**\n\n{r.docs}\n\n**Fix:** {r.hint}"},
        "defaultConfiguration": {"level": LEVELS[r.severity]},
        "properties": {"tags": ["portability", "hip"], "hipifyName": r.name},
    }


def _pascal(name: str) -> str:
    """SARIF rule names are identifiers by convention ("WarpSizeLiteral"), not kebab-case."""
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


def _result(d: Diagnostic, path: str, rule_index: int, fingerprint: str) -> dict[str, Any]:
    end_line, end_col = end_position(d)
    region: dict[str, Any] = {
        "startLine": d.line,
        "startColumn": code_point_col(d, d.col),
        "endLine": end_line,
        "endColumn": code_point_col(d, end_col),
    }
    if d.source_line:
        region["snippet"] = {"text": d.source_line}
    message = d.message + (f"\nHint: {d.hint}" if d.hint else "")
    artifact = {"uri": _uri(path)}
    if not path.startswith("/"):  # why: a base id on an absolute file:// URI is invalid SARIF
        artifact["uriBaseId"] = "%SRCROOT%"
    return {
        "ruleId": d.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[d.severity],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }


def _uri(path: str) -> str:
    """A relative URI reference (percent-encoded); absolute paths become file:// URIs."""
    from urllib.parse import quote

    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(path)
