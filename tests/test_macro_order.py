"""The runtime header before a user macro that would rewrite HIP's headers (rules/macro_order.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import check_probe_table

from hipify_py.options import Options
from hipify_py.rules.macro_order import GUARD, hip_identifiers
from hipify_py.translate import translate

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc to re-probe")
def test_committed_identifiers_match_the_installed_headers() -> None:
    check_probe_table("probe_hip_identifiers")


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
