"""scripts/predict_failures.py: predicted / silent / false-alarm / environment classification of compiled
TUs (from clang's messages as hipify_py.verify parses them), and end to end with the real hipcc."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from hipify_py.verify import CompilerError, Location, Note

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("predict_failures", ROOT / "scripts" / "predict_failures.py")
assert _spec is not None and _spec.loader is not None
pf = importlib.util.module_from_spec(_spec)
sys.modules["predict_failures"] = pf
_spec.loader.exec_module(pf)

HIPCC_MISSING = pytest.mark.skipif(
    pf.shutil.which("hipcc") is None and not os.environ.get("CI"),
    reason="hipcc not installed (CI installs it)",
)


def test_line_map_follows_inserted_and_edited_lines() -> None:
    before = "a\nb\n#include <cuda_runtime.h>\nc\nd\n"
    after = "#include <hip/hip_runtime.h>\na\nb\nc\nd\n"
    m = pf.line_map(before, after)
    assert m[2] == 1 and m[3] == 2 and m[4] == 4 and m[5] == 5


def _classifier(tmp_path: Path, findings: list) -> pf.Classifier:
    by_file: dict[str, list] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    return pf.Classifier(tmp_path, tmp_path, by_file, 3, frozenset({"hipcub/hipcub.hpp", "thrust/"}))


def _tu(tmp_path: Path) -> pf.TU:
    (tmp_path / "p").mkdir(exist_ok=True)
    for name in ("main.cu", "k.h"):
        (tmp_path / "p" / name).write_text("x\n" * 40)
    return pf.TU("p", "p", "main.cu", (".",))


def _err(path: str, line: int, text: str, notes: tuple = (), included_from: tuple = ()) -> pf.Outcome:
    err = CompilerError(Location(path, line, 1), text, False, [Note(n, "note") for n in notes], included_from)
    return pf.Outcome(False, err)


def test_classify_near_first_error_or_its_notes(tmp_path: Path) -> None:
    tu = _tu(tmp_path)
    hit = pf.Finding("p/k.h", 12, 3, "HIP101", "unsupported", "__shfl_down_sync")
    clf = _classifier(tmp_path, [hit])
    assert clf.classify(tu, _err("k.h", 14, "bad")).status == "predicted"
    assert clf.classify(tu, _err("k.h", 16, "bad")).status == "silent"
    in_header = _err("/usr/include/hip/x.h", 90, "static_assert failed", (Location("k.h", 12),))
    assert clf.classify(tu, in_header).rules == ["HIP101"]
    chain = (Location("main.cu", 1), Location("k.h", 10))
    included = _err("/usr/include/hip/x.h", 90, "bad", included_from=chain)
    assert clf.classify(tu, included).status == "predicted"
    assert clf.classify(tu, pf.Outcome(False, timed_out=True)).status == "timeout"


def test_an_asm_finding_speaks_for_its_whole_statement(tmp_path: Path) -> None:
    """HIP204 names an asm statement's first line; clang reports a bad constraint where the operand is."""
    source = b'__device__ int q(float a) {\n  int x;\n  asm volatile(\n    "cvt.rni.s32.f32 %0, %1;"\n'
    source += b'    : "=r"(x)\n\n\n\n    : "f"(a));\n  return x;\n}\n'
    assert pf._asm_statement_end(source, source.index(b"asm"), 3) == 9
    tu = _tu(tmp_path)
    asm = pf.Finding("p/k.h", 3, 3, "HIP204", "inline PTX", "asm volatile(", 9)
    clf = _classifier(tmp_path, [asm])
    assert clf.classify(tu, _err("k.h", 9, "invalid input constraint 'f' in asm")).status == "predicted"
    assert clf.classify(tu, _err("k.h", 13, "bad")).status == "silent"


def test_classify_by_the_name_clang_quotes(tmp_path: Path) -> None:
    tu = _tu(tmp_path)
    far = pf.Finding("p/main.cu", 2, 1, "HIP101", "`cudaFoo` has no HIP counterpart", "cudaFoo")
    clf = _classifier(tmp_path, [far])
    assert (
        clf.classify(tu, _err("main.cu", 30, "use of undeclared identifier 'cudaFoo'")).status == "predicted"
    )
    assert (
        clf.classify(tu, _err("main.cu", 30, "use of undeclared identifier 'cudaFooBar'")).status == "silent"
    )


def test_classify_environment_and_false_alarm(tmp_path: Path) -> None:
    tu = _tu(tmp_path)
    inc = pf.Finding("p/main.cu", 1, 1, "HIP214", "hipCUB is not installed", "hipcub/hipcub.hpp")
    clf = _classifier(tmp_path, [inc])
    env = clf.classify(tu, _err("main.cu", 1, "'hipcub/hipcub.hpp' file not found"))
    assert (env.status, env.environment) == ("environment", "hipcub/hipcub.hpp")
    bare = _classifier(tmp_path, [])
    assert (
        bare.classify(tu, _err("main.cu", 1, "'thrust/sort.h' file not found")).status == "environment_silent"
    )
    assert bare.classify(tu, _err("main.cu", 1, "'mine.h' file not found")).status == "silent"
    alarm = clf.classify(tu, pf.Outcome(True))
    assert alarm.status == "false_alarm" and alarm.rules == ["HIP214"]
    header_alarm = _classifier(tmp_path, [pf.Finding("p/k.h", 5, 1, "HIP204", "ptx", "asm")])
    assert (
        header_alarm.classify(tu, pf.Outcome(True, deps=(str(tmp_path / "p" / "k.h"),))).status
        == "false_alarm"
    )
    assert header_alarm.classify(tu, pf.Outcome(True)).status == "clean"


def test_an_undeclared_name_needs_a_finding_about_it(tmp_path: Path) -> None:
    tu = _tu(tmp_path)
    near = pf.Finding("p/main.cu", 31, 3, "HIP103", "CUDA_R_32F -> HIP_R_32F needs HIP 5.7", "CUDA_R_32F")
    clf = _classifier(tmp_path, [near])
    undeclared = _err("main.cu", 30, "use of undeclared identifier 'hipsparseGetErrorString'")
    assert clf.classify(tu, undeclared).status == "silent"  # a finding nearby about something else
    cause = pf.Finding("p/main.cu", 5, 1, "HIP103", "-> hipsparseGetErrorString needs HIP 6.0", "x")
    both = _classifier(tmp_path, [near, cause]).classify(tu, undeclared)
    assert both.status == "predicted" and both.findings == [cause.where()]
    assert clf.classify(tu, _err("main.cu", 30, "invalid operands")).status == "predicted"  # no name: near


def test_classify_causes_outside_the_translation(tmp_path: Path) -> None:
    tu = _tu(tmp_path)
    main = tmp_path / "p" / "main.cu"
    main.write_text(
        '#include "shrUtils.h"\n#include <cuda/pipeline>\nreal x;\n#ifndef FLOAT\n#error pick one\n#endif\n'
    )
    (tmp_path / "p" / "Makefile").write_text("CFLAGS = -Dreal=float -dc\n")
    clf = pf.Classifier(tmp_path, tmp_path, {}, 3, frozenset(), frozenset({"cuda/pipeline"}))
    missing = clf.classify(tu, _err("main.cu", 1, "'shrUtils.h' file not found"))
    assert missing.status == "input" and "shrUtils.h is not on this machine" in missing.environment
    # a CUDA header the translation left: the port's gap, not the input's
    assert clf.classify(tu, _err("main.cu", 2, "'cuda/pipeline' file not found")).status == "silent"
    flag = clf.classify(tu, _err("main.cu", 3, "unknown type name 'real'"))
    assert flag.status == "input" and "-Dreal" in flag.environment
    assert clf.classify(tu, _err("main.cu", 3, "unknown type name 'imag'")).status == "silent"
    assert clf.classify(tu, _err("main.cu", 5, "pick one")).status == "silent"  # FLOAT: no -D in the build
    (tmp_path / "p" / "Makefile").write_text("CFLAGS = -DFLOAT -dc\n")
    assert (
        pf.Classifier(tmp_path, tmp_path, {}, 3, frozenset())
        .classify(tu, _err("main.cu", 5, "pick one"))
        .status
        == "input"
    )
    rdc = clf.classify(tu, _err("main.cu", 3, "undefined hidden symbol: merge(int)"))
    assert rdc.status == "input" and "-fgpu-rdc" in rdc.environment


@pytest.mark.hipcc
@HIPCC_MISSING
def test_end_to_end_on_a_generic_tree(tmp_path: Path) -> None:
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "clean.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k(int *p) { p[0] = 1; }\n"
        "int main() { int *d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n"
    )
    (tree / "ptx.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k(int *p) {\n  int warp;\n"
        '  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));\n  p[0] = warp;\n}\n'
    )
    (tree / "typo.cu").write_text("#include <cuda_runtime.h>\nint f() { return 1 +; }\n")
    out = tmp_path / "out.json"
    assert pf.main([str(tree), "-j", "2", "--hip-version", "5.2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    status = {Path(v["tu"]).name: v["status"] for v in result["verdicts"]}
    assert status == {"clean.cu": "clean", "ptx.cu": "predicted", "typo.cu": "silent"}
    assert result["figures"]["rules"]["HIP204"]["predicted_tus"] == 1
