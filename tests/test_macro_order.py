"""The runtime header before a user macro that would rewrite HIP's headers (rules/macro_order.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import check_probe_table
from toolchains import Toolchain, params

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.macro_order import GUARD, hip_identifiers

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("chain", params())
def test_committed_identifiers_match_each_hipcc(chain: Toolchain) -> None:
    check_probe_table("probe_hip_identifiers", chain)


@pytest.mark.parametrize("chain", params())
def test_committed_device_functions_match_each_hipcc(chain: Toolchain) -> None:
    """scripts/probe_device_functions.py (rules/cxx.py's table, and probe_host_math.py's candidates)."""
    check_probe_table("probe_device_functions", chain)


def test_table_has_the_template_parameter_and_min() -> None:
    names, called = hip_identifiers("5.2")
    assert b"T" in names and b"min" in called and b"__device__" not in names


def _out(code: str) -> tuple[str, list[str]]:
    result = translate(code.encode(), Options(hip_version="5.2"))
    return result.text.decode(), [d.rule for d in result.diagnostics]


@pytest.mark.parametrize(
    ("code", "moved"),
    [
        ("#define T int\nint f(T x);\n", True),
        ("#define min(a, b) ((a) < (b) ? (a) : (b))\nint f();\n", True),
        ("#define N 16\nint f();\n", False),  # HIP's headers do not use N
        ("#define x 3\nint f();\n", True),  # an object-like macro named like a member
        ("#define Width(a) a\nint f();\n", False),  # function-like: HIP never calls Width(...)
        ("#include <cuda_runtime.h>\n#define T int\n", False),  # the runtime header comes first
        ("#include <hip/hip_runtime.h>\n#define T int\n", False),
        ("#ifndef T\n#define T\n#endif\n", False),  # an include guard of that name
        ("// #define T int\nint f();\n", False),
        ("#ifndef __HIPCC__\n#define T int\n#endif\n", False),  # a branch hipcc skips
    ],
)
def test_runtime_header_before_clobbering_macro(code: str, moved: bool) -> None:
    text, rules = _out(code)
    assert (GUARD.decode() in text) == moved
    assert ("HIP131" in rules) == moved
    if moved:
        assert text.index("#include <hip/hip_runtime.h>") < text.index("#define")


def test_inserted_above_the_first_macro_inside_the_include_block() -> None:
    code = "#ifndef CFG_H\n#define CFG_H\n#include <stdio.h>\n#define T int\n#endif\n"
    text, _ = _out(code)
    assert text.startswith(
        "#ifndef CFG_H\n#define CFG_H\n" + GUARD.decode() + "\n#include <hip/hip_runtime.h>\n"
    )
    assert translate(text.encode(), Options(hip_version="5.2")).text.decode() == text


C_HEADER = (
    '#ifndef API_H\n#define API_H\n#ifdef __cplusplus\nextern "C" {\n#endif\n#include "cu.h"\n'
    "int f(void);\n#ifdef __cplusplus\n}\n#endif\n#endif\n"
)
CU_HEADER = (
    "#ifndef CU_H\n#define CU_H\n#ifdef __CUDACC__\n#define CHECK(x) if ((x) != cudaSuccess) return 1;\n"
    "#endif\n#endif\n"
)


@pytest.mark.parametrize(
    ("code", "moved"),
    [
        (C_HEADER, True),
        ('extern "C" {\n#include "a.h"\n}\n', True),
        ('extern "C" {\n#include <stdio.h>\n}\n', False),  # a system header is C already
        ('extern "C" int f(void);\n#include "a.h"\n', False),  # no block
        ('#include <hip/hip_runtime.h>\nextern "C" {\n#include "a.h"\n}\n', False),
        ('#ifndef __HIPCC__\nextern "C" {\n#include "a.h"\n}\n#endif\n', False),  # hipcc skips it
        ('// extern "C" {\n#include "a.h"\n', False),
    ],
)
def test_runtime_header_before_c_linkage_block(code: str, moved: bool) -> None:
    text, rules = _out(code)
    assert ("HIP132" in rules) == moved
    assert (GUARD.decode() in text) == moved
    if moved:
        opening = "#ifdef __cplusplus\nextern" if "#ifdef __cplusplus" in code else 'extern "C"'
        assert text.index("#include <hip/hip_runtime.h>") < text.index(opening)


@pytest.mark.hipcc
@pytest.mark.skipif(
    shutil.which("hipcc") is None, reason="needs hipcc (apt-get install hipcc libamdhip64-dev)"
)
def test_c_source_including_a_converted_header_inside_extern_c_compiles(tmp_path: Path) -> None:
    import subprocess

    files = {"api.h": C_HEADER, "cu.h": CU_HEADER, "main.c": '#include "api.h"\nint f(void) { return 0; }\n'}
    for name, code in files.items():
        (tmp_path / name).write_text(
            translate(code.encode(), Options(hip_version="5.2", filename=name)).text.decode()
        )
    assert "hip_runtime.h" in (tmp_path / "cu.h").read_text()  # the converted header includes it itself
    cmd = ["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-x", "hip", "-c", "-o", "/dev/null", "main.c"]
    done = subprocess.run(
        cmd, cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"}
    )
    assert done.returncode == 0, done.stderr
