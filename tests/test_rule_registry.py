"""The rule registry (hipify_py/rules/registry.py) is the one list: what derives from it is current, every
id the code emits has its text in a module that emits it, and every declaration's fixtures exist."""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from fixture_cases import FIXTURES, cases

from hipify_py.engine.rule_texts import RULES
from hipify_py.pipeline.translate import translation_rules
from hipify_py.rules.detectors.registry import STEPS

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import gen_rules  # noqa: E402

DECLARED, TEXTS = gen_rules.collect()


def test_derived_files_are_current() -> None:
    stale = [
        p.relative_to(REPO).as_posix() for p, text in gen_rules.outputs().items() if p.read_text() != text
    ]
    assert not stale, f"stale: {stale}; run: python3 scripts/gen_rules.py"


def test_the_program_reads_the_declared_texts() -> None:
    assert dict(RULES) == {rule_id: rule for rule_id, (_, rule) in TEXTS.items()}


_ID = re.compile(r"HIP\d{3}")


def _emitted() -> dict[str, set[str]]:
    """Rule id -> modules whose code names it as a string ("HIP130"; docstrings and comments do not count)."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted((REPO / "hipify_py").rglob("*.py")):
        if path == gen_rules.TEXTS_FILE:
            continue
        module = ".".join(path.relative_to(REPO).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _ID.fullmatch(node.value):
                found[node.value].add(module)
    return found


def test_every_id_the_code_names_has_a_text() -> None:
    missing = sorted(set(_emitted()) - set(TEXTS))
    assert not missing, f"ids without a text (declare them in the module that emits them): {missing}"


def test_every_text_sits_in_a_module_that_emits_its_id() -> None:
    emitted = _emitted()
    astray = {rule_id: home for rule_id, (home, _) in TEXTS.items() if home not in emitted.get(rule_id, ())}
    assert not astray, f"texts in a module that never names their id: {astray}"


def _cases() -> list[str]:
    """Every fixture input, relative to tests/fixtures, without its suffix."""
    return sorted(c.input.relative_to(FIXTURES).with_suffix("").as_posix() for c in cases())


def _owns(pattern: str, case: str) -> bool:
    return case.startswith(pattern + "/") or fnmatch.fnmatchcase(case, pattern)


@pytest.mark.parametrize("declaration", DECLARED, ids=lambda d: d.module)
def test_declared_fixtures_exist(declaration: gen_rules.Declaration) -> None:
    if declaration.translate or declaration.detect or declaration.texts:
        assert declaration.fixtures, f"{declaration.module} declares no fixtures"
    cases = _cases()
    empty = [p for p in declaration.fixtures if not any(_owns(p, c) for c in cases)]
    assert not empty, f"{declaration.module}: fixture patterns that match no case: {empty}"


def test_every_fixture_case_has_an_owner() -> None:
    patterns = [p for d in DECLARED for p in d.fixtures]
    orphans = [
        c for c in _cases() if not c.startswith("buildfiles/") and not any(_owns(p, c) for p in patterns)
    ]
    assert not orphans, f"fixtures no declaration owns: {orphans}"


def test_the_orders_run_what_is_declared() -> None:
    declared = {fn for d in DECLARED for _, fn in d.translate}
    assert set(translation_rules()) == declared and len(translation_rules()) == len(declared)
    detectors = {fn for d in DECLARED for _, fn, _ in d.detect}
    assert {fn for fn, _ in STEPS} == detectors and len(STEPS) == len(detectors)
