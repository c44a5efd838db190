#!/usr/bin/env python3
"""Generate mappings/*.yaml from the CUDA -> HIP reference tables (Markdown from AMD's HIPIFY docs).

Usage: gen_mappings.py [--src DIR] [--out DIR] [--check]

The Markdown is input data only: the project reads the generated YAML at run time, never the .md.
Output is deterministic (same input -> byte-identical files) so `--check` can guard the committed
files, and every table row becomes exactly one YAML line so the data stays greppable.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # why: the round-trip check uses the project's own loader

from hipify_py.data.mappings import ENTRY_FIELDS, compact_records  # noqa: E402

DEFAULT_SRC = REPO.parent / "shared" / "data" / "cuda2hip-tables"
DEFAULT_OUT = REPO / "mappings" / "generated"


class Family(NamedTuple):
    name: str
    source: str
    library: tuple[tuple[str, str], ...]  # ordered (side, library name) pairs for the `library:` block


FAMILIES: tuple[Family, ...] = (
    Family(
        "runtime",
        "CUDA_Runtime_API_functions_supported_by_HIP.md",
        (("cuda", "CUDA Runtime"), ("hip", "HIP")),
    ),
    Family(
        "driver", "CUDA_Driver_API_functions_supported_by_HIP.md", (("cuda", "CUDA Driver"), ("hip", "HIP"))
    ),
    Family("device", "CUDA_Device_API_supported_by_HIP.md", (("cuda", "CUDA Device"), ("hip", "HIP"))),
    Family("rtc", "CUDA_RTC_API_supported_by_HIP.md", (("cuda", "NVRTC"), ("hip", "hipRTC"))),
    Family("complex", "cuComplex_API_supported_by_HIP.md", (("cuda", "cuComplex"), ("hip", "hip_complex"))),
    Family(
        "cublas",
        "CUBLAS_API_supported_by_HIP_and_ROC.md",
        (("cuda", "cuBLAS"), ("hip", "hipBLAS"), ("roc", "rocBLAS")),
    ),
    Family(
        "curand",
        "CURAND_API_supported_by_HIP_and_ROC.md",
        (("cuda", "cuRAND"), ("hip", "hipRAND"), ("roc", "rocRAND")),
    ),
    Family("cufft", "CUFFT_API_supported_by_HIP.md", (("cuda", "cuFFT"), ("hip", "hipFFT"))),
    Family(
        "cusparse",
        "CUSPARSE_API_supported_by_HIP_and_ROC.md",
        (("cuda", "cuSPARSE"), ("hip", "hipSPARSE"), ("roc", "rocSPARSE")),
    ),
    Family(
        "cusolver",
        "CUSOLVER_API_supported_by_HIP_and_ROC.md",
        (("cuda", "cuSOLVER"), ("hip", "hipSOLVER"), ("roc", "rocSOLVER")),
    ),
    Family("cub", "CUB_API_supported_by_HIP.md", (("cuda", "CUB"), ("hip", "hipCUB"))),
    Family(
        "cudnn",
        "CUDNN_API_supported_by_HIP_and_MIOPEN.md",
        (("cuda", "cuDNN"), ("hip", "hipDNN"), ("roc", "MIOpen")),
    ),
)

# Column order inside one YAML entry; also the set of allowed keys.
FIELD_ORDER: tuple[str, ...] = (
    "cuda",
    "hip",
    "roc",
    "group",
    "group_status",
    *(f"{side}_{what}" for side in ("cuda",) for what in ("added", "deprecated", "changed", "removed")),
    *(
        f"{side}_{what}"
        for side in ("hip", "roc")
        for what in ("added", "deprecated", "changed", "removed", "experimental")
    ),
    "kind",
)
NAME_FIELDS = frozenset({"cuda", "hip", "roc"})
VERSION_FIELDS = frozenset(f for f in FIELD_ORDER if f.split("_", 1)[0] in NAME_FIELDS and "_" in f)

# Table header cells: a side name starts a block, the letters after it are that side's versions.
SIDES: Mapping[str, str] = {"CUDA": "cuda", "HIP": "hip", "ROC": "roc", "MIOPEN": "roc"}
LETTERS: Mapping[str, str] = {
    "A": "added",
    "D": "deprecated",
    "C": "changed",
    "R": "removed",
    "E": "experimental",
}

HEADING = re.compile(r"^## \*\*\d+\.\s+(?P<title>.+?)\*\*\s*$")
GROUP_STATUS = re.compile(r"\s*\[(?P<status>DEPRECATED|REMOVED)\]\s*$")
NAME_CELL = re.compile(r"^`(?P<name>[^`]+)`$")
VERSION = re.compile(r"^\d+(?:\.\d+)*$")
TYPE_GROUP = re.compile(r"\btypes?\b", re.IGNORECASE)
PLAIN_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_+.\- ]*(?<! )$")
# ALL-CAPS prefixes that are preprocessor macros by construction (math_constants.h, CUB's macros).
DEFINE_PREFIXES = ("CUDART_", "CUB_")


class ParseError(ValueError):
    pass


class Row(NamedTuple):
    line: int
    fields: dict[str, str | None]


def split_cells(line: str) -> list[str]:
    """`|a|b|` -> ["a", "b"]; the tables contain no escaped pipes (checked by the cell validation)."""
    return [cell.strip() for cell in line.strip()[1:-1].split("|")]


def header_columns(cells: Sequence[str], where: str) -> list[str]:
    """Map header cells (**CUDA**, **A**, ..., **HIP**, ...) to YAML field names."""
    columns: list[str] = []
    side = ""
    for cell in cells:
        label = cell.strip("*")
        if label in SIDES:
            side = SIDES[label]
            columns.append(side)
        elif label in LETTERS and side:
            columns.append(f"{side}_{LETTERS[label]}")
        else:
            raise ParseError(f"{where}: unknown column {cell!r}")
    unknown = [c for c in columns if c not in FIELD_ORDER]
    if unknown or len(set(columns)) != len(columns) or columns[:1] != ["cuda"]:
        raise ParseError(f"{where}: unexpected table header {cells}")
    return columns


def name_value(cell: str, where: str) -> str | None:
    if not cell:
        return None  # empty counterpart cell = unsupported
    match = NAME_CELL.match(cell)
    if match is None:
        raise ParseError(f"{where}: name cell is not `code`: {cell!r}")
    return match["name"]


def version_value(cell: str, where: str) -> str | None:
    if cell and not VERSION.match(cell):
        raise ParseError(f"{where}: not a version: {cell!r}")
    return cell or None


def infer_kind(group: str, name: str) -> str:
    """Conservative kind: only what the heading or an unambiguous naming convention tells.

    Data-type sections mix types, enumerators and macros, so most of their names get no kind.
    """
    if not TYPE_GROUP.search(group):
        return "function"  # every non-type section of the reference is a function reference
    if name.endswith("_enum"):
        return "enum"
    if name.endswith(("_t", "_st")):
        return "type"
    if name.startswith(DEFINE_PREFIXES) and name.upper() == name:
        return "define"
    return ""


def parse_table_rows(text: str, source: str) -> Iterator[Row]:
    """Yield one Row per Markdown table row, with its section's group and status."""
    group, status = "", ""
    columns: list[str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{source}:{number}"
        heading = HEADING.match(line)
        if heading:
            title = heading["title"].strip()
            flag = GROUP_STATUS.search(title)
            status = flag["status"].lower() if flag else ""
            group = GROUP_STATUS.sub("", title).strip()
            columns = None
            continue
        if not line.startswith("|"):
            continue
        cells = split_cells(line)
        if all(cell.startswith("**") for cell in cells):
            columns = header_columns(cells, where)
            continue
        if all(set(cell) <= set(":-") for cell in cells):
            continue  # alignment row
        if columns is None or not group:
            raise ParseError(f"{where}: table row outside a section/table")
        if len(cells) != len(columns):
            raise ParseError(f"{where}: {len(cells)} cells, header has {len(columns)}")
        yield Row(number, row_fields(dict(zip(columns, cells, strict=True)), group, status, where))


def row_fields(raw: Mapping[str, str], group: str, status: str, where: str) -> dict[str, str | None]:
    """Build one entry in FIELD_ORDER; hip (and roc, when the table has it) are always written."""
    values: dict[str, str | None] = {}
    for column, cell in raw.items():
        values[column] = name_value(cell, where) if column in NAME_FIELDS else version_value(cell, where)
    cuda = values["cuda"]
    if cuda is None:
        raise ParseError(f"{where}: empty CUDA name")
    values["group"] = group
    values["group_status"] = status or None
    values["kind"] = infer_kind(group, cuda) or None
    always = {"cuda", "hip"} | ({"roc"} if "roc" in raw else set())
    return {k: values[k] for k in FIELD_ORDER if k in values and (values[k] is not None or k in always)}


POSITIONAL: tuple[str, ...] = ("cuda", "hip", "roc")
NULL = "~"  # positional counterpart that does not exist (unsupported)
ROW_VALUE = re.compile(r"^[^\s=~][^\s=]*$")


def is_plain_safe(value: str) -> bool:
    """True when `value` can be written unquoted and still load back as the same string."""
    if not PLAIN_SAFE.match(value):
        return False
    resolved = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
    return resolved == "tag:yaml.org,2002:str"


def scalar(key: str, value: str | None) -> str:
    if value is None:
        return "null"
    if key in VERSION_FIELDS or not is_plain_safe(value):
        return "'" + value.replace("'", "''") + "'"  # versions always quoted: 11.0 must not become 11.0 float
    return value


def flow_mapping(items: Sequence[tuple[str, str | None]]) -> str:
    return "{" + ", ".join(f"{key}: {scalar(key, value)}" for key, value in items) + "}"


def row_text(fields: Mapping[str, str | None], positional: Sequence[str]) -> str:
    """One table row as one string: positional names (`~` = none), then `field=value` pairs.

    why: libyaml builds a Python object per scalar; one scalar per row instead of ~12 makes the
    tables load about 8x faster, and a row stays one greppable line.
    """
    parts = [NULL if fields.get(key) is None else str(fields[key]) for key in positional]
    parts += [f"{key}={value}" for key, value in fields.items() if key not in SECTION_FIELDS + positional]
    for part in parts:
        value = part.split("=", 1)[-1]
        if part != NULL and not ROW_VALUE.match(value):
            raise ParseError(f"value {part!r} cannot be written in a compact row")
    text = " ".join(parts)
    return text if is_plain_safe_row(text) else "'" + text.replace("'", "''") + "'"


def is_plain_safe_row(text: str) -> bool:
    resolved = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    return resolved == "tag:yaml.org,2002:str" and ": " not in text and " #" not in text


SECTION_FIELDS: tuple[str, ...] = ("group", "group_status")


def sections(rows: Sequence[Row]) -> Iterator[tuple[str, str | None, list[Row]]]:
    """Consecutive rows of one source section: (group, status, rows)."""
    current: list[Row] = []
    for row in rows:
        if current and _section_of(current[0]) != _section_of(row):
            yield (*_section_of(current[0]), current)
            current = []
        current.append(row)
    if current:
        yield (*_section_of(current[0]), current)


def _section_of(row: Row) -> tuple[str, str | None]:
    return str(row.fields["group"]), row.fields.get("group_status")


def render_family(family: Family, rows: Sequence[Row]) -> str:
    """The YAML text of one family file (one line per table row, grouped by source section)."""
    counts = Counter(row.fields["cuda"] for row in rows)
    positional = tuple(k for k in POSITIONAL if any(k in row.fields for row in rows)) or ("cuda", "hip")
    lines = [
        f"# Generated by scripts/gen_mappings.py from {family.source} -- do not edit.",
        f"# {len(rows)} entries, one per table row, in source order.",
        f"# A row is `{' '.join(k.upper() for k in positional)} [field=value ...]`: `~` = no counterpart",
        "# (unsupported); fields are the CUDA/HIP/ROC added/deprecated/changed/removed/experimental",
        "# versions and the kind. Each section carries the API group (and its status) of its rows.",
        f"family: {family.name}",
        f"source: {family.source}",
        f"library: {flow_mapping(family.library)}",
        f"columns: [{', '.join(positional)}]",
        "sections:",
    ]
    seen: Counter[str | None] = Counter()
    for group, status, members in sections(rows):
        lines.append(f"- group: {scalar('group', group)}")
        if status:
            lines.append(f"  status: {scalar('group_status', status)}")
        lines.append("  rows:")
        for row in members:
            name = row.fields["cuda"]
            seen[name] += 1
            if counts[name] > 1:
                # why: the brief keeps every row; flag repeats so readers know both are deliberate
                note = f"occurs {counts[name]} times in the source (row {seen[name]}, line {row.line})"
                lines.append(f"  # note: {name} {note}")
            lines.append("  - " + row_text(row.fields, positional))
    return "\n".join(lines) + "\n"


def check_round_trip(text: str, rows: Sequence[Row], name: str) -> None:
    """Fail loudly if the project's loader would read any value back differently from what was parsed."""
    loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    records = compact_records(loaded, str(loaded["family"]), name)
    back = [
        {k: v for k, v in zip(ENTRY_FIELDS, record, strict=True) if k != "family" and (v or k in row.fields)}
        for record, row in zip(records, rows, strict=False)
    ]
    if len(records) != len(rows) or back != [row.fields for row in rows]:
        raise ParseError(f"{name}: YAML does not round-trip")


def generate(src: Path) -> dict[str, str]:
    """file name -> YAML text for every family."""
    out: dict[str, str] = {}
    for family in FAMILIES:
        text = (src / family.source).read_text(encoding="utf-8")
        rows = list(parse_table_rows(text, family.source))
        for name, count in sorted(Counter(r.fields["cuda"] for r in rows).items()):
            if count > 1:
                print(f"note: {family.source}: {name} occurs {count} times; all rows kept", file=sys.stderr)
        rendered = render_family(family, rows)
        check_round_trip(rendered, rows, family.source)
        out[f"{family.name}.yaml"] = rendered
    return out


def stale_files(generated: Mapping[str, str], out: Path) -> list[str]:
    """Names of files in `out` that differ from (or are missing compared to) the fresh generation."""
    stale = []
    for name, text in generated.items():
        path = out / name
        if not path.is_file() or path.read_bytes() != text.encode("utf-8"):
            stale.append(name)
    return stale


def write_files(generated: Mapping[str, str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, text in generated.items():
        (out / name).write_bytes(text.encode("utf-8"))  # bytes: no platform newline translation


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--src", type=Path, default=DEFAULT_SRC, help="directory with the reference .md tables"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="directory for the generated YAML")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the files in --out are not up to date"
    )
    args = parser.parse_args(argv)
    try:
        generated = generate(args.src)
    except (OSError, ParseError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.check:
        stale = stale_files(generated, args.out)
        for name in stale:
            print(f"out of date: {args.out / name}", file=sys.stderr)
        return 1 if stale else 0
    write_files(generated, args.out)
    total = sum(text.count("\n  - ") for text in generated.values())
    print(f"wrote {len(generated)} files, {total} entries, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
