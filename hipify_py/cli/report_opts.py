"""`--report FILE` and `--report-format`: the options, their check and the writing, shared by `convert`
and `verify` (the formats themselves are in hipify_py/report/)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hipify_py.report.write import FORMATS, ReportError, report_format, write_report

if TYPE_CHECKING:
    from hipify_py.report.summary import RunInfo
    from hipify_py.run.outcome import FileOutcome

EXIT_ERROR = 2


def report_options(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The two options; `what` names the report in --report's help ("a migration report")."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "--report-format",
            type=click.Choice(FORMATS),
            default=None,
            help="Format of every --report FILE regardless of its name.",
        )(command)
        return click.option(
            "--report",
            "reports",
            multiple=True,
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE",
            help=f"Write {what}: .json, .md or .sarif (.sarif.json) by name (repeatable).",
        )(command)

    return decorate


def report_formats(reports: Sequence[Path], explicit: str | None) -> list[str]:
    """The format of each report, checked before the run: a bad name must not cost a whole run."""
    try:
        return [report_format(path, explicit) for path in reports]
    except ReportError as err:
        raise click.UsageError(str(err)) from None


def write_reports(
    reports: Sequence[Path],
    formats: Sequence[str],
    outcomes: Sequence[FileOutcome],
    info: RunInfo,
    quiet: bool,
) -> None:
    """Write every report; exit 2 when one cannot be written."""
    for path, fmt in zip(reports, formats, strict=True):
        try:
            write_report(path, fmt, outcomes, info)
        except OSError as err:
            click.echo(f"hipify-py: cannot write report {path}: {err.strerror or err}", err=True)
            sys.exit(EXIT_ERROR)
        if not quiet:
            click.echo(f"hipify-py: {fmt} report written to {path}", err=True)
