"""docs/architecture.md is true to the tree: every layer of tests/test_layers.py is in its table, every
module it names exists, every rule module is named in it, and the template rule it quotes is the real one."""

from __future__ import annotations

import re
from pathlib import Path

from test_layers import LAYERS

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "hipify_py"
DOC = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
_MODULE = re.compile(r"[\w./]*\.py\b")


def _layer_rows() -> list[tuple[list[str], list[Path], str]]:
    """(layer names, folders, what-lives-there text) of each row of the Layers table."""
    section = DOC.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[1].startswith("`hipify_py/"):
            continue
        folders = [REPO / f.strip("`/") for f in re.findall(r"`hipify_py/\w+/`", cells[1])]
        rows.append(([n.strip() for n in cells[0].split(",")], folders, cells[2]))
    return rows


def _inline_code() -> list[str]:
    prose = re.sub(r"```.*?```", "", DOC, flags=re.S)
    return re.findall(r"`([^`\n]+)`", prose)


def test_every_layer_is_in_the_table() -> None:
    named = {name for names, _, _ in _layer_rows() for name in names}
    assert named == set(LAYERS), f"layers in test_layers.py but not the doc: {set(LAYERS) - named}; " + (
        f"in the doc only: {named - set(LAYERS)}"
    )
    for names, folders, _ in _layer_rows():
        assert folders and all(f.is_dir() for f in folders), (names, folders)


def test_modules_named_in_the_layer_table_exist() -> None:
    missing = []
    for names, folders, text in _layer_rows():
        for code in re.findall(r"`([^`]+)`", text):
            for name in _MODULE.findall(code):
                where = [PACKAGE / name] if "/" in name else [folder / name for folder in folders]
                if not any(path.is_file() for path in where):
                    missing.append(f"{name} ({', '.join(names)})")
    assert not missing, f"named in the Layers table, not in the tree: {missing}"


def test_module_paths_named_anywhere_exist() -> None:
    missing = []
    for code in _inline_code():
        for name in _MODULE.findall(code):
            if "/" not in name or name.startswith(("hipify_py/mappings_data", "<")):
                continue
            candidates = [REPO / name, PACKAGE / name]
            if not any(path.is_file() for path in candidates):
                missing.append(name)
    assert not missing, f"docs/architecture.md names paths that do not exist: {sorted(set(missing))}"


def test_every_rule_module_is_named() -> None:
    named = {m.removeprefix("hipify_py/") for code in _inline_code() for m in _MODULE.findall(code)}
    modules = {
        p.relative_to(PACKAGE).as_posix()
        for p in (PACKAGE / "rules").rglob("*.py")
        if p.name != "__init__.py"
    }
    assert not modules - named, f"rule modules docs/architecture.md does not name: {sorted(modules - named)}"


def test_the_template_rule_is_quoted_as_it_is() -> None:
    section = DOC.split("## A template rule to copy", 1)[1].split("\n## ", 1)[0]
    template = re.search(r"`(rules/[\w/]+\.py)`", section)
    assert template is not None
    source = (PACKAGE / template.group(1)).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks
    for block in blocks:
        assert block in source, (
            f"docs/architecture.md quotes code {template.group(1)} no longer has:\n{block}"
        )
