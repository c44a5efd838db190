"""The test tiers (docs/testing.md): the fast tier (`-m "not slow"`) keeps every fixture pair, so it still
shows that every rule does what its fixtures say; compile and build tests are never in it."""

from __future__ import annotations

import pytest
from fixture_cases import cases

COMPILERS = ("hipcc", "rocm", "wheel")


def test_every_fixture_pair_is_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    """Checked on the items of this run: a run that collected tests/test_fixtures.py has every case, none
    of them slow (whatever -m selected, a slow fixture test would be missing from a `not slow` run)."""
    items = [i for i in request.session.items if i.nodeid.startswith("tests/test_fixtures.py::test_fixture[")]
    if not items:
        pytest.skip("tests/test_fixtures.py is not part of this run")
    assert len(items) == len(cases())
    assert [i.nodeid for i in items if i.get_closest_marker("slow")] == []


def test_compile_and_build_tests_are_slow(request: pytest.FixtureRequest) -> None:
    """conftest marks every hipcc, rocm and wheel test slow, so `-m "not slow"` runs no compiler."""
    unmarked = [
        i.nodeid
        for i in request.session.items
        if any(i.get_closest_marker(m) for m in COMPILERS) and not i.get_closest_marker("slow")
    ]
    assert unmarked == []
