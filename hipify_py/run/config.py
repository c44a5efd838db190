"""Configuration files: `[tool.hipify-py]` in pyproject.toml or a `.hipify-py.toml`, merged with the CLI.

Lookup walks up from the common parent of the given paths and stops at the first directory that has a
`.hipify-py.toml` or a pyproject.toml with a `[tool.hipify-py]` table. When a directory has both, both
are read and `.hipify-py.toml` wins key by key. `--config FILE` names the file explicitly (a
pyproject.toml is read from its `[tool.hipify-py]` table, any other file from its top level).

Precedence, lowest first: built-in default < pyproject.toml < .hipify-py.toml < command line. A
command-line value counts only when the user typed it (click's parameter source), so a default
never masks a configured value. List values given on the command line replace the configured list.

`extra-mappings` paths are relative to the config file. Their format is that of mappings/*.yaml
(see mappings.load_mappings): an optional `family:` (default "custom"), `entries:` rows
`{cuda: NAME, hip: NAME or null (= unsupported), roc: ..., hip_added: "6.2", ...}` that add to or
override the built-in rows, and optional `headers:` rows `{cuda: x.h, hip: y.h, legacy: ..., roc: ...}`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import click

PYPROJECT = "pyproject.toml"
DOTFILE = ".hipify-py.toml"
TOOL_TABLE = "hipify-py"
SOURCE_DEFAULT = "default"
SOURCE_CLI = "command line"
SOURCES_META = "hipify_py.run.config.sources"
SNAKE_CASE = "<the name in snake_case>"  # click ctx.meta key: {setting name: its source}


class ConfigError(Exception):
    """A bad configuration file: names the file and key. The CLI exits 2."""

    def __init__(self, file: Path, key: str | None, message: str) -> None:
        where = f"{file}: {key}" if key else str(file)
        super().__init__(f"{where}: {message}")
        self.file, self.key = file, key


# why NamedTuples, not frozen dataclasses: see engine/options.py
class Key(NamedTuple):
    """One setting of the configuration file and the `convert` parameter it feeds (`_setting()` makes one)."""

    name: str  # kebab-case name in the file
    # "bool", "str", "int", "list", "paths" (list of files relative to the config file), "dirs" (list of
    # directories, relative too), "path" (one file or directory, relative too), "choice"
    kind: str
    choices: tuple[str, ...] = ()
    param: str | None = None  # the `convert` CLI parameter it feeds (None: config only)
    default: Any = None  # used only for keys without a CLI parameter


def _setting(
    name: str, kind: str, choices: tuple[str, ...] = (), param: str | None = SNAKE_CASE, default: Any = None
) -> Key:
    """A Key whose parameter is, unless said otherwise, its name in snake_case."""
    return Key(name, kind, choices, name.replace("-", "_") if param == SNAKE_CASE else param, default)


KEYS: Mapping[str, Key] = {
    k.name: k
    for k in (
        _setting("include", "list"),
        _setting("exclude", "list"),
        _setting("force-exclude", "bool"),
        _setting("extensions", "list"),
        _setting("extra-mappings", "paths"),
        _setting("ignore", "list", param="ignore_rules"),
        _setting("roc", "bool"),
        _setting("hip-version", "str"),
        _setting("version-policy", "choice", ("rewrite", "keep")),
        _setting("keep-launch-syntax", "bool"),
        _setting("legacy-include-paths", "bool"),
        _setting("rename", "choice", ("none", "hip", "cpp")),
        _setting("backup", "str"),
        _setting("jobs", "int"),
        _setting("build-files", "bool"),
        _setting("gitignore", "bool"),
        _setting("hip-sources", "list", param=None, default=()),
        _setting("severity", "choice", ("info", "warning", "error")),
        _setting("show", "choice", ("info", "warning", "error", "none")),
        # --verify (compile the translation): compiler, targets and the flags of the compile
        _setting("verify", "bool"),
        _setting("hipcc", "str"),
        _setting("offload-arch", "list"),
        _setting("compile-commands", "path"),
        _setting("include-dirs", "dirs"),
        _setting("defines", "list"),
        _setting("std", "str"),
    )
}
PARAM_TO_KEY: Mapping[str, str] = {k.param: k.name for k in KEYS.values() if k.param}


class Value(NamedTuple):
    """A setting's value and where it came from."""

    value: Any
    source: str  # "default", "command line" or the path of the config file


def _read_toml(path: Path) -> dict[str, Any]:
    # why lazy: only runs that have a config file pay for the import; tomli is tomllib before Python 3.11
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as err:
        raise ConfigError(path, None, f"cannot read: {err.strerror or err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(path, None, f"invalid TOML: {err}") from None


def _table(path: Path) -> dict[str, Any] | None:
    """The hipify-py settings of a file, or None when a pyproject.toml has no [tool.hipify-py]."""
    doc = _read_toml(path)
    if path.name != PYPROJECT:
        return doc
    table = doc.get("tool", {}).get(TOOL_TABLE)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(path, f"tool.{TOOL_TABLE}", "must be a table")
    return table


def _check(path: Path, name: str, value: Any) -> Any:
    """Validated value of one key, in the form the CLI parameter has (lists -> tuples)."""
    key = KEYS.get(name)
    if key is None:
        raise ConfigError(path, name, f"unknown key (known: {', '.join(sorted(KEYS))})")

    def bad(expected: str) -> ConfigError:
        return ConfigError(path, name, f"expected {expected}, got {type(value).__name__} {value!r}")

    if key.kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if key.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("a non-negative integer")
        return value
    if key.kind == "str":
        if not isinstance(value, str):
            raise bad('a string (quote versions: "6.2")')
        return value
    if key.kind == "choice":
        if value not in key.choices:
            raise bad(f"one of {', '.join(key.choices)}")
        return value
    if key.kind == "path":
        if not isinstance(value, str):
            raise bad("a path (string)")
        target = (path.parent / value).resolve()
        if not target.exists():
            raise ConfigError(path, name, f"no such file or directory: {target}")
        return target
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad("a list of strings")
    if key.kind == "paths":
        return tuple(_existing(path, name, (path.parent / v).resolve()) for v in value)
    if key.kind == "dirs":
        targets = tuple((path.parent / v).resolve() for v in value)
        missing = [str(t) for t in targets if not t.is_dir()]
        if missing:
            raise ConfigError(path, name, f"no such directory: {', '.join(missing)}")
        return targets
    if name == "ignore":
        _check_rules(path, value)
    return tuple(value)


def _existing(path: Path, name: str, target: Path) -> Path:
    if not target.is_file():
        raise ConfigError(path, name, f"no such file: {target}")
    return target


def _check_rules(path: Path, rules: Sequence[str]) -> None:
    from hipify_py.engine.rule_texts import RULES

    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ConfigError(path, "ignore", f"unknown rule id(s): {', '.join(unknown)}")


def read_config(path: Path) -> dict[str, Any]:
    """Validated settings of one file ({} for a pyproject.toml without our table)."""
    table = _table(path) or {}
    return {name: _check(path, name, value) for name, value in table.items()}


def common_parent(paths: Iterable[Path]) -> Path:
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    start = os.path.commonpath(absolute)
    return Path(start if os.path.isdir(start) else os.path.dirname(start))


def find_config_files(paths: Iterable[Path]) -> list[Path]:
    """Config files of the first directory (walking up) that has one, lowest precedence first."""
    directory = common_parent(paths)
    for candidate in (directory, *directory.parents):
        pyproject, dotfile = candidate / PYPROJECT, candidate / DOTFILE
        found = [p for p in (pyproject, dotfile) if p.is_file()]
        if pyproject in found and _table(pyproject) is None:
            found.remove(pyproject)
        if found:
            return found
    return []


def file_settings(paths: Iterable[Path], explicit: Path | None) -> dict[str, Value]:
    """Settings from config files (explicit one, or found by walking up), with their source."""
    files = [explicit] if explicit is not None else find_config_files(paths)
    merged: dict[str, Value] = {}
    for file in files:
        for name, value in read_config(file).items():
            merged[name] = Value(value, str(file))
    return merged


def effective(
    params: Mapping[str, Any],
    is_cli: Callable[[str], bool],
    configured: Mapping[str, Value],
) -> dict[str, Value]:
    """Every key's effective value: CLI (if typed) > config file > default (the CLI default)."""
    result: dict[str, Value] = {}
    for name, key in KEYS.items():
        if key.param is not None and is_cli(key.param):
            result[name] = Value(params[key.param], SOURCE_CLI)
        elif name in configured:
            result[name] = configured[name]
        elif key.param is not None and key.param in params:
            result[name] = Value(params[key.param], SOURCE_DEFAULT)
        else:
            result[name] = Value(key.default, SOURCE_DEFAULT)
    return result


def _cli_typed(ctx: click.Context) -> Callable[[str], bool]:
    from click.core import ParameterSource

    def typed(param: str) -> bool:
        return ctx.get_parameter_source(param) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)

    return typed


def resolve(ctx: click.Context, params: dict[str, Any]) -> dict[str, Value]:
    """Pop --config/--no-rename from `params` and return the effective settings of this invocation."""
    explicit = params.pop("config", None)
    typed = _cli_typed(ctx)
    if params.pop("no_rename", False):  # a flag: True only when typed
        params["rename"] = "none"
        cli_typed = typed
        typed = lambda param: param == "rename" or cli_typed(param)  # noqa: E731
    if params.get("extra_mappings"):
        params["extra_mappings"] = tuple(Path(p).resolve() for p in params["extra_mappings"])
    paths = params.get("paths") or (Path.cwd(),)
    try:
        configured = file_settings(paths, explicit)
    except ConfigError as err:
        raise ConfigClickError(str(err)) from None
    return effective(params, typed, configured)


class ConfigClickError(click.ClickException):
    exit_code = 2

    def format_message(self) -> str:
        return f"configuration error: {self.message}"


def apply_config(command: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a click command: replace untyped CLI values by configured ones before the call."""

    @functools.wraps(command)
    def wrapper(**params: Any) -> Any:
        ctx = click.get_current_context()
        values = resolve(ctx, params)
        ctx.meta[SOURCES_META] = {name: value.source for name, value in values.items()}
        for name, value in values.items():
            param = KEYS[name].param
            if param is not None and param in params:
                params[param] = value.value
        return command(**params)

    return wrapper


def configured_value(paths: Iterable[Path], name: str, explicit: Path | None = None) -> Any:
    """One key's configured value (or its default) for PATHS, e.g. `hip-sources` for the check hook.

    Raises ConfigError for a bad file. Keys with a CLI option default to None here (the CLI owns
    their defaults).
    """
    settings = file_settings(paths, explicit)
    return settings[name].value if name in settings else KEYS[name].default
