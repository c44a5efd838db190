"""data/derived.py: built tables come from the cache directory when code and tables are unchanged."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from hipify_py.data import derived
from hipify_py.data.adaptations import _build_table
from hipify_py.data.vendor_libs import _build as _build_vendor_libs
from hipify_py.pipeline.translate import _shipped_tables
from hipify_py.rules.cache_hints import _build_facts, _build_hint_table
from hipify_py.rules.calls import _build_call_table
from hipify_py.rules.cxx import _build_device_functions
from hipify_py.run import result_cache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(derived, "code_stamp", lambda: "this build")
    return tmp_path / "cache"


def counting(calls: list[tuple], value: object):  # type: ignore[no-untyped-def]
    def build(*args: object) -> object:
        calls.append(args)
        return value

    return build


def test_built_once_then_read(cache_dir: Path) -> None:
    calls: list[tuple] = []
    build = counting(calls, {"a": (1, "x")})
    assert derived.load("table", build, "5.2") == {"a": (1, "x")}
    assert derived.load("table", build, "5.2") == {"a": (1, "x")}
    assert calls == [("5.2",)]
    assert [p.name.split("-")[0] for p in (cache_dir / "derived").iterdir()] == ["table"]


def test_arguments_name_and_code_are_in_the_key(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple] = []
    build = counting(calls, 1)
    derived.load("table", build, "5.2")
    derived.load("table", build, "6.0")
    derived.load("other", build, "5.2")
    monkeypatch.setattr(derived, "code_stamp", lambda: "edited code or tables")
    derived.load("table", build, "5.2")
    assert calls == [("5.2",), ("6.0",), ("5.2",), ("5.2",)]


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_damaged_or_foreign_file_is_rebuilt(cache_dir: Path, content: bytes) -> None:
    calls: list[tuple] = []
    path = derived.path_for("table", ("5.2",))
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert derived.load("table", counting(calls, "built"), "5.2") == "built"
    assert derived.load("table", counting(calls, "built"), "5.2") == "built"
    assert calls == [("5.2",)]  # the rebuilt value replaced the bad file


def test_no_cache_directory_builds_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", "")
    calls: list[tuple] = []
    derived.load("table", counting(calls, 1), "5.2")
    derived.load("table", counting(calls, 1), "5.2")
    assert calls == [("5.2",), ("5.2",)]


def test_unwritable_cache_still_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(blocker))
    assert derived.load("table", counting([], 7), "5.2") == 7


@pytest.mark.parametrize(
    ("name", "build", "args"),
    [
        ("call-table", _build_call_table, ("5.2",)),
        ("cache-hints", _build_hint_table, ()),
        ("cache-hint-overloads", _build_facts, ("6.4",)),
        ("hip-device-functions", _build_device_functions, ("5.2",)),
        ("version-adaptations", _build_table, ()),
        ("tables", _shipped_tables, ()),
        ("vendor-libs", _build_vendor_libs, ("7.2",)),
    ],
)
def test_shipped_tables_round_trip(cache_dir: Path, name: str, build, args: tuple) -> None:  # type: ignore[no-untyped-def]
    built = derived.load(name, build, *args)
    assert derived.load(name, lambda *a: pytest.fail("rebuilt"), *args) == built == build(*args)


def test_code_stamp_is_computed_once_per_process() -> None:
    assert result_cache.code_stamp() is result_cache.code_stamp()


def test_a_wheel_reads_the_stamp_its_build_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hipify_py.util import locations

    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "a.py").write_text("x = 1\n")
    (package / "t.yaml").write_text("k: v\n")
    (package / "notes.txt").write_text("not code\n")
    stamp = locations.source_stamp(package)
    os.utime(package / "sub" / "a.py", (0, 0))  # the bytes decide, not the times: two builds agree
    (package / "notes.txt").write_text("changed\n")
    assert locations.source_stamp(package) == stamp
    (package / "t.yaml").write_text("k: w\n")
    assert locations.source_stamp(package) != stamp

    shipped = tmp_path / "prebuilt"
    shipped.mkdir()
    (shipped / locations.STAMP_FILE).write_text(stamp)
    monkeypatch.setattr(locations, "shipped_dir", lambda: shipped)
    locations.code_stamp.cache_clear()
    try:
        assert locations.code_stamp() == f"wheel:{stamp}"
    finally:
        locations.code_stamp.cache_clear()


def test_packed_entries_are_the_entries() -> None:
    from hipify_py.data.mappings import Built, make_entry, pack, unpack
    from hipify_py.data.schema import Entry

    entry = Entry("cudaFoo", None, "runtime", group="g\tx", roc="rocFoo", note="a note, with spaces")
    record = tuple(entry)
    assert unpack(pack(record)) == record and make_entry(pack(record)) == entry
    built = Built({"cudaFoo": pack(record)}, make_entry)
    assert built["cudaFoo"] is built["cudaFoo"] == entry and "cudaFoo" in built and list(built) == ["cudaFoo"]
    assert pickle.loads(pickle.dumps(built)) == built
    # get(): the same object as [], the default for an absent name (no KeyError escapes)
    assert built.get("cudaFoo") is built["cudaFoo"] and built.get("cudaBar") is None
    assert built.get("cudaBar", "none") == "none"


def test_cache_false_neither_reads_nor_writes(cache_dir: Path) -> None:
    calls: list[tuple] = []
    derived.load("table", counting(calls, 1), "5.2", cache=False)
    assert not cache_dir.exists()
    derived.load("table", counting(calls, 1), "5.2")
    derived.load("table", counting(calls, 1), "5.2", cache=False)
    assert calls == [("5.2",), ("5.2",), ("5.2",)]


def test_old_builds_are_pruned(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for stamp in range(derived.KEEP + 3):
        monkeypatch.setattr(derived, "code_stamp", lambda stamp=stamp: f"build {stamp}")
        derived.load("table", counting([], stamp), "5.2")
        derived.load("other-table", counting([], stamp), "5.2")
    names = sorted(p.name.rpartition("-")[0] for p in (cache_dir / "derived").iterdir())
    assert names == ["other-table"] * derived.KEEP + ["table"] * derived.KEEP
    assert derived.load("table", lambda *a: pytest.fail("the newest was pruned"), "5.2") == derived.KEEP + 2


def test_a_checkout_ships_no_built_tables() -> None:
    """From the source tree the YAML may be edited: only the code-stamped cache serves built tables."""
    assert derived.shipped_dir() is None


def test_shipped_tables_come_first_even_without_a_cache(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = tmp_path / "prebuilt"
    shipped.mkdir()
    (shipped / derived.shipped_name("table", ("5.2",))).write_bytes(
        derived.dump("table", ("5.2",), "shipped")
    )
    monkeypatch.setattr(derived, "shipped_dir", lambda: shipped)
    calls: list[tuple] = []
    assert derived.load("table", counting(calls, "built"), "5.2") == "shipped"
    assert derived.load("table", counting(calls, "built"), "5.2", cache=False) == "shipped"
    assert not cache_dir.exists()  # nothing built, nothing written
    assert derived.load("table", counting(calls, "built"), "6.0") == "built"  # a target not shipped
    assert calls == [("6.0",)]
