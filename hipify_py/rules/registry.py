"""The rule registry: each rule module declares itself once, at its end, with `declare(__name__, ...)`.

A declaration says everything the rest of the program needs to know about a module's rules:
- `translate`: {order: fn} of the rules that edit (`fn(ctx) -> RuleResult`); `translation_rules()` runs
  them by ascending order key (order matters only for insertions at one offset, kept in that order);
- `detect`: (order, fn, needles) of report-only detectors (`fn(ctx, scan)`, rules/detectors/registry.py);
  needles: byte strings of which a file must contain one for the detector to run, () = always;
- `texts`: the `Rule` texts (id, name, severity, title, fix, explanation) of the ids whose home this
  module is: the ids it alone emits, or the concept it owns where several emit one id;
- `loads` (called with the target HIP version), `tables` (no argument), `views` (the resolved target):
  the tables the module loads on first use, preloaded before a pool forks (`preload_rule_tables`);
- `fixtures`: the fixture folders or cases (globs, relative to tests/fixtures) that test it.

Everything that lists rules derives from here: `translation_rules()` and `preload_rule_tables`
(pipeline/translate.py), the detectors' STEPS, and, through `scripts/gen_rules.py`, the rule texts
`engine/rule_texts.py` serves (`explain`, reports, SARIF, `ctx.diag`), docs/rules.md and the rule table
of docs/architecture.md. Modules are found by listing this package (and rules/detectors/): adding a
rule is adding a module (docs/architecture.md, "A rule").
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from hipify_py.engine.diagnostics import Rule
from hipify_py.rules import RuleFn, RuleResult

Detect = Callable[..., RuleResult]  # fn(ctx, scan): see rules/detectors/registry.py


class Declaration:
    """What one module declares (see the module docstring).

    why a plain class, not a NamedTuple: typing.NamedTuple checks each field's annotation when the class
    is made (~0.3 ms of every start that imports the rules)"""

    __slots__ = ("detect", "fixtures", "loads", "module", "tables", "texts", "translate", "views")

    def __init__(
        self,
        module: str,
        translate: tuple[tuple[int, RuleFn], ...],  # (order, fn), in module order
        detect: tuple[tuple[int, Detect, tuple[bytes, ...]], ...],  # (order, fn, needles)
        texts: tuple[Rule, ...],
        loads: tuple[Callable[[str | None], Any], ...],
        tables: tuple[Callable[[], Any], ...],
        views: tuple[Callable[[str], Any], ...],
        fixtures: tuple[str, ...],
    ) -> None:
        self.module, self.translate, self.detect, self.texts = module, translate, detect, texts
        self.loads, self.tables, self.views, self.fixtures = loads, tables, views, fixtures


_DECLARED: dict[str, Declaration] = {}


def declare(
    module: str,
    *,
    translate: Mapping[int, RuleFn] | None = None,
    detect: tuple[tuple[int, Detect, tuple[bytes, ...]], ...] = (),
    texts: tuple[Rule, ...] = (),
    loads: tuple[Callable[[str | None], Any], ...] = (),
    tables: tuple[Callable[[], Any], ...] = (),
    views: tuple[Callable[[str], Any], ...] = (),
    fixtures: tuple[str, ...] = (),
) -> Declaration:
    """Record `module`'s rules (see the module docstring); the declaration, kept as the module's DECLARED."""
    found = Declaration(
        module, tuple((translate or {}).items()), detect, texts, loads, tables, views, fixtures
    )
    _DECLARED[module] = found
    return found


_PACKAGES = ("hipify_py.rules", "hipify_py.rules.detectors")


_LISTED: set[str] = set()  # packages whose modules are all imported


def _import_package(package: str) -> None:
    """Import every module of `package` (a directory listing: pkgutil costs ~0.8 ms to import)."""
    if package in _LISTED:
        return
    folder = os.path.dirname(importlib.import_module(package).__file__ or "")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py") and name != "__init__.py" and f"{package}.{name[:-3]}" not in sys.modules:
            importlib.import_module(f"{package}.{name[:-3]}")
    _LISTED.add(package)


def declarations(packages: tuple[str, ...] = _PACKAGES) -> tuple[Declaration, ...]:
    """Every declaration of the rule packages (and of any other module imported so far), by module name."""
    for package in packages:
        _import_package(package)
    return tuple(_DECLARED[m] for m in sorted(_DECLARED))


def translation_rules() -> tuple[RuleFn, ...]:
    """The rules that edit, by their order keys."""
    steps = sorted(((order, fn) for d in declarations() for order, fn in d.translate), key=lambda s: s[0])
    _unique([order for order, _ in steps], "translate")
    return tuple(fn for _, fn in steps)


def detector_steps() -> tuple[tuple[Detect, tuple[bytes, ...]], ...]:
    """(detector, needles) by their order keys: the order their findings are emitted in."""
    # why only rules/detectors/: a detector declared elsewhere would run only once its module was imported
    found = [s for d in declarations(_PACKAGES[1:]) if d.module.startswith(_PACKAGES[1]) for s in d.detect]
    steps = sorted(found, key=lambda s: s[0])
    _unique([order for order, _, _ in steps], "detect")
    return tuple((fn, needles) for _, fn, needles in steps)


def _unique(orders: list[int], kind: str) -> None:
    if len(orders) != len(set(orders)):
        raise ValueError(f"two {kind} steps declare one order key: {sorted(orders)}")


def preload_steps() -> tuple[
    tuple[Callable[[str | None], Any], ...], tuple[Callable[[], Any], ...], tuple[Callable[[str], Any], ...]
]:
    """(loads, tables, views) of every declaration, by module name: what `preload_rule_tables` calls."""
    found = declarations()
    return (
        tuple(f for d in found for f in d.loads),
        tuple(f for d in found for f in d.tables),
        tuple(f for d in found for f in d.views),
    )
