"""The insertion planner (pipeline/insertions.py): one order for every requested line, the renamed
includes of the output-name policy in the same edits (one apply_edits, one line map), and a translate()
that tells rules apart by what they return, never by which function they are."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from hipify_py.analysis.context import Context
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.engine.linemap import moves_of, original_text, to_original
from hipify_py.engine.options import Options
from hipify_py.pipeline import translate as translate_module
from hipify_py.pipeline.insertions import place
from hipify_py.pipeline.translate import default_tables, translate, translation_rules
from hipify_py.rules import GUARDED, RUNTIME, Insertion
from hipify_py.run.discover import Found
from hipify_py.run.outcome import Mode, RunSettings
from hipify_py.run.output_names import include_edits, make_plan
from hipify_py.run.process import _convert

CUDA = b"""// licence header
#include <cstdio>
#include "util.cuh"

__global__ void axpy(float a, const float* x, float* y) { y[threadIdx.x] += a * x[threadIdx.x]; }

int main() {
  float *x;
  cudaMalloc(&x, 64 * sizeof(float));
  axpy<<<1, 64>>>(2.0f, x, marker_one);
  return marker_two;
}
"""


def _renamed(source: bytes, tmp_path: Path) -> list[Edit]:
    (tmp_path / "util.cuh").write_bytes(b"")
    (tmp_path / "main.cu").write_bytes(source)
    return include_edits(source, tmp_path / "main.cu", make_plan([tmp_path / "util.cuh"], "hip"))


def test_renamed_includes_join_the_one_line_map(tmp_path: Path) -> None:
    renamed = _renamed(CUDA, tmp_path)
    assert len(renamed) == 1
    result = translate(CUDA, Options(hip_version="6.2"), None, renamed)
    text = result.text
    assert b'#include "util.hip.h"' in text and b"#include <hip/hip_runtime.h>" in text
    assert result.counts["renamed_includes"] == 1
    assert apply_edits(CUDA, result.edits) == text  # the edits are the whole translation
    layers = (moves_of(CUDA, result.edits),)
    for marker in (b"marker_one", b"marker_two", b"<cstdio>", b"util."):
        assert to_original(layers, text.index(marker)) == CUDA.index(marker)
    assert original_text(layers, text) == CUDA


def test_a_renamed_include_a_rule_rewrote_is_left_to_the_rule() -> None:
    source = b'#include "cuda_runtime.h"\n__global__ void k() {}\n'
    start = source.index(b"cuda_runtime.h")
    clash = Edit(start, start + len(b"cuda_runtime.h"), b"cuda_runtime.hip.h")
    result = translate(source, Options(hip_version="6.2"), None, [clash])
    assert result.text.startswith(b'#include "hip/hip_runtime.h"\n')
    assert "renamed_includes" not in result.counts


def test_process_keeps_one_layer_with_renamed_includes(tmp_path: Path) -> None:
    (tmp_path / "util.cuh").write_bytes(b"")
    main = tmp_path / "main.cu"
    main.write_bytes(CUDA)
    plan = make_plan([main, tmp_path / "util.cuh"], "hip")
    settings = RunSettings(Mode.STDOUT, Options(hip_version="6.2"), rename=plan, keep_moves=True)
    text, _, counts, layers, _, _ = _convert(Found(main, tmp_path, "source"), CUDA, settings)
    assert len(layers) == 1 and counts["renamed_includes"] == 1
    assert b'#include "util.hip.h"' in text and original_text(layers, text) == CUDA


def test_one_order_at_one_offset() -> None:
    source = b"// top\n#include <cstdio>\nint x;\n"
    ctx = Context(source, default_tables(), Options(hip_version="6.4"))
    at = source.index(b"#include")
    requests = [
        Insertion(GUARDED, at, b"hip/hip_runtime.h", b"#if defined(__HIPCC__)"),
        Insertion.helper(at, b"static int helper;\n"),
        Insertion.include(b"string.h"),
        Insertion.macro(b"SOME_MACRO"),
        Insertion(RUNTIME, at, b"hip/hip_runtime.h"),
    ]
    own = Edit(at, at, b"/* a rule's own edit */\n")
    placed = place(ctx, [own], requests, Counter())
    text = apply_edits(source, placed.edits)
    assert text == (
        b"// top\n"
        b"/* a rule's own edit */\n"
        b"#ifndef SOME_MACRO\n#define SOME_MACRO\n#endif\n"
        b"#include <hip/hip_runtime.h>\n"
        b"#include <string.h>\n"
        b"static int helper;\n"
        b"#if defined(__HIPCC__)\n#include <hip/hip_runtime.h>\n#endif\n"
        b"#include <cstdio>\nint x;\n"
    )


def test_after_a_last_line_without_newline_the_newline_comes_first() -> None:
    source = b"#include <thrust/device_vector.h>"
    ctx = Context(source, default_tables(), Options(hip_version="6.4"))
    end = len(source)
    requests = [Insertion.include(b"thrust/copy.h", end), Insertion.helper(end, b"int h;\n")]
    placed = place(ctx, [], requests, Counter())
    assert apply_edits(source, placed.edits) == source + b"\n#include <thrust/copy.h>\nint h;\n"


def test_translate_has_no_identity_checks_on_rules() -> None:
    names = {rule.__name__ for rule in translation_rules()}
    tree = ast.parse(Path(translate_module.__file__).read_text(encoding="utf-8"))
    checks = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        and any(isinstance(side, ast.Name) and side.id in names for side in (node.left, *node.comparators))
    ]
    assert not checks, checks


def test_every_adapted_warp_builtin_is_a_sign_of_kernel_code() -> None:
    """A header whose only device code is a warp builtin gets the runtime include on the first run (the
    builtin's HIP form, `__ballot(1)`, would make the second run add it: not idempotent)."""
    from hipify_py.data.adaptations import load_table
    from hipify_py.pipeline.insertions import kernel_signs

    assert {row.cuda.encode() for row in load_table()} <= kernel_signs()[0]
    source = b"inline __device__ unsigned lanes(unsigned m) { return __ballot_sync(m, 1); }\n"
    for version in ("5.2", "6.4", "7.2"):
        once = translate_module.translate(source, Options(hip_version=version)).text
        assert once.startswith(b"#include <hip/hip_runtime.h>\n"), version
        assert translate_module.translate(once, Options(hip_version=version)).text == once, version
