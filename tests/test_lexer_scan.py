"""lexer.scan() (the fast one-pass path used for macro bodies) agrees with skipped_spans()/identifiers()."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipify_py.engine import lexer

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

EDGE_CASES = [
    b"",
    b"a.b->c . d -> e",
    b'x = "str \\" still" + y; // c "not" a string\n z',
    b"/* unterminated comment cudaMalloc",
    b'"unterminated string cudaFree\n next',
    b"1'000'000 + 0x1F'FF + .5e+3f + 'c' + u8'x' + L'\\''",
    b'R"delim(raw "quoted" cudaMalloc)delim" tail',
    b"args... __VA_ARGS__ x...y",
    b"a#b ## c \\\n d",
    "ünïcode /* ü */ name".encode(),
]


def _reference(text: bytes, base: int) -> tuple[list[tuple[int, int]], set[int]]:
    members = {t.start for t in lexer.identifiers(text, base) if t.member}
    return lexer.skipped_spans(text, base), members


@pytest.mark.parametrize("text", EDGE_CASES)
def test_scan_matches_reference_on_edge_cases(text: bytes) -> None:
    assert lexer.scan(text, 7) == _reference(text, 7)


def test_scan_matches_reference_on_every_fixture_and_example() -> None:
    paths = [p for root in (FIXTURES, EXAMPLES) for p in sorted(root.rglob("*")) if p.is_file()]
    assert len(paths) > 50
    for path in paths:
        text = path.read_bytes()
        assert lexer.scan(text) == _reference(text, 0), path


Found = tuple[list[tuple[int, int]], set[int]]


def _upto(found: Found, offset: int) -> Found:
    skipped, members = found
    return [s for s in skipped if s[0] <= offset], {m for m in members if m <= offset}


@pytest.mark.parametrize("text", EDGE_CASES)
def test_scanner_read_in_steps_agrees_with_scan(text: bytes) -> None:
    """Context reads a region's Scanner only up to each token it classifies: up to any offset, what it
    has read is what scan() finds there, and reading on ends with scan()'s results."""
    whole = lexer.scan(text, 7)
    scanner = lexer.Scanner(text, 7)
    for offset in range(7, 7 + len(text) + 2):
        scanner.through(offset)
        assert _upto((scanner.skipped, scanner.members), offset) == _upto(whole, offset)
    assert (scanner.skipped, scanner.members) == whole


def test_scanner_on_every_fixture_at_scattered_offsets() -> None:
    paths = [p for p in sorted(FIXTURES.rglob("*.cu")) if p.is_file()]
    for path in paths:
        text = path.read_bytes()
        whole = lexer.scan(text)
        scanner = lexer.Scanner(text)
        for offset in range(0, len(text), 97):
            scanner.through(offset)
            assert _upto((scanner.skipped, scanner.members), offset) == _upto(whole, offset), path
