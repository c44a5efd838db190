"""Migration reports: terminal summary, JSON (validated against docs/report-schema.json), Markdown, SARIF."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from hipify_py.cli.main import main
from hipify_py.data.mappings import load_mappings
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.rule_texts import RULES
from hipify_py.report.json_report import build_report, render_json
from hipify_py.report.markdown import COLLAPSE_AFTER, inline, render_markdown
from hipify_py.report.sarif import build_sarif
from hipify_py.report.summary import RunInfo, display_path, end_position
from hipify_py.report.text import (
    MAX_PER_RULE,
    MAX_RULE_LINES,
    format_diagnostics,
    format_file_stats,
    format_summary,
)
from hipify_py.report.write import report_format
from hipify_py.run.outcome import FileOutcome, Status

REPO = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((REPO / "docs" / "report-schema.json").read_text())

KERNEL = b"""#include <cuda_runtime.h>

__global__ void lanes(int *out)
{
    out[threadIdx.x] = threadIdx.x % 32;
}

int main()
{
    int *p;
    cudaMalloc(&p, 64 * sizeof(int));
    lanes<<<1, 64>>>(p);
    cudaStreamAttrValue attr = {};
    cudaFree(p);
    return 0;
}
"""
PLAIN = b"int add(int a, int b) { return a + b; }\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small tree; the tests run inside it (reports show paths relative to the cwd)."""
    (tmp_path / "src" / "sub dir").mkdir(parents=True)
    (tmp_path / "src" / "kernel.cu").write_bytes(KERNEL)
    (tmp_path / "src" / "sub dir" / "second.cu").write_bytes(KERNEL.replace(b"lanes", b"more"))
    (tmp_path / "src" / "plain.cu").write_bytes(PLAIN)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def convert(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["convert", *args], catch_exceptions=False)
    return result.exit_code, result.output


def validate(report: dict) -> None:
    jsonschema.validate(report, SCHEMA, cls=jsonschema.Draft202012Validator)


# -- JSON ---------------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize(
    "mode", [["--diff"], ["--check"], ["-o", "out"], ["--in-place"], ["--in-place", "--annotate"]]
)
def test_json_report_in_every_mode(project: Path, mode: list[str]) -> None:
    code, _ = convert("src", *mode, "--report", "r.json")
    assert code == (1 if mode == ["--check"] else 0)
    report = json.loads((project / "r.json").read_text())
    validate(report)
    files = report["files"]
    assert [f["path"] for f in files] == ["src/kernel.cu", "src/plain.cu", "src/sub dir/second.cu"]
    kernel = files[0]
    assert kernel["status"] == "changed" and kernel["lines"] == 16 and kernel["kind"] == "source"
    assert kernel["identifiers"] == {"runtime": 2} and kernel["counts"]["launches"] == 1
    assert kernel["output"] == ("out/kernel.cu" if "-o" in mode else "src/kernel.cu")
    assert files[1]["status"] == "unchanged" and files[1]["diagnostics"] == []
    found = {(d["rule"], d["line"], d["col"]) for d in kernel["diagnostics"]}
    assert {("HIP201", 5, 36), ("HIP101", 13, 5)} <= found
    assert report["run"]["mode"] == {"-o": "output"}.get(mode[0], mode[0].lstrip("-"))
    assert report["run"]["options"]["annotate"] == ("--annotate" in mode)


def test_json_totals_add_up_and_name_the_rules(project: Path) -> None:
    convert("src", "--diff", "--report", "r.json")
    report = json.loads((project / "r.json").read_text())
    totals, files = report["totals"], report["files"]
    assert totals["files"] == 3 and totals["changed"] == 2 and totals["unchanged"] == 1
    assert totals["lines"] == sum(f["lines"] for f in files) == 33
    assert totals["converted"] == sum(f["converted"] for f in files) == 4
    assert totals["unsupported"] == 2 and totals["launches"] == 2
    assert totals["conversion_percent"] == pytest.approx(66.7)
    by_rule = Counter(d["rule"] for f in files for d in f["diagnostics"])
    assert totals["diagnostics"]["by_rule"] == dict(by_rule)
    assert totals["diagnostics"]["total"] == sum(by_rule.values())
    assert [r["id"] for r in report["rules"]] == sorted(by_rule)
    for rule in report["rules"]:
        assert rule["title"] == RULES[rule["id"]].title and rule["hint"] == RULES[rule["id"]].hint
    assert report["mappings"]["digest"] == load_mappings().digest
    assert report["tool"]["name"] == "hipify-py"


def test_json_diagnostic_fields(project: Path) -> None:
    convert("src/kernel.cu", "--diff", "--report", "r.json")
    diagnostics = json.loads((project / "r.json").read_text())["files"][0]["diagnostics"]
    (diag,) = [d for d in diagnostics if d["rule"] == "HIP101"]
    assert diag["severity"] == "error"
    assert (diag["line"], diag["col"], diag["end_line"], diag["end_col"]) == (13, 5, 13, 24)
    assert diag["source_line"] == "    cudaStreamAttrValue attr = {};"
    assert KERNEL[diag["offset"] : diag["offset"] + diag["length"]] == b"cudaStreamAttrValue"
    assert diag["hint"] == RULES["HIP101"].hint and "cudaStreamAttrValue" in diag["message"]


def test_reports_are_deterministic(project: Path) -> None:
    convert("src", "--diff", "--report", "a.json", "--report", "a.sarif", "--report", "a.md")
    # second run: other argument order, results from the cache
    convert("src/sub dir", "src", "--diff", "--report", "b.json", "--report", "b.sarif", "--report", "b.md")
    for ext in ("json", "sarif", "md"):
        assert (project / f"a.{ext}").read_bytes() == (project / f"b.{ext}").read_bytes(), ext


def test_paths_outside_the_cwd_are_absolute(tmp_path: Path) -> None:
    assert display_path(tmp_path / "x" / "y.cu", tmp_path) == "x/y.cu"
    assert display_path(tmp_path / "y.cu", tmp_path / "x") == (tmp_path / "y.cu").as_posix()


def test_unreadable_and_skipped_files_are_reported(project: Path) -> None:
    (project / "src" / "blob.cu").write_bytes(b"\0\1\2")
    convert("src", "--diff", "--report", "r.json", "--report", "r.md")
    report = json.loads((project / "r.json").read_text())
    validate(report)
    (blob,) = [f for f in report["files"] if f["path"] == "src/blob.cu"]
    assert blob["status"] == "skipped" and "binary" in blob["message"]
    assert "`src/blob.cu` (skipped)" in (project / "r.md").read_text()


# -- format selection and writing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("r.json", "json"), ("R.MD", "markdown"), ("r.sarif", "sarif"), ("r.sarif.json", "sarif")],
)
def test_format_from_the_name(name: str, fmt: str) -> None:
    assert report_format(Path(name)) == fmt


def test_unknown_report_name_is_a_usage_error_before_converting(project: Path) -> None:
    code, output = convert("src", "--in-place", "--report", "r.txt")
    assert code == 2 and "report format" in output
    assert (project / "src" / "kernel.cu").read_bytes() == KERNEL  # nothing converted


def test_explicit_report_format_and_new_directories(project: Path) -> None:
    code, _ = convert("src", "--diff", "--report", "reports/x.txt", "--report-format", "sarif")
    assert code == 0
    assert json.loads((project / "reports" / "x.txt").read_text())["version"] == "2.1.0"
    assert not list((project / "reports").glob("*.tmp"))  # written atomically, no leftovers


def test_unwritable_report_fails(project: Path) -> None:
    (project / "afile").write_text("")
    code, output = convert("src", "--diff", "--report", "afile/r.json")
    assert code == 2 and "cannot write report" in output


# -- SARIF --------------------------------------------------------------------------------------


def test_sarif_essentials(project: Path) -> None:
    code, _ = convert("src", "--check", "--report", "r.sarif")
    assert code == 1
    sarif = json.loads((project / "r.sarif").read_text())
    assert sarif["version"] == "2.1.0" and "sarif-2.1.0" in sarif["$schema"]
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "hipify-py" and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted({r["ruleId"] for r in run["results"]})
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert len(run["results"]) >= 4
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == {"HIP101": "error", "HIP201": "warning"}.get(
            result["ruleId"], result["level"]
        )
        assert result["message"]["text"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%" and not artifact["uri"].startswith("/")
        region = location["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
        assert region["snippet"]["text"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"src/kernel.cu", "src/sub%20dir/second.cu"}
    fingerprints = [r["partialFingerprints"]["hipifyPy/v1"] for r in run["results"]]
    assert len(set(fingerprints)) == len(fingerprints)


def test_sarif_fingerprints_survive_moved_lines(project: Path) -> None:
    convert("src/kernel.cu", "--diff", "--report", "a.sarif")
    (project / "src" / "kernel.cu").write_bytes(b"// a new first line\n" + KERNEL)
    convert("src/kernel.cu", "--diff", "--report", "b.sarif")

    def prints(name: str) -> dict[str, int]:
        results = json.loads((project / name).read_text())["runs"][0]["results"]
        return {
            r["partialFingerprints"]["hipifyPy/v1"]: r["locations"][0]["physicalLocation"]["region"][
                "startLine"
            ]
            for r in results
        }

    before, after = prints("a.sarif"), prints("b.sarif")
    assert before.keys() == after.keys()
    assert all(after[k] == before[k] + 1 for k in before)


def outcome(*diagnostics: Diagnostic, path: str = "src/a.cu") -> FileOutcome:
    return FileOutcome(Path(path), Status.CHANGED, output=Path(path), diagnostics=list(diagnostics), lines=3)


def make(rule: str, line: int, col: int, length: int, source_line: str, message: str = "m") -> Diagnostic:
    severity = RULES[rule].severity if rule in RULES else Severity.WARNING
    return Diagnostic(rule, severity, 100, 100 + length, line, col, message, "hint", source_line)


def test_sarif_columns_count_code_points_and_multiline_ranges_are_clipped() -> None:
    line = 's = "\u00e9\u00e9"; x = t % 32;'  # two 2-byte characters before the finding
    byte_col = line.encode().index(b"% 32") + 1
    d = make("HIP201", 7, byte_col, 4, line)
    region = build_sarif([outcome(d)])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (region["startColumn"], region["endColumn"]) == (line.index("% 32") + 1, line.index("% 32") + 5)
    long = make("HIP201", 2, 5, 500, "    foo(a,")
    assert end_position(long) == (2, len("    foo(a,") + 1)


# -- Markdown -----------------------------------------------------------------------------------


def test_markdown_report(project: Path) -> None:
    convert("src", "--diff", "--report", "r.md")
    md = (project / "r.md").read_text()
    assert md.startswith("## hipify-py migration report")
    assert "| Files | Changed | Unchanged |" in md and "| 3 | 2 | 1 |" in md
    assert "### CUDA references converted by family" in md and "| runtime | 4 |" in md
    assert "### HIP101 `unsupported-api`: CUDA API with no HIP counterpart" in md
    assert f"**Fix:** {inline(RULES['HIP101'].hint)}" in md
    assert "- [src/kernel.cu:13](src/kernel.cu#L13) cudaStreamAttrValue has no HIP counterpart" in md
    assert "(src/sub%20dir/second.cu#L5)" in md  # link targets are URL-encoded
    assert "<details><summary>Per file</summary>" in md  # several files


def test_markdown_collapses_long_lists_and_escapes_html() -> None:
    many = [make("HIP201", n, 1, 2, "x % 32", "`% 32` in lane math") for n in range(1, COLLAPSE_AFTER + 2)]
    md = render_markdown([outcome(*many), outcome(make("HIP101", 1, 1, 3, "#include <x.h>", "<x.h> gone"))])
    assert f"<details><summary>{COLLAPSE_AFTER + 1} locations</summary>" in md
    assert "\\<x.h> gone" in md and "`% 32` in lane math" in md  # no raw HTML tag, code spans kept
    few = render_markdown([outcome(make("HIP201", 1, 1, 2, "x % 32"))])
    assert "locations</summary>" not in few and "Per file" not in few
    assert "No diagnostics" in render_markdown([outcome()])


def test_inline_escaping() -> None:
    escaped = "\\_\\_launch_bounds\\_\\_ a\\|b hipDeviceProp_t `a\\|b`"
    assert inline("__launch_bounds__ a|b hipDeviceProp_t `a|b`") == escaped


# -- terminal -----------------------------------------------------------------------------------


def test_terminal_summary_and_stats(project: Path) -> None:
    code, output = convert("src", "--diff", "--stats", "--show", "none")
    assert code == 0
    assert (
        "src/kernel.cu: changed: 16 lines; 2 refs converted (runtime 2); 1 unsupported; 1 launches" in output
    )
    assert "src/plain.cu: unchanged: 1 lines; 0 refs converted" in output
    assert "CUDA refs converted: 4 (runtime 4); unsupported: 2 (66.7% converted)" in output
    assert "    HIP101 unsupported-api" in output


def test_summary_fits_one_screen() -> None:
    ids = sorted(RULES)[: MAX_RULE_LINES + 5]
    text = format_summary([outcome(*(make(i, 1, 1, 1, "x") for i in ids))])
    assert len(text.splitlines()) <= MAX_RULE_LINES + 5
    assert "... 5 more rule(s), 5 diagnostic(s): see --report" in text
    errors_first = [line.split()[0] for line in text.splitlines() if line.startswith("    HIP")]
    severities = [RULES[i].severity for i in errors_first]
    assert severities == sorted(severities, reverse=True)


def test_file_stats_line() -> None:
    o = outcome(make("HIP201", 1, 1, 1, "x"), make("HIP201", 2, 1, 1, "y"))
    o.counts.update({"identifiers.runtime": 3, "identifiers.blas": 1, "launches": 2})
    assert format_file_stats(o) == (
        "src/a.cu: changed: 3 lines; 4 refs converted (runtime 3, blas 1); 2 launches; HIP201 x2"
    )


def test_library_callers_need_no_run_info() -> None:
    report = build_report([outcome(make("HIP201", 1, 1, 1, "x"))])
    validate(report)
    assert json.loads(render_json([outcome()], RunInfo(mode="diff")))["run"]["mode"] == "diff"


def test_terminal_lines_cap_each_rule_per_file_and_give_the_hint_once() -> None:
    many = [
        Diagnostic("HIP204", Severity.ERROR, i, i + 3, i + 1, 5, f"asm {i}", "use a builtin", f"asm({i});")
        for i in range(MAX_PER_RULE + 3)
    ]
    few = [Diagnostic("HIP201", Severity.WARNING, 0, 2, 99, 1, "warp", "use warpSize", "x % 32")]
    outcome = FileOutcome(Path("k.cu"), Status.CHANGED, diagnostics=many + few)
    lines = format_diagnostics(outcome)
    assert [line for line in lines if line.startswith("k.cu:") and "HIP204 asm" in line] == [
        f"k.cu:{i + 1}:5: error: HIP204 asm {i}" for i in range(MAX_PER_RULE)
    ]
    assert lines.count("    hint: use a builtin") == 1 and "    hint: use warpSize" in lines
    assert "k.cu:99:1: warning: HIP201 warp" in lines
    assert lines[-1] == "k.cu: ... 3 more HIP204 finding(s) in this file (see --report)"
    assert not any("more HIP201" in line for line in lines)
    # the threshold applies before counting: hidden severities neither print nor count
    assert not any("HIP201" in line for line in format_diagnostics(outcome, Severity.ERROR))
