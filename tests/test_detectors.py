"""Pitfall detectors: rule registry completeness, fixture coverage, silence on HIP output, `explain`."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import check_probe_table
from fixture_cases import FIXTURES, Case, cases, parse_expected_diagnostics
from toolchains import Toolchain, params

from hipify_py.analysis.pp_branches import analyse, dead_branches
from hipify_py.cli.explain_cmd import format_markdown
from hipify_py.cli.main import main
from hipify_py.engine.rule_texts import RULES
from hipify_py.pipeline.translate import translate
from hipify_py.rules.detectors.memory import _evaluate
from hipify_py.rules.detectors.warp import _left_operand

ROOT = Path(__file__).resolve().parent.parent
DETECTOR_FIXTURES = FIXTURES / "detectors"
# Rules emitted by hipify_py/rules/detectors.py (HIP101/103-107 come from the identifier rule).
DETECTOR_RULES = {"HIP102", "HIP110", *(r for r in RULES if re.fullmatch(r"HIP(11[1-9]|2\d\d|3\d\d)", r))}


def _rules_in(path: Path) -> set[str]:
    return {line.split()[1] for line in parse_expected_diagnostics(path)}


def test_every_rule_is_documented() -> None:
    names = [r.name for r in RULES.values()]
    assert len(names) == len(set(names))
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and re.fullmatch(r"HIP[1-5]\d\d", rule_id)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule_id
        assert rule.title and "\n" not in rule.title, rule_id
        assert len(rule.hint) > 20 and len(rule.docs) > 40, rule_id


# HIP203 is left only for warp-sync calls the adaptation rule (rules/warp_sync.py) cannot structure:
# every call in a fixture is adapted to the target instead (tests/fixtures/warp_sync, test_warp_sync.py).
ADAPTED_RULES = {"HIP203"}


def test_every_detector_rule_has_a_firing_fixture() -> None:
    # rules with their own topic (collisions/, vector_ops/, ...) may fire outside detectors/
    fired = set().union(*(_rules_in(p) for p in FIXTURES.rglob("*.diagnostics")))
    assert fired >= DETECTOR_RULES - ADAPTED_RULES, sorted(DETECTOR_RULES - ADAPTED_RULES - fired)


def _positive_cases() -> list[Path]:
    return sorted(p for p in DETECTOR_FIXTURES.glob("*.cu") if p.with_name(f"{p.stem}_negative.cu").exists())


@pytest.mark.parametrize("positive", _positive_cases(), ids=lambda p: p.stem)
def test_negative_twin_stays_silent(positive: Path) -> None:
    """Each positive fixture has a `_negative` twin where the rules it tests do not fire."""
    tested = _rules_in(positive.with_suffix(".diagnostics")) & DETECTOR_RULES
    assert tested
    negative = positive.with_name(f"{positive.stem}_negative.diagnostics")
    assert not (_rules_in(negative) & tested)


def test_most_detector_fixtures_have_a_negative_twin() -> None:
    positives = [p for p in DETECTOR_FIXTURES.glob("*.cu") if not p.stem.endswith("_negative")]
    assert len(_positive_cases()) >= len(positives) - 2  # cooperative_launch, suppressed_and_protected


def _sources() -> list[tuple[str, bytes, Case | None]]:
    found: list[tuple[str, bytes, Case | None]] = [(c.id, c.input.read_bytes(), c) for c in cases()]
    found += [(str(p.relative_to(ROOT)), p.read_bytes(), None) for p in sorted(ROOT.glob("examples/*/*.cu*"))]
    return found


@pytest.mark.parametrize("name,source,case", _sources(), ids=lambda v: v if isinstance(v, str) else "")
def test_hip_output_reports_nothing_new(name: str, source: bytes, case: Case | None) -> None:
    """Run over the translator's own HIP output, the detectors find no rule more often than in the
    CUDA input: HIP names (hipLaunchKernelGGL in kernels, hipDeviceProp_t fields, hip* calls) never
    trigger a finding. Findings that persist are real pitfalls the rename does not fix (see
    docs/false-positives.md)."""
    options = case.options if case else None
    first = translate(source, options)
    again = translate(first.text, options)
    before = Counter(d.rule for d in first.diagnostics)
    after = Counter(d.rule for d in again.diagnostics)
    assert not after - before, name


def test_pitfalls_example_exercises_the_detectors() -> None:
    found = {d.rule for d in translate((ROOT / "examples/pitfalls/pitfalls.cu").read_bytes()).diagnostics}
    expected = {"HIP110", "HIP134", "HIP115", "HIP201", "HIP202", "HIP204", "HIP205", "HIP206"}
    expected |= {"HIP102", "HIP112", "HIP207", "HIP208", "HIP301", "HIP302", "HIP303", "HIP304"}
    assert expected <= found, sorted(expected - found)


def test_portable_examples_have_no_portability_findings() -> None:
    for path in ROOT.glob("examples/*/*.cu*"):
        if path.parent.name == "pitfalls":
            continue
        found = [d for d in translate(path.read_bytes()).diagnostics if d.rule in DETECTOR_RULES]
        assert not found, (path, [(d.line, d.rule, d.message) for d in found])


def test_no_duplicate_findings_at_one_spot() -> None:
    for path in [*DETECTOR_FIXTURES.glob("*.cu"), ROOT / "examples/pitfalls/pitfalls.cu"]:
        spots = [(d.start, d.rule) for d in translate(path.read_bytes()).diagnostics]
        assert len(spots) == len(set(spots)), path


@pytest.mark.parametrize(
    "text,operand",
    [
        (b"int w = (threadIdx.x + off) / 32;", b" (threadIdx.x + off) "),
        (b"x = 1.0f / 32;", b" 1.0f "),
        (b"if ((lane & 31) == 0)", b"lane "),
    ],
)
def test_left_operand(text: bytes, operand: bytes) -> None:
    op = max(text.find(b"/ 32"), text.find(b"& 31"))
    assert _left_operand(text, op, 0) == operand


@pytest.mark.parametrize(
    "expr,value",
    [(b"96 * 1024", 98304), (b"64 << 10", 65536), (b"sizeof(float) * 128", 512), (b"n * 4", None)],
)
def test_size_evaluation(expr: bytes, value: int | None) -> None:
    assert _evaluate(expr) == value


def test_sync_intrinsics_are_adapted_not_reported() -> None:
    """HIP203 (warp-sync call needs HIP >= 6.2) gives way to the adaptation for the target."""
    from hipify_py.engine.options import Options

    src = b"__global__ void k(int* x) { __syncwarp(); x[0] = __any_sync(0xffffffff, x[1]); }\n"
    for version in ("5.2", "6.2", "7.0"):
        result = translate(src, Options(hip_version=version))
        assert result.diagnostics == [], version
        assert b"0xffffffff," not in result.text, version


# -- preprocessor conditions under hipcc (pp_branches) --------------------------------------------
@pytest.mark.parametrize(
    "condition,amd,harmless",
    [
        (b"#ifdef __CUDA_ARCH__", 0, False),  # device path dropped on AMD
        (b"#ifndef __CUDA_ARCH__", 1, False),  # host path compiled for the AMD device
        (b"#if __CUDA_ARCH__ >= 800", 0, False),  # fast path of current GPUs dropped
        (b"#if __CUDA_ARCH__ < 600", 1, False),  # legacy path entered (undefined counts as 0)
        (b"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600", 0, True),  # as on sm_80..sm_90
        (b"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000", 0, True),  # Blackwell-only, like Hopper
        (b"#if __CUDA_ARCH__ >= 900", 0, False),  # differs between current GPUs: a real gate
        (b"#if defined(__CUDA_ARCH_FEAT_SM90_ALL)", 0, False),  # sm_90a only
        (b"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800", 1, True),
        (b"#if CUDA_VERSION >= 11000", 0, False),
        (b"#if defined(CUDA_VERSION) && CUDA_VERSION < 9000", 0, True),
        (b"#if CUDART_VERSION >= 11000 || defined(USE_ROCM)", 1, True),
        (b"#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600", 0, False),
        (b"#if MY_COMPILER(NVHPC) || __CUDA_ARCH__ >= 700", None, False),  # unknown function-like macro
        (b"#if _CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH__ >= 700", 0, False),  # CCCL: nvc++ only
        (b"#if UNKNOWN_FLAG && __CUDA_ARCH__ >= 700", 0, False),  # false whatever UNKNOWN_FLAG is
        (b"#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)", 0, False),  # CUTLASS: defined from __CUDA_ARCH__
        (
            b"#if __CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 8)",
            0,
            False,
        ),
        (b"#if defined(__CUDA_ARCH__) && \\\n    __CUDA_ARCH__ < 600", 0, True),  # continued line
    ],
)
def test_condition_under_hipcc(condition: bytes, amd: int | None, harmless: bool) -> None:
    branches = analyse(condition + b"\nx\n#endif\n")
    value = branches.amd.get(0)
    assert (None if value is None else int(bool(value))) == amd
    assert branches.harmless(0) == harmless
    assert bool(branches.dead) == (amd == 0)


def test_dead_branches_follow_if_elif_else_chains() -> None:
    src = b"""#if defined(USE_ROCM)
rocm
#elif CUDA_VERSION >= 12000
cuda12
#else
old
#endif
#ifndef __CUDA_ARCH__
host
#else
device
#endif
"""
    branches = dead_branches(src)
    dead = [src[a:b].strip() for a, b in branches.dead]
    assert dead == [b"cuda12", b"old", b"device"]
    assert branches.harmless(src.index(b"#elif"))  # never evaluated on ROCm: USE_ROCM is taken


def test_macros_defined_only_in_dead_branches_are_undefined() -> None:
    src = b"""#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MY_SM90_ENABLED
#endif
#if defined(MY_SM90_ENABLED)
wgmma
#endif
#if defined(OTHER_ENABLED)
kept
#endif
"""
    dead = [src[a:b].strip() for a, b in dead_branches(src).dead]
    assert b"wgmma" in dead and b"kept" not in dead


@pytest.mark.parametrize(
    "text", [b"#if 1 +", b"#if (1", b"#if defined(", b"#if 1 / 0", b"#if 1 << 99", b'#if "x"']
)
def test_malformed_conditions_are_unknown(text: bytes) -> None:
    assert analyse(text + b" __CUDA_ARCH__\nx\n#endif\n").dead == []


# -- hipify-py explain ----------------------------------------------------------------------------
def test_explain_prints_the_rule() -> None:
    result = CliRunner().invoke(main, ["explain", "HIP201"])
    assert result.exit_code == 0, result.output
    rule = RULES["HIP201"]
    for part in (rule.id, rule.name, "warning", rule.title, "warpSize", "wave64"):
        assert part in result.output


def test_explain_accepts_lower_case_and_several_ids() -> None:
    result = CliRunner().invoke(main, ["explain", "hip205", "HIP301"])
    assert result.exit_code == 0
    assert "HSA_XNACK=1" in result.output and "HIP301 cuda-version-macro" in result.output


def test_explain_list_has_every_rule() -> None:
    result = CliRunner().invoke(main, ["explain", "--list"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()] == sorted(RULES)


def test_explain_unknown_rule_exits_2() -> None:
    result = CliRunner().invoke(main, ["explain", "HIP999"])
    assert result.exit_code == 2
    assert "unknown rule id: HIP999" in result.output


def test_explain_without_arguments_is_a_usage_error() -> None:
    assert CliRunner().invoke(main, ["explain"]).exit_code == 2


def test_docs_rules_md_is_generated_from_the_registry() -> None:
    expected = format_markdown(sorted(RULES.values(), key=lambda r: r.id))
    assert (ROOT / "docs/rules.md").read_text() == expected, "run: hipify-py explain --list --markdown"


@pytest.mark.hipcc
@pytest.mark.rocm
def test_warp_size_constant_promise_holds_on_rocm7() -> None:
    """HIP218's fixture: ROCm 7.2 rejects exactly the flagged lines, ROCm 6.4 compiles the file."""
    from toolchains import by_version, require, syntax_check

    output = FIXTURES / "detectors" / "hip72" / "warp_size_constant.hip"
    flagged = {
        int(line.split(":")[0]) for line in output.with_suffix(".diagnostics").read_text().split()[::2]
    }
    proc = syntax_check(require(by_version("7.2")), output)
    failed = {int(m) for m in re.findall(rf"{re.escape(output.name)}:(\d+):\d+: error", proc.stderr)}
    assert proc.returncode != 0 and failed == flagged, proc.stderr[-3000:]
    older = syntax_check(require(by_version("6.4")), output)
    assert older.returncode == 0, older.stderr[-3000:]


@pytest.mark.hipcc
@pytest.mark.rocm
def test_half_atomics_compile_on_rocm7() -> None:
    """atomicAdd on __half/__half2 at 7.2: its hipcc has no such overload; the one written (HIP223)
    makes the output compile, and no call is left reported as HIP215."""
    from toolchains import by_version, require, syntax_check

    output = FIXTURES / "detectors" / "hip72" / "half_atomics.hip"
    rules = {line.split()[1] for line in output.with_suffix(".diagnostics").read_text().splitlines()}
    assert "HIP223" in rules and "HIP215" not in rules
    proc = syntax_check(require(by_version("7.2")), output)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.hipcc
@pytest.mark.rocm
@pytest.mark.parametrize("version", ["6.4", "7.2"])
def test_half_shuffles_promise_holds(version: str) -> None:
    """HIP215 for 16-bit shuffles: each release's hipcc rejects exactly the calls its fixture flags."""
    from toolchains import by_version, require, syntax_check

    output = FIXTURES / "detectors" / f"hip{version.replace('.', '')}" / "half_shuffles.hip"
    findings = output.with_suffix(".diagnostics").read_text().split()[::2]
    proc = syntax_check(require(by_version(version)), output)
    failed = {int(m) for m in re.findall(rf"{re.escape(output.name)}:(\d+):\d+: error", proc.stderr)}
    assert proc.returncode != 0 and failed == {int(f.split(":")[0]) for f in findings}, proc.stderr[-3000:]


@pytest.mark.hipcc
@pytest.mark.rocm
@pytest.mark.parametrize("version", ["6.4", "7.2"])
def test_half_bf16_cast_promise_holds(version: str) -> None:
    """HIP220: the release's hipcc rejects exactly the flagged casts (a template's at its instantiation);
    the negative twin, which goes through float, compiles."""
    from toolchains import by_version, require, syntax_check

    hipcc = require(by_version(version))
    output = FIXTURES / "detectors" / "hip72" / "half_bf16_casts.hip"
    findings = output.with_suffix(".diagnostics").read_text().split()[::2]
    proc = syntax_check(hipcc, output)
    failed = {int(m) for m in re.findall(rf"{re.escape(output.name)}:(\d+):\d+: error", proc.stderr)}
    assert proc.returncode != 0 and failed == {int(f.split(":")[0]) for f in findings}, proc.stderr[-3000:]
    negative = syntax_check(hipcc, output.with_name("half_bf16_casts_negative.hip"))
    assert negative.returncode == 0, negative.stderr[-3000:]


@pytest.mark.hipcc
@pytest.mark.rocm
def test_cub_warp_transpose_promise_holds() -> None:
    """HIP219: ROCm 6.4 fails on exactly the flagged instantiations (clang's notes name their lines); the
    negative twin compiles."""
    from toolchains import by_version, require, syntax_check

    hipcc = require(by_version("6.4"))
    output = DETECTOR_FIXTURES / "cub_warp_transpose.hip"
    findings = output.with_suffix(".diagnostics").read_text().split()[::2]
    proc = syntax_check(hipcc, output)
    note = rf"{re.escape(output.name)}:(\d+):\d+: note: in instantiation of function template "
    note += r"specialization 'run<"
    requested = {int(m) for m in re.findall(note, proc.stderr)}
    assert proc.returncode != 0 and requested == {int(f.split(":")[0]) for f in findings}, proc.stderr[-3000:]
    negative = syntax_check(hipcc, DETECTOR_FIXTURES / "cub_warp_transpose_negative.hip")
    assert negative.returncode == 0, negative.stderr[-3000:]


def test_needles_found_in_one_pass_are_the_needles_present() -> None:
    """The registry's one-pass needle search finds exactly the needles `in` the text, also where needles
    overlap, touch or contain one another."""
    from hipify_py.rules.detectors.registry import _WORD_NEEDLES, _present_words

    needles = sorted(_WORD_NEEDLES)
    texts = [a + b for a in needles for b in needles]
    texts += [a[1:] + b"\n" + b[:-1] for a in needles for b in needles]
    texts += [b"", b"__shfl_sync warpSize nvtxRangePush", b"\n".join(needles)]
    for text in texts:
        assert _present_words(text) == {n for n in needles if n in text}, text


def test_needle_trie_prefers_the_longest_needle_at_a_position() -> None:
    from hipify_py.rules.detectors.registry import _trie

    pattern = re.compile(_trie([b"ab", b"abc", b"b", b"bcd"]))
    assert [m.group() for m in pattern.finditer(b"abcd ab bcd")] == [b"abc", b"ab", b"bcd"]


@pytest.mark.parametrize("chain", params())
def test_device_props_table_is_current(chain: Toolchain) -> None:
    """scripts/probe_device_props.py (HIP115's fields of hipDeviceProp_t per release)."""
    check_probe_table("probe_device_props", chain)
