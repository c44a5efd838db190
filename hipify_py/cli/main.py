"""The `hipify-py` command line (click). Thin: parse options, call the runner, render, exit code."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

import click

from hipify_py import __version__
from hipify_py.cli.report_opts import report_formats, report_options, write_reports
from hipify_py.cli.verify_cmd import prepare, run_settings, run_verify, verify_options
from hipify_py.data.target import Target, resolve_target
from hipify_py.engine.diagnostics import Severity
from hipify_py.engine.options import Options
from hipify_py.engine.rule_texts import RULES
from hipify_py.run.config import apply_config
from hipify_py.run.discover import SOURCE_EXTENSIONS, Found, discover
from hipify_py.run.outcome import FileOutcome, Mode, RunSettings, Status
from hipify_py.run.output_names import make_plan
from hipify_py.util.locations import cache_root
from hipify_py.util.progress import progress_for
from hipify_py.util.startup import short_options_first
from hipify_py.workers.early import Early
from hipify_py.workers.runner import run

EXIT_OK, EXIT_CHANGES, EXIT_ERROR = 0, 1, 2


class _Command(click.Command):
    """A click command whose parser takes `-j2`, `-q` straight as short options (util/startup.py)."""

    def make_parser(self, ctx: click.Context) -> Any:
        return short_options_first(super().make_parser(ctx), ctx.token_normalize_func is not None)


class _LazyGroup(click.Group):
    """Sub-commands in other modules are imported only when used: `mappings` alone costs ~30 ms of
    YAML import, too much for a warm (cached) `convert` run whose whole budget is a few 100 ms."""

    # command name -> (module, attribute); the attribute is a command or a factory(convert) -> command
    lazy: dict[str, tuple[str, str]] = {  # noqa: RUF012 - class constant
        "mappings": ("hipify_py.cli.mappings_cmd", "mappings_command"),
        "config": ("hipify_py.cli.config_cmd", "make_config_command"),
        "explain": ("hipify_py.cli.explain_cmd", "explain_command"),
        "verify": ("hipify_py.cli.verify_cmd", "verify_command"),
    }

    command_class = _Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module, attribute = self.lazy[cmd_name]
            try:
                found = getattr(importlib.import_module(module), attribute)
            except ImportError:
                return None
            command = found if isinstance(found, click.Command) else found(self.commands["convert"])
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hipify-py")
def main() -> None:
    """Port CUDA source code to HIP (ROCm)."""


def _mode(in_place: bool, output: Path | None, diff: bool, check: bool, paths: tuple[Path, ...]) -> Mode:
    chosen = [name for name, on in (("--in-place", in_place), ("--diff", diff), ("--check", check)) if on]
    if diff and check:  # --check --diff: print the diff and exit 1 on changes (the pre-commit check hook)
        chosen.remove("--check")
    if output is not None:
        chosen.append("--output")
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)} cannot be combined")
    if diff:
        return Mode.DIFF
    if check:
        return Mode.CHECK
    if in_place:
        return Mode.IN_PLACE
    if output is not None:
        return Mode.OUTPUT_TREE
    if len(paths) == 1 and not paths[0].is_dir():
        return Mode.STDOUT
    raise click.UsageError(
        "several files or a directory: give -o/--output DIR or --in-place (or --diff/--check)"
    )


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write converted files under DIR, mirroring the input tree.",
)
@click.option("-i", "--in-place", is_flag=True, help="Rewrite files in place (atomically).")
@click.option("--diff", is_flag=True, help="Dry run: print a unified diff, write nothing.")
@click.option(
    "--check", is_flag=True, help="Exit 1 if anything would change (CI); write nothing. With --diff: show it."
)
@click.option(
    "--exit-nonzero-on-change",
    is_flag=True,
    help="Exit 1 when a file was changed (--in-place, -o) or would change (--diff), as pre-commit expects.",
)
@click.option(
    "--hip-sources-only",
    is_flag=True,
    help="Convert only the files matching the configured `hip-sources` globs (all when unset).",
)
@click.option(
    "--keep-launch-syntax", is_flag=True, help="Leave kernel<<<...>>>() launches as is (HIP accepts them)."
)
@click.option(
    "--roc", is_flag=True, help="Translate to roc* libraries (rocBLAS, rocRAND, ...) where possible."
)
@click.option(
    "--hip-version",
    metavar="X.Y",
    help="Target HIP version (default: the installed HIP (hipcc), else the latest in the tables).",
)
@click.option(
    "--version-policy",
    type=click.Choice(["rewrite", "keep"]),
    default="rewrite",
    show_default=True,
    help="A name whose HIP counterpart is newer than --hip-version: rewrite and warn, or keep and warn.",
)
@click.option(
    "--legacy-include-paths", is_flag=True, help="Flat library headers (hipblas.h) as in older ROCm."
)
@click.option(
    "--ignore", "ignore_rules", multiple=True, metavar="RULE", help="Silence a rule id (repeatable)."
)
@click.option(
    "--severity",
    type=click.Choice(["info", "warning", "error"]),
    default=None,
    help="With --check: also exit 1 when a diagnostic of at least this severity is found.",
)
@click.option(
    "--show",
    type=click.Choice(["info", "warning", "error", "none"]),
    default="warning",
    show_default=True,
    help="Print diagnostics of at least this severity.",
)
@click.option(
    "-e",
    "--extension",
    "extensions",
    multiple=True,
    metavar=".EXT",
    help="Extra file extension to convert (repeatable).",
)
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB (repeatable).")
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply --exclude to files named on the command line too (as the pre-commit hooks do).",
)
@click.option(
    "--build-files/--no-build-files",
    default=True,
    show_default=True,
    help="Also convert CMakeLists.txt and Makefiles.",
)
@click.option("--backup", metavar="SUFFIX", help="With --in-place: keep the original as FILE+SUFFIX.")
@click.option(
    "-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (default: CPU count)."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Convert only files matching GLOB (repeatable)."
)
@click.option(
    "--extra-mappings",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="YAML",
    help="User mapping table that adds/overrides entries (repeatable).",
)
@click.option(
    "--rename",
    type=click.Choice(["none", "hip", "cpp"]),
    default="none",
    show_default=True,
    help="Rename converted files: .cu -> .hip/.cpp, .cuh -> .hip.h/.h (quoted includes follow).",
)
@click.option("--no-rename", is_flag=True, help="Keep file names (the default; overrides the config).")
@click.option(
    "--gitignore/--no-gitignore",
    default=True,
    show_default=True,
    help="Skip files git ignores when walking directories (named files are always converted).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@report_options("a migration report")
@click.option(
    "--annotate", is_flag=True, help="Write `// HIPIFY-PY: HIPxxx ...` notes above lines that need attention."
)
@click.option("--stats", is_flag=True, help="Also print per-file statistics (lines, references, findings).")
@click.option(
    "--config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Configuration file (default: .hipify-py.toml or pyproject.toml found from the paths upwards).",
)
@click.option(
    "--verify",
    is_flag=True,
    help="Compile every translated translation unit with hipcc and report each error on its CUDA line.",
)
@verify_options
@apply_config
def convert(
    paths: tuple[Path, ...],
    output: Path | None,
    in_place: bool,
    diff: bool,
    check: bool,
    exit_nonzero_on_change: bool,
    hip_sources_only: bool,
    keep_launch_syntax: bool,
    roc: bool,
    hip_version: str | None,
    version_policy: str,
    legacy_include_paths: bool,
    ignore_rules: tuple[str, ...],
    severity: str | None,
    show: str,
    extensions: tuple[str, ...],
    exclude: tuple[str, ...],
    force_exclude: bool,
    build_files: bool,
    backup: str | None,
    jobs: int,
    quiet: bool,
    include: tuple[str, ...],
    extra_mappings: tuple[Path, ...],
    rename: str,
    gitignore: bool,
    no_cache: bool,
    reports: tuple[Path, ...],
    report_format: str | None,
    annotate: bool,
    stats: bool,
    verify: bool,
    **verify_params: object,
) -> None:
    """Convert CUDA files or directories to HIP."""
    mode = _mode(in_place, output, diff, check, paths)
    unknown = [r for r in ignore_rules if r not in RULES]
    if unknown:
        raise click.UsageError(f"unknown rule id(s): {', '.join(unknown)} (see `hipify-py explain --list`)")
    target = run_target(hip_version, extra_mappings, None if no_cache else cache_root())
    missing_headers, unknown_libraries = _missing_headers(extra_mappings, target.version, cache=not no_cache)
    if unknown_libraries and not quiet:
        click.echo(f"hipify-py: {unknown_libraries}", err=True)
    options = Options(
        keep_launch_syntax=keep_launch_syntax,
        roc=roc,
        hip_version=target.version,
        version_policy=version_policy,
        legacy_include_paths=legacy_include_paths,
        ignore_rules=frozenset(ignore_rules),
        annotate=annotate,
        missing_headers=missing_headers,
    )
    exts = tuple(SOURCE_EXTENSIONS) + tuple(e if e.startswith(".") else f".{e}" for e in extensions)
    files, problems = discover(
        paths,
        exts,
        exclude=exclude,
        include=include,
        build_files=build_files,
        gitignore=gitignore,
        force_exclude=force_exclude,
    )
    if hip_sources_only:
        files = _hip_sources(files, paths)
    for problem in problems:
        click.echo(f"hipify-py: {problem.path}: {problem.message}", err=True)
    settings = RunSettings(
        mode=mode,
        options=options,
        output_dir=output,
        backup_suffix=backup,
        jobs=jobs,
        extra_mappings=tuple(extra_mappings),
        rename=make_plan([f.path for f in files if f.kind == "source"], rename) if rename != "none" else None,
        cache_dir=None if no_cache else cache_root(),
        build_options=_build_options(
            verify_params.get("offload_arch"), target.version, any(f.kind == "build" for f in files)
        ),
        defines=_user_defines(verify_params),
        roots=tuple(sorted({str(f.root) for f in files})),
    )
    formats = report_formats(reports, report_format)
    min_show = None if show == "none" else Severity.parse(show)
    # why before the run: a missing hipcc must not cost a whole conversion
    prepared = prepare(files, mode, output, verify_params, jobs, settings.cache_dir) if verify else None
    settings = run_settings(settings, prepared)
    tus = (("TUs", len(prepared.plans), 1),) if prepared is not None else ()
    progress = progress_for(len(files), quiet, more=tus)
    compiles = prepared.compiles(progress) if prepared is not None else None

    def on_done(outcome: FileOutcome) -> None:
        if outcome.diagnostics or outcome.message or outcome.diff or outcome.text or mode is Mode.CHECK:
            progress.clear()  # why: printed lines must not land inside the bar
        _print_outcome(outcome, mode, min_show, quiet)
        if stats and not quiet:
            from hipify_py.report.text import format_file_stats

            click.echo(format_file_stats(outcome), err=True)

    try:
        # compiles run beside the translation
        outcomes = run(
            files, settings, on_done, lambda _: progress.advance(), side=compiles, early=_early_translator()
        )
        progress.close()
        verified = None
        if prepared is not None and compiles is not None:  # why before close(): the mirror is read
            verified = run_verify(prepared, outcomes, compiles.result(), quiet, min_show)
    except KeyboardInterrupt:
        progress.close()
        click.echo("hipify-py: interrupted; every file is either unchanged or fully converted", err=True)
        sys.exit(130)
    except Exception as err:
        if not _worker_died(err):
            raise
        progress.close()
        click.echo(
            "hipify-py: a worker process died (killed?); the run stopped. Every file is either unchanged "
            "or fully converted: run again to finish.",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    finally:
        if prepared is not None:
            prepared.close()  # the temporary mirror of --diff/--check
    if not quiet:
        from hipify_py.report.text import format_summary

        verb = {Mode.CHECK: "would change", Mode.DIFF: "would change"}.get(mode, "converted")
        click.echo(format_summary(outcomes, verb), err=True)
    if verified is not None:
        from hipify_py.verify.session import summary_lines

        click.echo("\n".join(summary_lines(verified.summary)), err=True)
    if not quiet:
        click.echo(f"  target HIP {target.version or '(none)'}: {target.reason}", err=True)
        _echo_build_targets(settings.build_options)
    if reports:
        from hipify_py.report.write import run_info

        info = run_info(mode.value, options, extra_mappings, target.reason)
        if verified is not None:
            info = info._replace(verify=verified.summary)
        write_reports(reports, formats, outcomes, info, quiet)
    code = _exit_code(outcomes, problems, mode, severity, check or exit_nonzero_on_change)
    if code == EXIT_OK and mode is Mode.CHECK and verified is not None and verified.result.failed:
        code = EXIT_CHANGES  # --check --verify: a TU that does not compile fails the check
    sys.exit(code)


def _worker_died(err: Exception) -> bool:
    from hipify_py.workers.forked import WorkerDied

    if isinstance(err, WorkerDied):
        return True
    if "concurrent.futures" not in sys.modules:  # why: importing it costs ~10 ms; no executor ran
        return False
    from concurrent.futures import BrokenExecutor

    return isinstance(err, BrokenExecutor)


def _user_defines(verify_params: dict[str, object]) -> tuple[str, ...]:
    """Macros the user compiles with: -D / config `defines`, and the -D of --compile-commands."""
    defines = [str(d) for d in verify_params.get("defines") or ()]  # type: ignore[attr-defined]
    commands = verify_params.get("compile_commands")
    if commands:
        from hipify_py.project.option_macros import build_defines

        with contextlib.suppress(OSError):  # --verify reports an unreadable compile_commands.json itself
            defines += sorted(build_defines(Path(str(commands)).read_text(errors="replace")))
    return tuple(defines)


def _echo_build_targets(opts: object | None) -> None:
    """What converted build files target, and why: the user decides the AMD targets."""
    if opts is None:
        return
    archs = ",".join(opts.offload_arch)  # type: ignore[attr-defined]
    click.echo(f"  build files: AMD GPU targets {archs}: {opts.arch_reason}", err=True)  # type: ignore[attr-defined]
    if opts.min_cxx_std:  # type: ignore[attr-defined]
        click.echo(f"  build files: C++ standard at least C++{opts.min_cxx_std}: {opts.std_reason}", err=True)  # type: ignore[attr-defined]


def _build_options(offload_arch: object, hip_version: str | None, has_build_files: bool) -> object | None:
    """The AMD targets (--offload-arch, else the machine's GPUs, else the default) and the C++ standard
    of translated build files; decided only when the run converts some (the GPU query runs a tool)."""
    if not has_build_files:
        return None
    from hipify_py.run.build_targets import build_options

    return build_options(tuple(offload_arch or ()), hip_version)  # type: ignore[arg-type]


def run_target(hip_version: str | None, extra_mappings: tuple[Path, ...], cache_dir: Path | None) -> Target:
    """The run's target HIP version and why (option, config file, installed HIP, tables' latest)."""
    from hipify_py.run.config import SOURCE_CLI, SOURCES_META

    ctx = click.get_current_context()
    source = ctx.meta.get(SOURCES_META, {}).get("hip-version", SOURCE_CLI if hip_version else "default")

    def latest() -> str | None:
        from hipify_py.data import derived
        from hipify_py.data.mappings import load_mappings, shipped_latest_version

        if extra_mappings:
            return load_mappings(tuple(extra_mappings)).latest_hip_version or None
        return derived.load("latest-hip-version", shipped_latest_version, cache=cache_dir is not None) or None

    return resolve_target(hip_version, source, latest, cache_dir=cache_dir)


def _early_translator() -> Early | None:
    """The translator process the executable started for this run (cli/entry.py), if any."""
    found = click.get_current_context().find_root().obj
    return found if isinstance(found, Early) else None


def _missing_headers(
    extra_mappings: tuple[Path, ...], target: str | None, cache: bool = True
) -> tuple[frozenset[str], str]:
    """ROCm library headers the installed HIP lacks (HIP128), and a note when that cannot be known.

    Nothing is missing when no HIP is installed, or when the target is another HIP than the installed
    one: its libraries live elsewhere, and claiming their absence would be a promise the build breaks.
    """
    from hipify_py.data import derived
    from hipify_py.data.installed import (
        include_roots,
        library_headers,
        not_found,
        roots_version,
        shipped_library_headers,
    )
    from hipify_py.data.mappings import load_mappings

    roots = include_roots()
    if not roots:
        return frozenset(), ""
    have = roots_version(roots)
    if target is not None and have is not None and have != target:
        note = (
            f"target HIP {target} is not the installed HIP {have} ({roots[0]}): whether its ROCm "
            "libraries (hipCUB, rocThrust, hipBLAS, ...) are installed is not checked (HIP128)"
        )
        return frozenset(), note
    if extra_mappings:
        return not_found(library_headers(load_mappings(tuple(extra_mappings))), roots), ""
    # why derived: a warm run (every file a cache hit) must not load the mapping tables for this
    return not_found(derived.load("library-headers", shipped_library_headers, cache=cache), roots), ""


def _print_outcome(outcome: FileOutcome, mode: Mode, min_show: Severity | None, quiet: bool) -> None:
    # why imported here: the report modules load while the files are translated, not before
    from hipify_py.report.text import format_diagnostics, format_problem

    if mode is Mode.STDOUT and outcome.text is not None:
        sys.stdout.buffer.write(outcome.text)
        sys.stdout.flush()
    if mode is Mode.DIFF and outcome.diff:
        click.echo(outcome.diff, nl=False)
    if mode is Mode.CHECK and outcome.status is Status.CHANGED and not quiet:
        click.echo(f"would convert {outcome.path}", err=True)
    problem = format_problem(outcome)
    if problem and (not quiet or outcome.status is Status.ERROR):
        click.echo(f"hipify-py: {problem}", err=True)
    if min_show is not None and not quiet:
        for line in format_diagnostics(outcome, min_show):
            click.echo(line, err=True)


def _hip_sources(files: list[Found], paths: tuple[Path, ...]) -> list[Found]:
    """The files matching the configured `hip-sources` globs (fnmatch, relative to the config file's
    directory; `*` also matches `/`); all files when the key is not set."""
    import fnmatch
    import os

    from hipify_py.run.config import file_settings

    setting = file_settings(paths, click.get_current_context().params.get("config")).get("hip-sources")
    if setting is None or not setting.value:
        return files
    base = os.path.abspath(Path(setting.source).parent)

    def wanted(found: Found) -> bool:
        rel = Path(os.path.relpath(os.path.abspath(found.path), base)).as_posix()
        inside = rel != ".." and not rel.startswith("../")
        return inside and any(fnmatch.fnmatch(rel, glob) for glob in setting.value)

    return [found for found in files if wanted(found)]


def _exit_code(
    outcomes: list[FileOutcome], problems: list, mode: Mode, severity: str | None, fail_on_change: bool
) -> int:
    if problems or any(o.status is Status.ERROR for o in outcomes):
        return EXIT_ERROR
    if mode is Mode.CHECK or fail_on_change:
        if any(o.status is Status.CHANGED for o in outcomes):
            return EXIT_CHANGES
        if severity is not None:
            threshold = Severity.parse(severity)
            if any(o.worst is not None and o.worst >= threshold for o in outcomes):
                return EXIT_CHANGES
    return EXIT_OK


def _register_optional_commands() -> None:
    """Commands that live in their own modules (imported lazily, see _LazyGroup.lazy)."""


_register_optional_commands()
