"""Every before/after fixture pair, plus idempotence over each expected output."""

from __future__ import annotations

import dataclasses

import pytest
from fixture_cases import Case, cases, parse_expected_diagnostics

from hipify_py.translate import translate

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture(case: Case) -> None:
    result = translate(case.input.read_bytes(), case.options)
    assert result.text.decode("utf-8", "replace") == case.expected.read_bytes().decode("utf-8", "replace")
    assert result.text == case.expected.read_bytes()  # byte-exact (CRLF, BOM, invalid UTF-8 kept)
    if case.diagnostics is not None:
        got = {f"{d.line}:{d.col} {d.rule}" for d in result.diagnostics}
        assert got == parse_expected_diagnostics(case.diagnostics)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fixture_idempotent(case: Case) -> None:
    expected = case.expected.read_bytes()
    options = dataclasses.replace(case.options, annotate=case.options.annotate)
    assert translate(expected, options).text == expected


def test_there_are_many_fixtures() -> None:
    assert len(CASES) >= 12
