"""The AMD targets and C++ standard of translated build files (run/build_targets.py, issue 32)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipify_py.buildfiles import BuildOptions, translate_cmake, translate_makefile
from hipify_py.run import build_targets
from hipify_py.run.build_targets import choose_targets, cxx_requirement, machine_targets, split_targets

ROOT = Path(__file__).resolve().parent.parent


def test_split_targets_commas_and_repeats() -> None:
    assert split_targets(["gfx90a,gfx942", "gfx1100", "gfx90a"]) == ("gfx90a", "gfx942", "gfx1100")


def _fake_tool(directory: Path, name: str, output: str) -> None:
    tool = directory / name
    tool.write_text(f"#!/bin/sh\nprintf '{output}'\n")
    tool.chmod(0o755)


def test_machine_targets_skip_the_cpu_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tool(tmp_path, "rocm_agent_enumerator", "gfx000\\ngfx942\\ngfx942\\ngfx90a\\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "none"))
    assert machine_targets() == (("gfx942", "gfx90a"), "rocm_agent_enumerator")


def test_machine_targets_fall_back_to_amdgpu_arch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_tool(tmp_path, "rocm_agent_enumerator", "gfx000\\n")  # a machine without an AMD GPU
    _fake_tool(tmp_path, "amdgpu-arch", "gfx1100\\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "none"))
    assert machine_targets() == (("gfx1100",), "amdgpu-arch")


def test_choose_targets_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_targets, "machine_targets", lambda: (("gfx942",), "rocm_agent_enumerator"))
    assert choose_targets(["gfx90a,gfx1100"])[0] == ("gfx90a", "gfx1100")
    targets, why = choose_targets([])
    assert targets == ("gfx942",) and "rocm_agent_enumerator" in why
    monkeypatch.setattr(build_targets, "machine_targets", lambda: ((), ""))
    targets, why = choose_targets([])
    assert targets == ("gfx90a",) and "default" in why


def test_cxx_requirement_per_release() -> None:
    assert cxx_requirement("5.2")[0] == 14
    assert cxx_requirement("6.4")[0] == 14
    need, why = cxx_requirement("7.2")
    assert need == 17 and "C++17" in why and "7.2" in why


def test_cxx_requirement_without_a_table(tmp_path: Path) -> None:
    assert cxx_requirement("7.2", tmp_path) == (0, "")


def test_standard_left_alone_when_high_enough() -> None:
    opts = BuildOptions(min_cxx_std=17, std_reason="r")
    src = b'set(CMAKE_CXX_STANDARD 20)\nset(CMAKE_CUDA_FLAGS "-std=c++17")\n'
    out, diags = translate_cmake(src, opts)
    assert out == b'set(CMAKE_CXX_STANDARD 20)\nset(CMAKE_HIP_FLAGS "-std=c++17")\n'
    assert not [d for d in diags if d.rule == "HIP405"]
    out, _ = translate_makefile(b"F := -std=gnu++11 -std=c11\n", opts)
    assert out == b"F := -std=gnu++17 -std=c11\n"


def test_one_target_note_per_build_file() -> None:
    src = b"A := -arch=sm_70\nB := -gencode arch=compute_80,code=sm_80\n"
    _, diags = translate_makefile(src, BuildOptions(arch_reason="because"))
    notes = [d for d in diags if d.rule == "HIP404"]
    assert len(notes) == 1 and notes[0].line == 1 and "gfx90a: because" in notes[0].message


def test_cli_comma_targets_and_summary(tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(p CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 86)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "hipify_py", "convert", "--in-place", "-j", "1", "--hip-version", "7.2"]
    done = subprocess.run(
        [*cmd, "--offload-arch", "gfx90a,gfx942", str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode in (0, 1), done.stderr
    assert 'set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942")' in (tmp_path / "CMakeLists.txt").read_text()
    assert "build files: AMD GPU targets gfx90a,gfx942: given with --offload-arch" in done.stderr
