"""`hipify-py mappings`: look up CUDA/HIP names in the mapping tables, or print per-family totals."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import click

from hipify_py.data.mappings import load_mappings
from hipify_py.data.schema import FAMILY_ORDER, Entry, Mappings

_GLOB_CHARS = frozenset("*?[")
_NONE = "-"
_VERSION_FIELDS = ("added", "deprecated", "changed", "removed", "experimental")


def _ordered_families(mappings: Mappings) -> list[str]:
    """Built-in families in precedence order, then user (custom) families by name."""
    known = [f for f in FAMILY_ORDER if f in mappings.families]
    return known + sorted(f for f in mappings.families if f not in FAMILY_ORDER)


def name_matcher(query: str) -> Callable[[str | None], bool]:
    """Exact match, or a case-sensitive fnmatch glob when the query has glob characters."""
    if _GLOB_CHARS.isdisjoint(query):
        return lambda name: name == query
    pattern = re.compile(fnmatch.translate(query))  # compiled once: the tables have ~9000 rows
    return lambda name: name is not None and pattern.match(name) is not None


def find_entries(mappings: Mappings, query: str, families: Sequence[str] = ()) -> list[Entry]:
    """Every row whose CUDA, HIP or ROC name matches, in family order then table order."""
    matches = name_matcher(query)
    found = []
    for family in _ordered_families(mappings):
        if families and family not in families:
            continue
        found.extend(
            e for e in mappings.families[family] if matches(e.cuda) or matches(e.hip) or matches(e.roc)
        )
    return found


def status_words(entry: Entry) -> list[str]:
    """supported/unsupported first, then every caveat the tables record for the name."""
    words = ["supported" if entry.supported else "unsupported"]
    if entry.group_status == "deprecated" or entry.cuda_deprecated or entry.hip_deprecated:
        words.append("deprecated")
    if entry.group_status == "removed" or entry.cuda_removed or entry.hip_removed:
        words.append("removed")
    if entry.hip_experimental or entry.roc_experimental:
        words.append("experimental")
    return words


def side_versions(entry: Entry, side: str) -> str:
    """Versions of one side (cuda/hip/roc), e.g. 'added 11.2, deprecated 12.0'; empty if none."""
    parts = []
    for field in _VERSION_FIELDS:
        value = getattr(entry, f"{side}_{field}", "")  # cuda_experimental does not exist: ""
        if value:
            parts.append(f"{field} {value}")
    return ", ".join(parts)


def _side_labels(mappings: Mappings, entry: Entry) -> dict[str, str]:
    library = mappings.libraries.get(entry.family, {})
    return {side: library.get(side, side.upper()) for side in ("cuda", "hip", "roc")}


def _has_roc_side(mappings: Mappings, entry: Entry) -> bool:
    return entry.roc is not None or "roc" in mappings.libraries.get(entry.family, {})


def aligned(rows: Sequence[Sequence[str]], right: Iterable[int] = ()) -> list[str]:
    """Rows of cells -> lines with every column padded to its widest cell."""
    right_cols = set(right)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            c.rjust(w) if i in right_cols else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def format_entry(mappings: Mappings, entry: Entry) -> list[str]:
    """A readable block for one row: one line per side with its name and versions."""
    labels = _side_labels(mappings, entry)
    sides = ["cuda", "hip", "roc"] if _has_roc_side(mappings, entry) else ["cuda", "hip"]
    rows = [[labels[s], getattr(entry, s) or _NONE, side_versions(entry, s)] for s in sides]
    group = entry.group + (f" [{entry.group_status}]" if entry.group_status else "")
    rows.append(["group", group or _NONE, ""])
    if entry.kind:
        rows.append(["kind", entry.kind, ""])
    rows.append(["status", ", ".join(status_words(entry)), ""])
    lines = aligned(rows)
    absent = mappings.absent_in.get(entry.hip or "")
    if absent:  # why: the tables' HIP version is wrong for this name (scripts/check_hip_headers.py)
        width = max(len(row[0]) for row in rows)
        note = f"not in the HIP {absent} headers: HIP103 when targeting {absent} or older"
        lines.append(f"{'checked':<{width}}  {note}")
    header = f"{entry.cuda}  ({entry.family})"
    return [header, *("  " + line for line in lines)]


def entry_json(mappings: Mappings, entry: Entry) -> dict[str, object]:
    return {
        **entry._asdict(),
        "supported": entry.supported,
        "status": status_words(entry),
        "absent_in_hip": mappings.absent_in.get(entry.hip or ""),
    }


def family_stats(mappings: Mappings) -> list[dict[str, object]]:
    """Per-family counts: rows, supported, unsupported, rows with a ROC/MIOpen counterpart."""
    stats = []
    for family in _ordered_families(mappings):
        entries = mappings.families[family]
        supported = sum(e.supported for e in entries)
        stats.append(
            {
                "family": family,
                "names": len(entries),
                "supported": supported,
                "unsupported": len(entries) - supported,
                "with_roc": sum(e.roc is not None for e in entries),
            }
        )
    return stats


def _stats_total(stats: Sequence[Mapping[str, object]]) -> dict[str, object]:
    keys = ("names", "supported", "unsupported", "with_roc")
    return {"family": "total", **{k: sum(int(str(s[k])) for s in stats) for k in keys}}


def format_stats(mappings: Mappings) -> list[str]:
    stats = family_stats(mappings)
    total = _stats_total(stats)
    keys = ("family", "names", "supported", "unsupported", "with_roc")
    head = ["family", "names", "supported", "unsupported", "with ROC"]
    body = [[str(s[k]) for k in keys] for s in [*stats, total]]
    lines = aligned([head, *body], right=range(1, 5))
    rule = "-" * max(len(line) for line in lines)
    lines.insert(1, rule)
    lines.insert(len(lines) - 1, rule)
    lines.append(f"{len(mappings.by_cuda)} distinct CUDA names (a name may occur in several families)")
    return lines


@click.command("mappings")
@click.argument("query", required=False)
@click.option("--stats", is_flag=True, help="Print per-family totals instead of looking up a name.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
@click.option(
    "-f",
    "--family",
    "families",
    multiple=True,
    metavar="NAME",
    help="Only search this family (repeatable), e.g. runtime, cublas.",
)
@click.option(
    "--extra-mappings",
    "extra",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Additional mapping YAML file that adds or overrides entries (repeatable).",
)
def mappings_command(
    query: str | None, stats: bool, as_json: bool, families: tuple[str, ...], extra: tuple[Path, ...]
) -> None:
    """Look up QUERY (a CUDA, HIP or ROC name; glob patterns such as 'cudaMem*' allowed).

    Exits 1 when nothing matches. With --stats, prints per-family totals instead.
    """
    if stats == (query is not None):
        raise click.UsageError("give either a QUERY or --stats")
    try:
        mappings = load_mappings(extra)
    except (OSError, ValueError) as err:  # bad user YAML: report it, no traceback
        raise click.ClickException(str(err)) from err
    if stats:
        if as_json:
            table = family_stats(mappings)
            click.echo(json.dumps({"families": table, "total": _stats_total(table)}, indent=2))
        else:
            click.echo("\n".join(format_stats(mappings)))
        return
    assert query is not None  # for the type checker: guarded by the UsageError above
    found = find_entries(mappings, query, families)
    if as_json:
        click.echo(json.dumps([entry_json(mappings, e) for e in found], indent=2))
    else:
        blocks = ["\n".join(format_entry(mappings, e)) for e in found]
        if blocks:
            click.echo("\n\n".join(blocks))
    if not found:
        click.echo(f"no mapping matches {query!r}", err=True)
        raise SystemExit(1)
