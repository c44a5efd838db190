"""Load the CUDA -> HIP mapping tables (mappings/generated/*.yaml, made by scripts/gen_mappings.py).

The generated files hold one YAML string per row (see compact_records), so ~9000 rows parse in
under 0.1 s with libyaml; the parsed rows are also cached in marshal form under the user cache
directory, keyed by the digest of the mapping files and the package version. The cache is an
optimisation only: any problem with it is ignored. User files use the readable `entries:` form.
"""

from __future__ import annotations

import contextlib
import functools
import marshal
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from hipify_py import __version__
from hipify_py.data.schema import (
    CUSTOM_FAMILY,
    ENTRY_FIELDS,
    EXTRAS_FILE,
    FAMILY_ORDER,
    GUARD_FIELDS,
    GUARDS_FILE,
    HEADER_FIELDS,
    HEADERS_FILE,
    HIP_HEADERS_GLOB,
    INCLUDE_NEED_FIELDS,
    INCLUDE_ORDER_FILE,
    NAMESPACE_FIELDS,
    NAMESPACES_FILE,
    Entry,
    Guard,
    Header,
    IncludeNeed,
    Mappings,
    Namespace,
)
from hipify_py.data.versions import compare_versions, parse_version
from hipify_py.util.fileio import read_marshal_dict
from hipify_py.util.locations import GENERATED, HAND_KEPT, PROBED, cache_root, mappings_dir
from hipify_py.util.locations import generated_dir as generated_dir  # the three folders, for the loaders
from hipify_py.util.locations import hand_kept_dir as hand_kept_dir
from hipify_py.util.locations import probed_dir as probed_dir

_NULLABLE = frozenset({"hip", "roc", "legacy"})
CACHE_FORMAT = 4  # bump when the cached payload layout changes (4: absent records name their library)


def _yaml_loader() -> type:
    import yaml  # why here: ~10 ms of import that a run served by the marshal cache never needs

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(data: bytes, where: Path) -> dict[str, Any]:
    import yaml

    loaded = yaml.load(data, Loader=_yaml_loader())
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{where}: expected a YAML mapping at the top level")
    return loaded


def _text(value: object, nullable: bool) -> str | None:
    if value is None:
        return None if nullable else ""
    return str(value)  # why: a user may write `hip_added: 6.2` unquoted, which YAML reads as a float


def _record(row: object, fields: tuple[str, ...], defaults: Mapping[str, str], where: str) -> tuple:
    """A YAML entry mapping -> tuple in dataclass field order (validated, values as str/None)."""
    if not isinstance(row, dict) or not row.get("cuda"):
        raise ValueError(f"{where}: entry needs a `cuda` name: {row!r}")
    unknown = set(row) - set(fields)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)} in {row!r}")
    merged = {**defaults, **row}
    return tuple(_text(merged.get(name), name in _NULLABLE) for name in fields)


def _entry_records(doc: Mapping[str, Any], family: str, where: str) -> list[tuple]:
    records = compact_records(doc, family, where) if "sections" in doc else []
    rows = doc.get("entries") or []
    defaults = {"family": family}
    records += [_record(row, ENTRY_FIELDS, defaults, f"{where} entry {i + 1}") for i, row in enumerate(rows)]
    return records


_FIELD_INDEX = {name: i for i, name in enumerate(ENTRY_FIELDS)}
NULL_NAME = "~"


def compact_records(doc: Mapping[str, Any], family: str, where: str) -> list[tuple]:
    """Records from the generated layout: `sections: [{group, status?, rows: ["CUDA HIP [ROC] k=v ..."]}]`.

    One string per row (see scripts/gen_mappings.py): splitting strings in Python is far cheaper
    than libyaml constructing a dict of a dozen scalars per row.
    """
    columns = [_FIELD_INDEX[c] for c in doc.get("columns") or ("cuda", "hip")]
    blank: list[str | None] = [None if name in _NULLABLE else "" for name in ENTRY_FIELDS]
    blank[_FIELD_INDEX["family"]] = family
    group_at, status_at = _FIELD_INDEX["group"], _FIELD_INDEX["group_status"]
    records: list[tuple] = []
    for section in doc["sections"]:
        base = blank.copy()
        base[group_at] = str(section.get("group") or "")
        base[status_at] = str(section.get("status") or "")
        for row in section.get("rows") or ():
            parts = str(row).split()
            if len(parts) < len(columns):
                raise ValueError(f"{where}: row needs {len(columns)} names: {row!r}")
            record = base.copy()
            for at, value in zip(columns, parts, strict=False):
                record[at] = None if value == NULL_NAME else value
            for pair in parts[len(columns) :]:
                key, sep, value = pair.partition("=")
                if not sep or key not in _FIELD_INDEX or key in _NULLABLE or key == "cuda":
                    raise ValueError(f"{where}: bad field {pair!r} in row {row!r}")
                record[_FIELD_INDEX[key]] = value
            records.append(tuple(record))
    return records


def _namespace_records(doc: Mapping[str, Any], where: str) -> list[tuple]:
    rows = doc.get("namespaces") or []
    defaults = {"family": ""}
    return [
        _record(row, NAMESPACE_FIELDS, defaults, f"{where} namespace {i + 1}") for i, row in enumerate(rows)
    ]


def _hand_rows(doc: Mapping[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    """Rows of a hand-kept table: each must say why (`reason`)."""
    rows = doc.get(key) or []
    if not isinstance(rows, list):
        raise ValueError(f"{where}: `{key}` must be a list")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or not row.get("reason"):
            raise ValueError(f"{where}: {key} row {i + 1} needs a `reason`: {row!r}")
    return rows


def _guard_records(doc: Mapping[str, Any], where: str) -> list[tuple]:
    return [
        _record(row, GUARD_FIELDS, {}, f"{where} guard {i + 1}")
        for i, row in enumerate(_hand_rows(doc, "guards", where))
    ]


def _include_need_records(doc: Mapping[str, Any], where: str) -> list[tuple]:
    rows = _hand_rows(doc, "include_order", where)
    return [
        _record({"cuda": row.get("hip"), **row}, ("cuda", *INCLUDE_NEED_FIELDS), {}, f"{where} row {i + 1}")[
            1:
        ]
        for i, row in enumerate(rows)
    ]


def _extra_records(doc: Mapping[str, Any], where: str) -> list[tuple]:
    """extras.yaml rows: Entry fields plus `reason` (kept as the entry's note) and `source`."""
    records = []
    for i, row in enumerate(_hand_rows(doc, "extras", where)):
        fields = {k: v for k, v in row.items() if k not in ("reason", "source")}
        if not row.get("source"):
            raise ValueError(f"{where}: extras row {i + 1} needs a `source`: {row!r}")
        records.append(_record({**fields, "note": row["reason"]}, ENTRY_FIELDS, {}, f"{where} extra {i + 1}"))
    return records


def _header_records(doc: Mapping[str, Any], where: str) -> list[tuple]:
    known = set(HEADER_FIELDS)
    rows = [
        {k: v for k, v in row.items() if k in known}
        for row in doc.get("headers") or []
        if isinstance(row, dict)
    ]
    # why: headers.yaml is hand-maintained and may grow fields; unknown keys are dropped, not fatal
    return [
        _record(row, HEADER_FIELDS, {"family": ""}, f"{where} header {i + 1}") for i, row in enumerate(rows)
    ]


def _absent_records(doc: Mapping[str, Any], where: str, key: str = "absent") -> list[list[str]]:
    """[name, version, library] from `hip_headers: [{library, version, absent: [names], present: [names]}]`;
    key "probed": one [library, version] per block (the libraries each install's check covered)."""
    records: list[list[str]] = []
    for i, block in enumerate(doc.get("hip_headers") or []):
        if not isinstance(block, dict) or not block.get("version"):
            raise ValueError(f"{where}: hip_headers block {i + 1} needs a `version`")
        version, library = str(block["version"]), str(block.get("library") or "")
        if key == "probed":
            records.append([library, version])
        else:
            records.extend([str(name), version, library] for name in block.get(key) or ())
    return records


def _builtin_files(directory: Path) -> list[Path]:
    """The families (generated/), the hand-kept tables beside them and the probed hip-headers-*.yaml."""
    files = [directory / GENERATED / f"{family}.yaml" for family in FAMILY_ORDER]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"mapping tables missing: {', '.join(missing)}")
    optional = [
        directory / HAND_KEPT / name
        for name in (HEADERS_FILE, NAMESPACES_FILE, GUARDS_FILE, EXTRAS_FILE, INCLUDE_ORDER_FILE)
    ]
    probed = sorted((directory / PROBED).glob(HIP_HEADERS_GLOB))
    return files + [p for p in optional if p.is_file()] + probed


def _digest(blobs: Iterable[tuple[str, bytes]]) -> str:
    import hashlib  # why here: ~3 ms of OpenSSL start-up that a run served by the caches never needs

    sha = hashlib.sha256()
    for name, data in blobs:
        sha.update(name.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return sha.hexdigest()


def _parse_files(blobs: Sequence[tuple[Path, bytes]], default_family: str) -> dict[str, Any]:
    """Raw payload: {"families": [(family, library, [entry...])], "headers": [...], "namespaces": [...]}."""
    families: list[tuple[str, dict[str, str], list[tuple]]] = []
    headers: list[tuple] = []
    namespaces: list[tuple] = []
    absent: list[list[str]] = []
    present: list[list[str]] = []
    probed: list[list[str]] = []
    guards: list[tuple] = []
    extras: list[tuple] = []
    include_order: list[tuple] = []
    for path, data in blobs:
        doc = _read_yaml(data, path)
        headers.extend(_header_records(doc, str(path)))
        namespaces.extend(_namespace_records(doc, str(path)))
        absent.extend(_absent_records(doc, str(path)))
        present.extend(_absent_records(doc, str(path), "present"))
        probed.extend(_absent_records(doc, str(path), "probed"))
        guards.extend(_guard_records(doc, str(path)))
        extras.extend(_extra_records(doc, str(path)))
        include_order.extend(_include_need_records(doc, str(path)))
        if "entries" not in doc and "sections" not in doc and "family" not in doc:
            continue  # headers.yaml (or a user file with only headers)
        family = str(doc.get("family") or default_family)
        library = {str(k): str(v) for k, v in (doc.get("library") or {}).items()}
        families.append((family, library, _entry_records(doc, family, str(path))))
    return {
        "families": families,
        "headers": headers,
        "namespaces": namespaces,
        "absent": absent,
        "present": present,
        "probed": probed,
        "guards": guards,
        "extras": extras,
        "include_order": include_order,
    }


def _cache_key(digest: str) -> tuple[object, ...]:
    # why: records are positional tuples, so a change of the dataclass fields must invalidate them
    return (CACHE_FORMAT, __version__, digest, ENTRY_FIELDS, HEADER_FIELDS, GUARD_FIELDS, INCLUDE_NEED_FIELDS)


def _cache_path(directory: Path, digest: str) -> Path:
    return directory / f"mappings-{CACHE_FORMAT}-{__version__}-{digest[:32]}.marshal"


def _read_cache(digest: str) -> dict[str, Any] | None:
    directory = cache_root()
    if directory is None:
        return None
    payload = read_marshal_dict(_cache_path(directory, digest))
    if payload is None or payload.get("key") != _cache_key(digest):
        return None  # stale or foreign file: rebuild
    return payload


def _write_cache(digest: str, payload: Mapping[str, Any]) -> None:
    """Atomic write (temp file + os.replace) so a concurrent reader never sees half a file."""
    directory = cache_root()
    if directory is None:
        return
    import tempfile  # why here: a run that finds its tables built never writes them

    tmp = ""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        data = marshal.dumps({**payload, "key": _cache_key(digest)})
        fd, tmp = tempfile.mkstemp(prefix=".mappings-", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, _cache_path(directory, digest))
        tmp = ""
    except (OSError, ValueError):
        pass  # read-only home, full disk, ...: the cache is optional
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _builtin_payload(blobs: Sequence[tuple[Path, bytes]], digest: str) -> dict[str, Any]:
    cached = _read_cache(digest)
    if cached is not None:
        return cached
    payload = _parse_files(blobs, default_family="")
    _write_cache(digest, payload)
    return payload


def _family_rank(family: str) -> int:
    return FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)


K = TypeVar("K")
V = TypeVar("V")


class Built(Mapping[K, V]):
    """A read-only mapping whose values are made from packed records on first lookup.

    why: making all 8.9k Entry objects took ~40 ms, most of a one-file run's budget, while a file
    looks up a few dozen names; membership and iteration never make a value. A record is packed
    into one string (`pack`): the built tables load from the cache as a few strings per name.
    """

    __slots__ = ("_built", "_make", "_records")

    def __init__(self, records: Mapping[K, Any], make: Callable[[Any], V]) -> None:
        self._records = records
        self._make = make
        self._built: dict[K, V] = {}

    def __getitem__(self, key: K) -> V:
        try:
            return self._built[key]
        except KeyError:
            value = self._built[key] = self._make(self._records[key])
            return value

    def get(self, key: K, default: Any = None) -> Any:
        # why not Mapping.get: it goes through __getitem__ and a KeyError for every absent name
        value = self._built.get(key)
        if value is not None:
            return value
        record = self._records.get(key)
        if record is None:
            return default
        value = self._built[key] = self._make(record)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._records

    def __iter__(self) -> Iterator[K]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Built, (self._records, self._make))  # the packed records only, not what was made

    def packed(self) -> Mapping[K, Any]:
        """The stored records, packed (see `unpack`), for whole-table scans that need no objects."""
        return self._records


_SEP, _NULL = "\x1f", "\x00"


def pack(record: Sequence[str | None]) -> str:
    """An Entry record (field tuple) as one string: fields joined by \\x1f, None as \\x00."""
    return _SEP.join(_NULL if value is None else value for value in record)


def unpack(packed: str) -> tuple[str | None, ...]:
    return tuple(None if value == _NULL else value for value in packed.split(_SEP))


def make_entry(packed: str) -> Entry:
    return Entry(*unpack(packed))


def make_entries(packed: Sequence[str]) -> tuple[Entry, ...]:
    return tuple(Entry(*unpack(p)) for p in packed)


# positions in an Entry record (a tuple in ENTRY_FIELDS order)
CUDA_AT, HIP_AT, FAMILY_AT, ROC_AT = (ENTRY_FIELDS.index(f) for f in ("cuda", "hip", "family", "roc"))
_ADDED_AT = (ENTRY_FIELDS.index("hip_added"), ENTRY_FIELDS.index("roc_added"))


def _index_by_cuda(
    families: Mapping[str, Sequence[tuple]], overrides: Sequence[tuple], extras: Sequence[tuple] = ()
) -> dict[str, tuple]:
    """First family in FAMILY_ORDER wins; within a family a supported row beats an unsupported one.

    Hand-kept extras fill names the reference tables lack (they never replace a table row); user
    tables override everything. Works on records (Entry field tuples).
    """
    by_cuda: dict[str, tuple] = {}
    for family in sorted(families, key=_family_rank):
        for record in families[family]:
            current = by_cuda.get(record[CUDA_AT])
            if current is None or (
                current[FAMILY_AT] == family and current[HIP_AT] is None and record[HIP_AT] is not None
            ):
                by_cuda[record[CUDA_AT]] = record
    for record in extras:
        by_cuda.setdefault(record[CUDA_AT], record)
    for record in overrides:  # user tables override whatever the built-in data says
        by_cuda[record[CUDA_AT]] = record
    return by_cuda


def _index_by_hip(families: Mapping[str, Sequence[tuple]]) -> dict[str, tuple[tuple, ...]]:
    index: dict[str, list[tuple]] = {}
    for family in sorted(families, key=_family_rank):
        for record in families[family]:
            hip, roc = record[HIP_AT], record[ROC_AT]
            if hip is not None:
                index.setdefault(hip, []).append(record)
            if roc is not None and roc != hip:
                index.setdefault(roc, []).append(record)
    return {name: tuple(records) for name, records in index.items()}


def _latest_version(records: Iterable[tuple]) -> str:
    versions = {r[at] for r in records for at in _ADDED_AT if r[at]}
    return max(versions, key=parse_version, default="")


def _absences(
    absent: Iterable[Sequence[str]], probed: Iterable[Sequence[str]]
) -> tuple[dict[str, str], dict[str, str]]:
    """(absent_in, removed_in) from [name, version, library] records and the [library, version] checks.

    Absent in a later release implies absent before it only up to the first checked release that
    declares the name: an absence after that one is a removal (ROCm 7.2's hipBLAS 3 lacks the `_v2`
    names 6.4 declares), not "not yet added", and says nothing about the releases before it."""
    checked: dict[str, set[str]] = {}
    for library, version in probed:
        checked.setdefault(library, set()).add(version)
    missing: dict[str, set[str]] = {}
    libraries: dict[str, set[str]] = {}
    for name, version, *library in absent:
        missing.setdefault(name, set()).add(version)
        libraries.setdefault(name, set()).update(library[:1])
    absent_in: dict[str, str] = {}
    removed_in: dict[str, str] = {}
    for name, versions in missing.items():
        declared = set().union(*(checked.get(lib, set()) for lib in libraries[name])) - versions
        first = min(declared, key=parse_version, default="")
        before = [v for v in versions if not first or compare_versions(v, first) < 0]
        if before:
            absent_in[name] = max(before, key=parse_version)
        after = [v for v in versions if first and compare_versions(v, first) > 0]
        if after:
            removed_in[name] = min(after, key=parse_version)
    return absent_in, removed_in


def _build(builtin: Mapping[str, Any], extra: Mapping[str, Any], digest: str) -> Mappings:
    rows: dict[str, list[tuple]] = {}
    libraries: dict[str, dict[str, str]] = {}
    for family, library, records in builtin["families"]:
        rows.setdefault(family, []).extend(records)
        libraries.setdefault(family, dict(library))
    overrides: list[tuple] = []
    for family, library, records in extra["families"]:
        overrides.extend(records)
        for record in records:
            rows.setdefault(record[FAMILY_AT], []).append(record)
        if library:
            libraries.setdefault(family, dict(library))
    families = {family: tuple(records) for family, records in rows.items()}
    headers = {record[0]: Header(*record) for record in (*builtin["headers"], *extra["headers"])}
    # a user file may redefine a namespace: the last definition of a CUDA namespace wins
    namespaces = {r[0]: Namespace(*r) for r in (*builtin.get("namespaces", ()), *extra.get("namespaces", ()))}
    extras = [tuple(record) for record in (*builtin.get("extras", ()), *extra.get("extras", ()))]
    guards: dict[str, list[Guard]] = {}
    for record in (*builtin.get("guards", ()), *extra.get("guards", ())):
        guard = Guard(*record)
        guards.setdefault(guard.cuda, []).append(guard)
    needs = {
        r[0]: IncludeNeed(*r) for r in (*builtin.get("include_order", ()), *extra.get("include_order", ()))
    }
    absent_in, removed_in = _absences(
        (*builtin.get("absent", ()), *extra.get("absent", ())),
        (*builtin.get("probed", ()), *extra.get("probed", ())),
    )
    present_in: dict[str, str] = {}
    for name, version, *_ in (*builtin.get("present", ()), *extra.get("present", ())):
        if name not in present_in or compare_versions(version, present_in[name]) < 0:
            present_in[name] = version  # present in an earlier release implies present after it
    packed: dict[int, str] = {}  # why by id: a record in several indexes is stored once

    def one(record: tuple) -> str:
        found = packed.get(id(record))
        if found is None:
            found = packed[id(record)] = pack(record)
        return found

    by_cuda = {name: one(r) for name, r in _index_by_cuda(families, overrides, extras).items()}
    by_hip = {name: tuple(one(r) for r in rs) for name, rs in _index_by_hip(families).items()}
    return Mappings(
        by_cuda=Built(by_cuda, make_entry),
        families=Built({family: tuple(one(r) for r in rs) for family, rs in families.items()}, make_entries),
        libraries=libraries,
        headers=headers,
        by_hip=Built(by_hip, make_entries),
        digest=digest,
        latest_hip_version=_latest_version(r for records in families.values() for r in records),
        namespaces=tuple(namespaces.values()),
        absent_in=absent_in,
        removed_in=removed_in,
        present_in=present_in,
        guards={name: tuple(rows) for name, rows in guards.items()},
        include_needs=needs,
    )


@functools.lru_cache(maxsize=8)
def _load(extra: tuple[Path, ...]) -> Mappings:
    directory = mappings_dir()
    builtin_blobs = [(path, path.read_bytes()) for path in _builtin_files(directory)]
    extra_blobs = [(path, path.read_bytes()) for path in extra]
    builtin_digest = _digest((p.name, data) for p, data in builtin_blobs)
    # why: extra files change the result, so they must change the digest other caches key on
    digest = _digest([(p.name, d) for p, d in builtin_blobs] + [(str(p), d) for p, d in extra_blobs])
    builtin = _builtin_payload(builtin_blobs, builtin_digest)
    return _build(builtin, _parse_files(extra_blobs, CUSTOM_FAMILY), digest)


def shipped_latest_version() -> str:
    """latest_hip_version of the shipped tables (cached between runs by hipify_py/data/derived.py)."""
    return load_mappings().latest_hip_version


def load_mappings(extra: Sequence[Path] = ()) -> Mappings:
    """All mapping tables plus optional user YAML files (same entry format) that add or override entries.

    Cached per process by the tuple of extra paths: callers hold the returned object.
    """
    return _load(tuple(Path(p) for p in extra))
