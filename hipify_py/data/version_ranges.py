"""Hand-kept tables whose rows hold for a range of HIP versions (`since` <= target < `until`).

Shared by mappings/version-adaptations.yaml (adaptations.py), shims.yaml (shim_table.py) and
version-renames.yaml (renames.py): reading a table and its `sources`, the range test, and the
"one row per name at any target" lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from hipify_py.data.versions import compare_versions

Row = TypeVar("Row")


def holds_for(since: str | None, until: str | None, target: str) -> bool:
    if since is not None and compare_versions(target, since) < 0:
        return False
    return until is None or compare_versions(target, until) < 0


def range_text(since: str | None, until: str | None) -> str:
    if since and until:
        return f"HIP {since} to before {until}"
    if until:
        return f"HIP before {until}"
    return f"HIP {since} and later" if since else "every HIP version"


def read_table(path: Path) -> tuple[Mapping[str, Any], dict[str, str]]:
    """The YAML document and its `sources` (key -> where the facts come from)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    doc = yaml.load(path.read_bytes(), Loader=loader) or {}
    return doc, {str(k): str(v) for k, v in (doc.get("sources") or {}).items()}


def one_per_name(
    rows: Iterable[Row],
    target: str,
    name: Callable[[Row], str],
    holds: Callable[[Row, str], bool],
    error: Callable[[str], Exception],
) -> dict[str, Row]:
    """name -> the row that holds for `target`; two rows for one name at one target are a table bug."""
    found: dict[str, Row] = {}
    for row in rows:
        if holds(row, target):
            key = name(row)
            if key in found:
                raise error(f"two rows for {key} hold for HIP {target}")
            found[key] = row
    return found
