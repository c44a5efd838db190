"""`convert --verify` and `hipify-py verify PATH...`: compile what was translated, report what is left.

The glue between the CLI and hipify_py.verify: options, where the translated tree is compiled (the
written files, the output tree, or a temporary mirror for --diff/--check), progress, printing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from hipify_py.cli.report_opts import report_formats, report_options, write_reports
from hipify_py.run.discover import Found
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings

EXIT_ERROR, EXIT_INTERRUPTED = 2, 130


def verify_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The compile options shared by `convert --verify` and `verify`."""
    options = [
        click.option(
            "--hipcc", metavar="PATH", help="HIP compiler (default: $ROCM_PATH/bin/hipcc, hipcc on PATH)."
        ),
        click.option(
            "-p",
            "--compile-commands",
            type=click.Path(exists=True, path_type=Path),
            metavar="DIR",
            help="compile_commands.json (or its folder): the TUs to compile and their flags.",
        ),
        click.option(
            "-I",
            "--include-dir",
            "include_dirs",
            multiple=True,
            type=click.Path(path_type=Path),
            metavar="DIR",
            help="Include path for compiling (repeatable; default: each file's folder and the tree root).",
        ),
        click.option(
            "-D", "--define", "defines", multiple=True, metavar="NAME[=VALUE]", help="Macro for compiling."
        ),
        click.option(
            "--std", metavar="c++NN", help="Language standard for compiling (default: c++17, as nvcc)."
        ),
        click.option(
            "--offload-arch",
            multiple=True,
            metavar="GFX",
            help="AMD GPU target(s) to compile for (repeat it, or gfx90a,gfx942); also the targets of "
            "translated build files (default: the machine's GPUs, else gfx90a).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


class Prepared:
    """A verify pass being set up for one run; close() removes the temporary mirror.

    why not a dataclass: every command line imports this module (cli/main.py), and no other module a
    translation run needs imports dataclasses (engine/options.py)."""

    def __init__(
        self,
        settings: Any,  # VerifySettings
        mode: Mode,
        roots: dict[str, str],  # absolute input file -> absolute root
        relocation: Any,
        tree: str,
        plans: list[Any],  # stage.Planned: the TUs and the files each waits for
        mirror: Any = None,  # stage.Mirror for --diff/--check/stdout
    ) -> None:
        self.settings, self.mode, self.roots, self.relocation = settings, mode, roots, relocation
        self.tree, self.plans, self.mirror = tree, plans, mirror

    def compiled_of(self, outcome: FileOutcome) -> str:
        target = os.path.abspath(outcome.output or outcome.path)
        return self.mirror.forward(target) if self.mirror is not None else target

    def close(self) -> None:
        if self.mirror is not None:
            self.mirror.close()
            self.mirror = None

    def compiles(self, progress: Any) -> Any:
        """The run's side work (stage.Compiles), advancing the "TUs" counter of `progress`."""
        from hipify_py.verify.stage import Compiles

        def on_unit(_unit: Any) -> None:
            progress.advance(unit="TUs")

        return Compiles(self.plans, self.settings, self.relocation, self.tree, self.compiled_of, on_unit)


def _absolute(files: Sequence[Found]) -> list[tuple[str, Found]]:
    return [(os.path.abspath(f.path), f) for f in files]


def prepare(
    files: Sequence[Found],
    mode: Mode,
    output: Path | None,
    params: dict[str, Any],
    jobs: int,
    cache_dir: Path | None,
) -> Prepared:
    """Find the compiler and the flags before anything is translated; exit 2 with a clear message when
    hipcc or the compile database is missing."""
    from hipify_py.verify.compiler import DEFAULT_ARCH, CompilerMissing, find_hipcc
    from hipify_py.verify.flags import CompileDatabaseError, load_database
    from hipify_py.verify.stage import Mirror, Relocation, VerifySettings, plan_units

    try:
        compiler = find_hipcc(params.get("hipcc"))
    except CompilerMissing as err:
        click.echo(f"hipify-py: --verify needs the HIP compiler: {err}", err=True)
        sys.exit(EXIT_ERROR)
    database = None
    if params.get("compile_commands") is not None:
        try:
            database = load_database(Path(params["compile_commands"]))
        except CompileDatabaseError as err:
            click.echo(f"hipify-py: compile database: {err}", err=True)
            sys.exit(EXIT_ERROR)
    settings = VerifySettings(
        compiler=compiler,
        offload_arch=_targets(params.get("offload_arch")) or DEFAULT_ARCH,
        include_dirs=tuple(os.path.abspath(d) for d in params.get("include_dirs") or ()),
        defines=tuple(params.get("defines") or ()),
        std=params.get("std"),
        database=database,
        jobs=jobs,
        cache_dir=cache_dir,
        fallback_to_input=mode is Mode.OUTPUT_TREE,
    )
    roots = {a: os.path.abspath(f.root) for a, f in _absolute(files)}
    # why now: the TUs' includes are read before the run rewrites anything (and before a mirror exists)
    plans = plan_units([(a, roots[a], f.kind) for a, f in _absolute(files)], settings)
    distinct = sorted(set(roots.values()))
    common = os.path.commonpath(distinct) if distinct else os.getcwd()
    if mode is Mode.OUTPUT_TREE and output is not None:
        out = os.path.abspath(output)
        return Prepared(settings, mode, roots, Relocation(tuple((r, out) for r in distinct)), out, plans)
    if mode is Mode.IN_PLACE:
        return Prepared(settings, mode, roots, Relocation(), common, plans)
    mirror = Mirror(common, roots)
    return Prepared(settings, mode, roots, mirror.relocation(), mirror.tree, plans, mirror)


def run_settings(settings: RunSettings, prepared: Prepared | None) -> RunSettings:
    if prepared is None:
        return settings
    mirror = (prepared.mirror.root, prepared.mirror.tree) if prepared.mirror is not None else None
    return settings._replace(keep_moves=True, mirror=mirror)


def run_verify(prepared: Prepared, outcomes: list[FileOutcome], result: Any, quiet: bool, show: Any) -> Any:
    """Map the compile errors of `result` (stage.VerifyResult) back, print them, return the VerifyReport."""
    from hipify_py.report.summary import display_path
    from hipify_py.report.text import format_diagnostics
    from hipify_py.verify.session import sources_of, verify_outcomes

    sources = sources_of(outcomes, prepared.roots, prepared.compiled_of)
    report = verify_outcomes(outcomes, sources, result, prepared.settings, lambda p: display_path(p))
    if show is not None and not quiet:
        by_path = {os.path.abspath(o.path): o for o in outcomes}
        for path, diagnostics in report.findings_by_file.items():
            outcome = by_path.get(path)
            if outcome is not None:
                for line in format_diagnostics(outcome.replaced(diagnostics=diagnostics), show):
                    click.echo(line, err=True)
    return report


@click.command("verify")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@verify_options
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB (repeatable).")
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Compile only files matching GLOB (repeatable)."
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=0), default=0, help="Parallel compiles (default: CPU count)."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line and errors.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the compile cache.")
@report_options("a report")
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Configuration file (default: found from the paths upwards).",
)
def verify_command(**params: Any) -> None:
    """Compile a HIP tree (already translated) with hipcc and report each error on its line.

    Exit 0 when every translation unit compiles, 1 when one does not, 2 when hipcc is missing.
    """
    from hipify_py.run.config import apply_config

    apply_config(_verify)(**params)


def _verify(
    paths: tuple[Path, ...],
    exclude: tuple[str, ...],
    include: tuple[str, ...],
    jobs: int,
    quiet: bool,
    no_cache: bool,
    reports: tuple[Path, ...],
    report_format: str | None,
    **params: Any,
) -> None:
    from hipify_py.engine.diagnostics import Severity
    from hipify_py.report.summary import RunInfo
    from hipify_py.run.discover import SOURCE_EXTENSIONS, discover
    from hipify_py.run.outcome import Status
    from hipify_py.util.locations import cache_root
    from hipify_py.util.progress import progress_for
    from hipify_py.verify.session import summary_lines
    from hipify_py.verify.stage import compile_now

    formats = report_formats(reports, report_format)
    files, problems = discover(
        paths, (*SOURCE_EXTENSIONS, ".hip"), exclude=exclude, include=include, build_files=False
    )
    for problem in problems:
        click.echo(f"hipify-py: {problem.path}: {problem.message}", err=True)
    prepared = prepare(files, Mode.IN_PLACE, None, params, jobs, None if no_cache else cache_root())
    outcomes = [FileOutcome(f.path, Status.UNCHANGED, output=f.path, kind=f.kind) for f in files]
    progress = progress_for(len(prepared.plans), quiet, unit="TUs", threshold=1)
    try:
        result = compile_now(prepared.compiles(progress), outcomes, jobs or os.cpu_count() or 1)
    except KeyboardInterrupt:
        progress.close()
        click.echo("hipify-py: interrupted while compiling; nothing was left behind", err=True)
        sys.exit(EXIT_INTERRUPTED)
    progress.close()
    report = run_verify(prepared, outcomes, result, quiet, Severity.INFO)
    click.echo("\n".join(["hipify-py: verify", *summary_lines(report.summary)]), err=True)
    info = RunInfo("verify", {}, verify=report.summary)
    write_reports(reports, formats, outcomes, info, quiet)
    sys.exit(EXIT_ERROR if problems else (1 if report.summary.compiled < report.summary.units else 0))


def _targets(values: object) -> tuple[str, ...]:
    """--offload-arch gfx90a,gfx942 (or repeated) -> each target once."""
    return tuple(
        dict.fromkeys(v.strip() for value in values or () for v in str(value).split(",") if v.strip())
    )  # type: ignore[attr-defined]
