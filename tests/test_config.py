"""Configuration files: lookup, validation, precedence (default < pyproject < .hipify-py.toml < CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hipify_py.cli.main import main
from hipify_py.run.config import ConfigError, find_config_files, read_config

REPO = Path(__file__).resolve().parent.parent
LAUNCH = b"__global__ void k(int *p) {}\nvoid f(int *p) { k<<<1, 2>>>(p); cudaDeviceSynchronize(); }\n"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))


def _config(args: list[str]) -> dict:
    result = CliRunner().invoke(main, ["config", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["settings"]


def _project(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.hipify-py]\nroc = true\nshow = "info"\njobs = 1\nexclude = ["gen"]\n'
    )
    (tmp_path / "proj" / ".hipify-py.toml").write_text('show = "error"\njobs = 2\n')
    return tmp_path / "proj"


def test_precedence_default_pyproject_dotfile_cli(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    settings = _config([str(proj / "src"), "--jobs", "3"])
    pyproject, dotfile = str(proj / "pyproject.toml"), str(proj / ".hipify-py.toml")
    assert settings["version-policy"] == {"value": "rewrite", "source": "default"}
    assert settings["roc"] == {"value": True, "source": pyproject}
    assert settings["exclude"] == {"value": ["gen"], "source": pyproject}
    assert settings["show"] == {"value": "error", "source": dotfile}
    assert settings["jobs"] == {"value": 3, "source": "command line"}
    # typing the default value explicitly still counts as the command line
    assert _config([str(proj), "--show", "warning"])["show"] == {"value": "warning", "source": "command line"}


def test_cli_list_replaces_configured_list(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    assert _config([str(proj), "--exclude", "other"])["exclude"]["value"] == ["other"]


def test_lookup_stops_at_first_directory_with_config(tmp_path: Path) -> None:
    (tmp_path / ".hipify-py.toml").write_text("roc = true\n")
    inner = tmp_path / "inner"
    (inner / "deep").mkdir(parents=True)
    (inner / "pyproject.toml").write_text('[tool.hipify-py]\nshow = "info"\n')
    assert find_config_files([inner / "deep"]) == [inner / "pyproject.toml"]
    settings = _config([str(inner / "deep")])
    assert settings["roc"]["source"] == "default"
    assert settings["show"]["value"] == "info"


def test_pyproject_without_our_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".hipify-py.toml").write_text("roc = true\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config_files([tmp_path / "sub"]) == [tmp_path / ".hipify-py.toml"]


def test_common_parent_of_several_paths(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".hipify-py.toml").write_text("roc = true\n")
    (tmp_path / ".hipify-py.toml").write_text("jobs = 2\n")
    assert find_config_files([tmp_path / "a", tmp_path / "b"]) == [tmp_path / ".hipify-py.toml"]


def test_explicit_config_file(tmp_path: Path) -> None:
    _project(tmp_path)
    explicit = tmp_path / "ci.toml"
    explicit.write_text('version-policy = "keep"\n')
    settings = _config([str(tmp_path / "proj"), "--config", str(explicit)])
    assert settings["version-policy"] == {"value": "keep", "source": str(explicit)}
    assert settings["roc"]["source"] == "default"  # the project files are not read


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("colour = true\n", "colour", "unknown key"),
        ('roc = "yes"\n', "roc", "true or false"),
        ("hip-version = 6.2\n", "hip-version", "string"),
        ('rename = "hipify"\n', "rename", "none, hip, cpp"),
        ('exclude = "build"\n', "exclude", "list of strings"),
        ("jobs = -1\n", "jobs", "non-negative"),
        ('ignore = ["HIP999"]\n', "ignore", "HIP999"),
        ('extra-mappings = ["missing.yaml"]\n', "extra-mappings", "no such file"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    config = tmp_path / ".hipify-py.toml"
    config.write_text(text)
    (tmp_path / "a.cu").write_bytes(LAUNCH)
    with pytest.raises(ConfigError, match=words) as err:
        read_config(config)
    assert err.value.key == key
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "a.cu")])
    assert result.exit_code == 2
    assert f"{config}: {key}:" in result.output


def test_invalid_toml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".hipify-py.toml").write_text("roc = \n")
    result = CliRunner().invoke(main, ["config", str(tmp_path)])
    assert result.exit_code == 2
    assert "invalid TOML" in result.output and ".hipify-py.toml" in result.output


def test_config_drives_convert(tmp_path: Path) -> None:
    (tmp_path / ".hipify-py.toml").write_text("keep-launch-syntax = true\n")
    (tmp_path / "a.cu").write_bytes(LAUNCH)
    kept = CliRunner().invoke(main, ["convert", str(tmp_path / "a.cu")], catch_exceptions=False)
    assert b"k<<<1, 2>>>(p)" in kept.stdout_bytes and b"hipDeviceSynchronize" in kept.stdout_bytes
    (tmp_path / ".hipify-py.toml").write_text("keep-launch-syntax = false\n")
    rewritten = CliRunner().invoke(main, ["convert", str(tmp_path / "a.cu")], catch_exceptions=False)
    assert b"hipLaunchKernelGGL" in rewritten.stdout_bytes


def test_extra_mappings_relative_to_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "mine.yaml").write_text("entries:\n- {cuda: cudaDeviceSynchronize, hip: mySync}\n")
    (tmp_path / "pyproject.toml").write_text('[tool.hipify-py]\nextra-mappings = ["cfg/mine.yaml"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_bytes(LAUNCH)
    monkeypatch.chdir(tmp_path / "src")
    result = CliRunner().invoke(main, ["convert", "a.cu"], catch_exceptions=False)
    assert b"mySync()" in result.stdout_bytes


def test_config_command_text_in_subprocess(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HIPIFY_PY_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "hipify_py", "config", str(proj), "--roc"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = {line.split("=")[0].strip(): line for line in proc.stdout.splitlines() if "=" in line}
    assert lines["roc"].endswith("# command line")
    assert lines["jobs"].endswith(f"# {proj / '.hipify-py.toml'}")
    assert lines["hip-sources"].endswith("# default")
