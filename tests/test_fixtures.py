"""Every before/after fixture pair, plus idempotence over each expected output."""

from __future__ import annotations

import pytest
from fixture_cases import Case, cases, parse_expected_diagnostics

from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.pipeline.translate import translate
from hipify_py.project.option_macros import settle

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture(case: Case) -> None:
    result = translate(case.input.read_bytes(), case.options)
    assert result.text.decode("utf-8", "replace") == case.expected.read_bytes().decode("utf-8", "replace")
    assert result.text == case.expected.read_bytes()  # byte-exact (CRLF, BOM, invalid UTF-8 kept)
    if case.diagnostics is not None:
        expected = parse_expected_diagnostics(case.diagnostics)
        # the fixture is the whole project: what the CLI reports when it converts this one file
        final = settle(result.diagnostics, dict.fromkeys(result.defines, ""))
        got = {_entry(d, expected) for d in final}
        assert got == expected


def _entry(d: Diagnostic, expected: set[str]) -> str:
    """`line:col RULE`, with the severity when the expectation names one (`line:col RULE warning`)."""
    short = f"{d.line}:{d.col} {d.rule}"
    return f"{short} {d.severity}" if any(e.startswith(short + " ") for e in expected) else short


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture_idempotent(case: Case) -> None:
    expected = case.expected.read_bytes()
    assert translate(expected, case.options).text == expected


def test_there_are_many_fixtures() -> None:
    assert len(CASES) >= 12
