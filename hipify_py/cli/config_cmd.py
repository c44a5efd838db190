"""`hipify-py config [PATHS]`: print the effective configuration and where each value comes from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from hipify_py.run.config import Value, find_config_files, resolve

# `convert` options that choose what to do, not how to translate: meaningless for `config`.
_ACTION_PARAMS = frozenset({"paths", "output", "in_place", "diff", "check", "quiet"})


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def _toml(value: Any) -> str:
    """A TOML-looking rendering, so the output can be pasted into a config file."""
    if value is None:
        return "(unset)"
    return json.dumps(_plain(value))


def render_text(values: dict[str, Value], files: list[Path]) -> str:
    lines = [f"# configuration file(s): {', '.join(map(str, files)) if files else 'none found'}"]
    width = max(len(f"{name} = {_toml(v.value)}") for name, v in values.items())
    for name, v in values.items():
        lines.append(f"{f'{name} = {_toml(v.value)}':<{width}}  # {v.source}")
    return "\n".join(lines)


def render_json(values: dict[str, Value], files: list[Path]) -> str:
    data = {
        "files": [str(f) for f in files],
        "settings": {name: {"value": _plain(v.value), "source": v.source} for name, v in values.items()},
    }
    return json.dumps(data, indent=2)


def _target_value(values: dict[str, Value]) -> Value:
    """The target HIP version as `convert` would resolve it, with the reason as its source."""
    from hipify_py.data.mappings import load_mappings
    from hipify_py.data.target import resolve_target

    setting = values["hip-version"]
    extra = tuple(values["extra-mappings"].value or ())
    from hipify_py.util.locations import cache_root

    latest = lambda: load_mappings(extra).latest_hip_version  # noqa: E731
    target = resolve_target(setting.value, setting.source, latest, cache_dir=cache_root())
    return Value(target.version, f"target: {target.reason}")


def make_config_command(convert: click.Command) -> click.Command:
    """The `config` command takes every translation option of `convert`, so it shows their effect."""

    def callback(**params: Any) -> None:
        as_json = params.pop("as_json")
        explicit = params.get("config")
        values = resolve(click.get_current_context(), params)
        values["hip-version"] = _target_value(values)
        files = [explicit] if explicit else find_config_files(params.get("paths") or (Path.cwd(),))
        click.echo(render_json(values, files) if as_json else render_text(values, files))

    shared = [p for p in convert.params if p.name not in _ACTION_PARAMS]
    return click.Command(
        "config",
        callback=callback,
        params=[
            click.Argument(["paths"], nargs=-1, type=click.Path(path_type=Path)),
            *shared,
            click.Option(["--json", "as_json"], is_flag=True, help="Print JSON."),
        ],
        help="Print the effective configuration for PATHS and where each value comes from.",
        short_help="Show the effective configuration.",
    )
