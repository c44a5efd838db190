"""translate() behaviour that fixture pairs alone do not pin down: policies, invariants, edge cases."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fixture_cases import FIXTURES, Case, cases

from hipify_py.engine.options import Options
from hipify_py.pipeline.translate import translate

HIP_ONLY = FIXTURES / "mixed" / "fully_hip.cu"


def rules(source: bytes, **options: object) -> set[str]:
    return {d.rule for d in translate(source, Options(**options)).diagnostics}


def test_already_hip_file_is_byte_identical() -> None:
    source = HIP_ONLY.read_bytes()
    assert b"<<<" in source  # the chevron launch is valid HIP and stays
    result = translate(source)
    assert result.text == source
    assert not result.counts["launches"]


def test_cuda_names_in_a_hip_file_still_convert_its_launches() -> None:
    source = b"#include <hip/hip_runtime.h>\nvoid f(float *x) { cudaFree(x); k<<<1, 1>>>(x); }\n"
    assert translate(source).text == (
        b"#include <hip/hip_runtime.h>\n"
        b"void f(float *x) { hipFree(x); hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, x); }\n"
    )


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_translating_twice_equals_translating_once(case: Case) -> None:
    once = translate(case.input.read_bytes(), case.options).text
    assert translate(once, case.options).text == once


def test_cudnn_names_stay_without_roc_and_become_miopen_with_it() -> None:
    source = b"void f(cudnnHandle_t h) { cudnnCreate(&h); }\n"
    assert translate(source).text == source
    assert translate(source, Options(roc=True)).text == b"void f(miopenHandle_t h) { miopenCreate(&h); }\n"


def test_cudnn_name_without_miopen_counterpart_is_reported_with_roc() -> None:
    source = b"void f() { cudnnRNNForward(); }\n"
    result = translate(source, Options(roc=True))
    assert result.text == source
    assert [d.rule for d in result.diagnostics if d.rule == "HIP101"] == ["HIP101"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"cub::DeviceScan::ExclusiveSum(a, b);", b"hipcub::DeviceScan::ExclusiveSum(a, b);"),
        (b"using namespace cub;", b"using namespace hipcub;"),
        (b"namespace c = cub;", b"namespace c = hipcub;"),
        (b"namespace cg = cooperative_groups;", b"namespace cg = cooperative_groups;"),
        (b"thrust::device_vector<int> v;", b"thrust::device_vector<int> v;"),
        (b"int cub = 1; int y = cub + 2;", b"int cub = 1; int y = cub + 2;"),
        (b"int z = lib::cub::value;", b"int z = lib::cub::value;"),
        (b'const char *s = "cub::Sum"; // cub::Sum', b'const char *s = "cub::Sum"; // cub::Sum'),
    ],
)
def test_cub_namespace(source: bytes, expected: bytes) -> None:
    assert translate(source).text == expected


def test_version_policy_keep_leaves_too_new_names_and_headers() -> None:
    source = b"#include <math_constants.h>\nvoid f() { cudaSetValidDevices(0, 0); cudaMalloc(0, 0); }\n"
    kept = translate(source, Options(hip_version="5.2", version_policy="keep"))
    assert kept.text == (
        b"#include <hip/hip_runtime.h>\n#include <math_constants.h>\n"
        b"void f() { cudaSetValidDevices(0, 0); hipMalloc(0, 0); }\n"
    )
    rewritten = translate(source, Options(hip_version="5.2"))
    assert b"hip/hip_math_constants.h" in rewritten.text and b"hipSetValidDevices" in rewritten.text
    assert [d.rule for d in kept.diagnostics] == [d.rule for d in rewritten.diagnostics] == ["HIP103"] * 2
    assert rules(source, hip_version="6.3") == set()


def test_symbol_with_template_comma_is_one_macro_argument() -> None:
    source = b"void f(float *h) { cudaMemcpyToSymbol(T<float, 8>::data, h, 32); }\n"
    assert b"hipMemcpyToSymbol(HIP_SYMBOL((T<float, 8>::data)), h, 32)" in translate(source).text


def test_token_pasted_cuda_prefix_with_no_use_here_becomes_the_family_prefix() -> None:
    # the macro's users are other files: every name they paste would be CUDA's (rules/pasted_prefixes.py)
    source = b"#define CALL(name, ...) cuda##name(__VA_ARGS__)\n"
    result = translate(source)
    assert result.text == source.replace(b"cuda##", b"hip##")
    assert [(d.line, d.col, d.rule) for d in result.diagnostics] == [(1, 25, "HIP148")]


def test_token_pasted_constant_prefix_is_reported_not_rewritten() -> None:
    source = b"#define LIMIT(name) CUDA_##name\n"  # a project's own constants, as often as CUDA's
    result = translate(source)
    assert result.text == source
    assert [(d.line, d.col, d.rule) for d in result.diagnostics] == [(1, 21, "HIP102")]


def test_bom_stays_first() -> None:
    source = b"\xef\xbb\xbf#include <cuda_runtime.h>\nvoid f() { cudaDeviceReset(); }\n"
    expected = b"\xef\xbb\xbf#include <hip/hip_runtime.h>\nvoid f() { hipDeviceReset(); }\n"
    assert translate(source).text == expected
    bare = b"\xef\xbb\xbfvoid f() { cudaDeviceReset(); }\n"
    assert translate(bare).text.startswith(b"\xef\xbb\xbf#include <hip/hip_runtime.h>\n")


def test_empty_and_whitespace_sources() -> None:
    for source in (b"", b"\n", b"  \r\n"):
        result = translate(source)
        assert result.text == source and not result.diagnostics


def test_shift_before_comment_lines_does_not_hang() -> None:
    """`<<` before lines that each hold two `//` comments (a commented-out stream chain): the launch
    scan once backtracked exponentially on them (minutes at a dozen lines; 60 would never end). Run
    in a child so that a regression fails here instead of hanging the suite."""
    lines = "".join(f'  //  "k{i}"   // note {i} /* a */ /* b */\n' for i in range(60))
    code = f"void f(std::ostream& os) {{\n  // os <<\n{lines}  os << 1;\n}}\n"
    script = "import sys; from hipify_py.pipeline.translate import translate; " + (
        "sys.stdout.buffer.write(translate(sys.stdin.buffer.read()).text)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], input=code.encode(), capture_output=True, timeout=300, check=True
    )
    assert proc.stdout == code.encode()
