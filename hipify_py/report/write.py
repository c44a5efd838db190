"""`--report FILE`: pick the format from the file name (or --report-format) and write it atomically."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hipify_py.util.fileio import atomic_write

if TYPE_CHECKING:  # why: --report's options are checked before a run, whose summary is made after it
    from hipify_py.report.summary import RunInfo
    from hipify_py.run.outcome import FileOutcome

FORMATS = ("json", "markdown", "sarif")
_SUFFIXES = ((".sarif.json", "sarif"), (".sarif", "sarif"), (".json", "json"), (".md", "markdown"))
_SUFFIXES += ((".markdown", "markdown"),)


class ReportError(ValueError):
    """A report whose format cannot be told from its name."""


def report_format(path: Path, explicit: str | None = None) -> str:
    if explicit:
        return explicit
    name = path.name.lower()
    for suffix, fmt in _SUFFIXES:
        if name.endswith(suffix):
            return fmt
    raise ReportError(f"{path}: cannot tell the report format from the name (.json, .md, .sarif)")


def renderer(fmt: str) -> Callable[[Sequence[FileOutcome], RunInfo], str]:
    # why lazy: a run without --report imports none of the formats
    if fmt == "json":
        from hipify_py.report.json_report import render_json

        return render_json
    if fmt == "sarif":
        from hipify_py.report.sarif import render_sarif

        return render_sarif
    from hipify_py.report.markdown import render_markdown

    return render_markdown


def write_report(path: Path, fmt: str, outcomes: Sequence[FileOutcome], info: RunInfo) -> None:
    new = not path.exists()
    atomic_write(path, renderer(fmt)(outcomes, info).encode("utf-8"))
    if new:  # why: the temp file behind atomic_write is 0600; a new report gets the usual umask mode
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(path, 0o666 & ~umask)


def run_info(
    mode: str, options: object, extra_mappings: Sequence[Path] = (), target_reason: str = ""
) -> RunInfo:
    """RunInfo for the command line: options as a dict and the digest of the mapping tables used."""
    from hipify_py.data.mappings import load_mappings
    from hipify_py.engine.options import Options
    from hipify_py.report.summary import RunInfo

    fields = options._asdict() if isinstance(options, Options) else {}
    fields.pop("filename", None)  # per file, not a run option
    mappings = load_mappings(tuple(extra_mappings))
    target = str(fields.get("hip_version") or "")
    return RunInfo(mode, fields, mappings.digest, mappings.latest_hip_version, target, target_reason)
