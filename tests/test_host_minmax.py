"""Host min/max (HIP155): translated host code computes what CUDA computes, on every target.

CUDA declares min/max for the host for every integer width and signedness and for float/double; HIP
on AMD only min(int, int)/max(int, int), so without the helper `min(size_t, size_t)` truncates to int.
The run test builds a translated host-only program with each hipcc present and runs it (no GPU
needed: the ROCm chroots' binaries run under chroot) and compares what it prints with CUDA's values,
which follow from C++'s rules for CUDA's overloads (written out below, not taken from a HIP run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from toolchains import Toolchain, params, run_translation

from hipify_py.cli.main import main
from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate
from hipify_py.rules.host_minmax import GUARDS, helper_text

PROGRAM = b"""#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

__host__ __device__ inline float smaller(float a, float b) { return min(a, b); }

int main()
{
    size_t a = 5000000000, b = 6000000000;
    int n = -1;
    unsigned u = 5;
    long long big = 1ll << 40;
    printf("%zu\\n", (size_t)min(a, b));
    printf("%zu\\n", (size_t)max(a, b));
    printf("%llu\\n", (unsigned long long)min(n, u));
    printf("%llu\\n", (unsigned long long)max(n, u));
    printf("%lld\\n", (long long)max(big, 3ll));
    printf("%g\\n", (double)min(1.5, 2.5));
    printf("%g\\n", (double)max(1.5f, 0.25f));
    printf("%g\\n", (double)min(2.5f, 1.25));
    printf("%g\\n", (double)smaller(1.5f, 2.5f));
    printf("%ld\\n", (long)min(-3l, 4000000000l));
    printf("%llu\\n", (unsigned long long)min(-1ll, 7ull));
    int x = 700;
    dim3 block{min(512, uint32_t(x))};
    printf("%u\\n", block.x);
    printf("%d\\n", min(-4, 9));
    return 0;
}
"""
# CUDA's overloads by C++'s rules: (size_t, size_t) -> unsigned long; (int, unsigned) -> unsigned
# (-1 becomes 4294967295); (long long, long long); (double, double) fmin; (float, float) fmaxf;
# (float, double) -> double; the __host__ __device__ function's host side like host code; (long, long);
# (long long, unsigned long long) -> unsigned long long (-1 becomes 2^64 - 1); (int, unsigned) in a
# braced dim3 -> unsigned, no narrowing; (int, int).
CUDA_PRINTS = [
    "5000000000",
    "6000000000",
    "5",
    "4294967295",
    "1099511627776",
    "1.5",
    "1.5",
    "1.25",
    "1.5",
    "-3",
    "7",
    "512",
    "-4",
]


def test_helper_written_once_before_the_first_host_call() -> None:
    out = translate(PROGRAM, Options(hip_version="7.2"))
    text = out.text
    assert text.count(helper_text()) == 1
    assert text.index(helper_text()) < text.index(b"__host__ __device__ inline float smaller")
    assert [d.rule for d in out.diagnostics if d.rule != "HIP153"] == [
        "HIP155"
    ]  # HIP153: the typed mixed pairs
    again = translate(text, Options(hip_version="7.2"))  # a second run: ours is there already
    assert again.text == text and not again.diagnostics


def test_helper_is_off_where_the_platform_or_the_build_has_the_overloads() -> None:
    text = helper_text().decode()
    head = text.splitlines()[2]
    assert "defined(__HIP__)" in head and "!defined(__HIP_PLATFORM_NVIDIA__)" in head
    assert all(f"!defined({g})" in head for g in GUARDS)
    assert "defined(__HIP_DEFINE_EXTENDED_HOST_MIN_MAX__) && __HIP_DEFINE_EXTENDED_HOST_MIN_MAX__)" in text
    assert "defined(__HIP_DEFINE_MIXED_HOST_MIN_MAX__) && __HIP_DEFINE_MIXED_HOST_MIN_MAX__)" in text
    # HIP declares min(int, int) itself: a second one would clash
    assert "(int, int, int)" not in text and "min(int a" not in text


@pytest.mark.parametrize(
    ("call", "helper"),
    [
        (b"int n = 3; int m = min(n, 65535);", False),
        (b"short s = 3; char c = 'a'; int m = max(s, c);", False),
        (b"int n = 3; int m = max((int)n, -2);", False),
        (b"unsigned int n = 3; unsigned m = min(n, 4);", True),
        (b"long int n = 3; long m = min(n, 4);", True),
        (b"int n = 3; long m = min(n, 3000000000);", True),
        (b"int n = 3; long m = min(n + 1, 4);", True),  # an expression: its type is not evident
        (b"float f = 1; float m = min(f, 2.0f);", True),
        (b"size_t z = 1; size_t m = max(z, sizeof(int));", True),
    ],
)
def test_only_calls_not_evidently_int(call: bytes, helper: bool) -> None:
    source = b"#include <cstddef>\nint f() {\n  " + call + b"\n  return 0;\n}\n"
    out = translate(source, Options(hip_version="6.4"))
    assert (GUARDS[0].encode() in out.text) is helper, out.text.decode()


def test_project_header_defining_min_gets_no_helper(tmp_path: Path) -> None:
    """A project header of the include closure defines max: CUDA's overloads would clash with it."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "util.h").write_bytes(b"#pragma once\n#define max(a, b) ((a) > (b) ? (a) : (b))\n")
    (root / "main.cu").write_bytes(
        b'#include <cstddef>\n#include "util.h"\nsize_t f(size_t a, size_t b) { return max(a, b); }\n'
    )
    result = CliRunner().invoke(main, ["convert", str(root), "-o", str(tmp_path / "out"), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert GUARDS[0].encode() not in (tmp_path / "out" / "main.cu").read_bytes()


@pytest.mark.parametrize("chain", params())
def test_translated_host_program_prints_cudas_values(chain: Toolchain, tmp_path: Path) -> None:
    assert run_translation(chain, PROGRAM, tmp_path, "minmax") == CUDA_PRINTS


@pytest.mark.parametrize(
    ("name", "head", "helper"),
    [
        ("timer.cpp", b"", False),  # a host C++ file: nvcc gives it no CUDA headers, no CUDA overloads
        ("timer.cpp", b"#include <cuda_runtime.h>\n", True),
        ("kernel.cu", b"", True),
        ("util.h", b"", True),  # a header: included from CUDA code
        ("tutorial.c", b"#include <cuda_runtime.h>\n", False),  # C: no overloads at all
    ],
)
def test_which_files(name: str, head: bytes, helper: bool) -> None:
    source = head + b"#include <cstddef>\nsize_t f(size_t a, size_t b) { return max(a, b); }\n"
    out = translate(source, Options(hip_version="7.2", filename=name))
    assert (GUARDS[0].encode() in out.text) is helper
