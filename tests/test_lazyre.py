"""hipify_py/util/lazyre.py: patterns compile on first use, behave as compiled ones, and no module of the
package compiles a regular expression at import (a one-file run pays only for what it uses)."""

from __future__ import annotations

import copy
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hipify_py.engine.lexer import _SCAN as lexer_scan
from hipify_py.util import lazyre
from hipify_py.util.lazyre import LazyPattern, ProgramStore, lazy

REPO = Path(__file__).resolve().parent.parent


def test_behaves_as_the_compiled_pattern() -> None:
    text = b"cudaMalloc(&p, n); cudaFree(p);"
    pattern, compiled = lazy(rb"cuda(\w+)\("), re.compile(rb"cuda(\w+)\(")
    assert [m.span(1) for m in pattern.finditer(text)] == [m.span(1) for m in compiled.finditer(text)]
    assert pattern.sub(rb"hip\1(", text) == compiled.sub(rb"hip\1(", text)
    assert pattern.findall(text) == [b"Malloc", b"Free"]
    assert pattern.search(text, 5).start() == 19  # type: ignore[union-attr]
    assert pattern.groups == 1 and pattern.pattern == compiled.pattern
    verbose = lazy(r" a  b # comment", re.VERBOSE | re.IGNORECASE)
    assert verbose.fullmatch("AB") and verbose.flags == re.compile(r"x", re.VERBOSE | re.I).flags


def test_compiles_once_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = re.compile
    monkeypatch.setattr(lazyre, "_compile", lambda *a: calls.append(a) or real(*a))
    pattern = lazy(rb"x+")
    assert pattern.pattern == rb"x+" and calls == []  # the text is there without compiling
    for _ in range(3):
        assert pattern.match(b"xx")
    assert calls == [(rb"x+", 0)]
    assert pattern.match.__self__ is real(rb"x+")  # type: ignore[attr-defined]  # bound C method, no wrapper


def test_copies_and_pickles_as_the_same_pattern() -> None:
    pattern = lazy(rb"a|b", re.DOTALL)
    for other in (copy.deepcopy(pattern), pickle.loads(pickle.dumps(pattern))):
        assert (
            isinstance(other, LazyPattern)
            and other.pattern == rb"a|b"
            and other.findall(b"abc") == [b"a", b"b"]
        )


_IMPORT_ALL = textwrap.dedent(
    """
    import importlib, pkgutil, re, sys, traceback
    real = re.compile
    found = []

    def recording(pattern, flags=0):
        # why the caller's file first: a stack's source lines come through linecache and tokenize, and
        # on Python 3.13 a pattern tokenize compiles while it is imported would import it again
        caller = sys._getframe(1).f_code.co_filename
        if "/hipify_py/" not in caller:
            return real(pattern, flags)
        stack = traceback.extract_stack()[:-1]
        if caller.endswith("/hipify_py/util/lazyre.py"):  # a lazy pattern used at import: who used it
            user = [f for f in stack if "/hipify_py/" in f.filename and not f.filename.endswith("lazyre.py")]
            found.append(f"{user[-1].filename}:{user[-1].lineno}: {user[-1].line} (first use)")
        else:
            found.append(f"{caller}:{stack[-1].lineno}: {stack[-1].line}")
        return real(pattern, flags)

    re.compile = recording
    import hipify_py
    for info in pkgutil.walk_packages(hipify_py.__path__, "hipify_py."):
        importlib.import_module(info.name)
    print("\\n".join(found))
    """
)


def test_no_module_compiles_a_pattern_at_import() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip() == "", (
        "module-level patterns must be `lazy(...)` (hipify_py/util/lazyre.py), not re.compile:\n"
        + proc.stdout
    )


PATTERNS = [
    (rb"(?P<name>cuda\w+)\s*\(", 0),
    (r"^\s*#\s*(if|ifdef|ifndef)\b(?P<rest>.*)$", re.MULTILINE),
    (rb"(?<![\w$])register(?![\w$])[ \t]*", 0),
    (r" a  b # verbose", re.VERBOSE | re.IGNORECASE),
    (lexer_scan.pattern, re.VERBOSE | re.DOTALL),  # the lexer's: possessive on 3.11+, a lookahead on 3.10
]
TEXTS = [b"cudaMalloc (p); register int x; /* ab */ x", "#ifdef A\n  # if B rest\nAB ab"]


def same(a: re.Pattern, b: re.Pattern) -> None:  # type: ignore[type-arg]
    assert (a.pattern, a.flags, a.groups, dict(a.groupindex)) == (
        b.pattern,
        b.flags,
        b.groups,
        dict(b.groupindex),
    )
    for text in TEXTS:
        if isinstance(text, type(a.pattern)):
            assert [m.span() for m in a.finditer(text)] == [m.span() for m in b.finditer(text)]  # type: ignore[arg-type]


def test_stored_programs_compile_as_re_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "regex.marshal"
    first = ProgramStore(path)
    built = [first.compile(p, int(f)) for p, f in PATTERNS]
    first.save()
    second = ProgramStore(path)
    assert len(second.known) == len(PATTERNS) and not second.new
    monkeypatch.setattr(lazyre, "_program", lambda *a: pytest.fail("rebuilt, not read from the file"))
    for (pattern, flags), one in zip(PATTERNS, built, strict=True):
        again = second.compile(pattern, int(flags))
        same(again, re.compile(pattern, flags))
        same(one, again)


@pytest.mark.parametrize("content", [b"", b"garbage", None])
def test_damaged_file_or_program_falls_back(tmp_path: Path, content: bytes | None) -> None:
    import marshal

    path = tmp_path / "regex.marshal"
    pattern, flags = PATTERNS[0]
    # None: a file whose program for this pattern is nonsense; the engine refuses it
    path.write_bytes(
        marshal.dumps({(pattern, flags): (0, [1, 2, 3], 0, {}, ())}) if content is None else content
    )
    store = ProgramStore(path)
    same(store.compile(pattern, flags), re.compile(pattern, flags))
    store.save()
    assert ProgramStore(path).known[(pattern, flags)][1] != [1, 2, 3]  # the rebuilt program replaced it


def test_no_cache_directory_keeps_nothing() -> None:
    store = ProgramStore(None)
    same(store.compile(*PATTERNS[1]), re.compile(*PATTERNS[1]))
    assert not store.new


def test_store_keeps_the_most_recently_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ProgramStore, "KEEP", 3)
    path = tmp_path / "regex.marshal"
    first = ProgramStore(path)
    for name in (b"a", b"b", b"c"):
        first.compile(name, 0)
    first.save()
    second = ProgramStore(path)
    second.compile(b"a", 0)  # used again: kept
    second.compile(b"d", 0)  # new: kept, so the oldest unused one (b"b") goes
    second.save()
    assert list(ProgramStore(path).known) == [(b"c", 0), (b"a", 0), (b"d", 0)]


def test_compiled_is_re_compile_through_the_store() -> None:
    pattern = rb"#[ \t]*define[ \t]+NAME\b|\bclass\s+NAME\s*[:{]"
    assert lazyre.compiled(pattern) is lazyre.compiled(pattern)  # one object per process
    same(lazyre.compiled(pattern), re.compile(pattern))


def test_shipped_programs_seed_an_empty_store(tmp_path: Path) -> None:
    """A fresh install compiles nothing the wheel shipped, and keeps what it used in its own cache."""
    shipped = ProgramStore(tmp_path / "shipped.marshal")
    shipped.compile(rb"cuda\w+", 0)
    shipped.save()
    store = ProgramStore(tmp_path / "cache" / "regex.marshal", tmp_path / "shipped.marshal")
    assert store.compile(rb"cuda\w+", 0).findall(b"cudaMalloc(p)") == [b"cudaMalloc"]
    assert set(store.known) == {(rb"cuda\w+", 0)}
    store.save()
    assert set(ProgramStore(tmp_path / "cache" / "regex.marshal").known) == {(rb"cuda\w+", 0)}


def test_shipped_programs_stay_known_beside_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's file holds only what earlier runs used (and what pool workers used is never saved
    there): the shipped programs must stay known next to it, or every later run compiles them again."""
    shipped = ProgramStore(tmp_path / "shipped.marshal")
    shipped.compile(rb"cuda\w+", 0)
    shipped.save()
    cache = ProgramStore(tmp_path / "cache" / "regex.marshal")
    cache.compile(rb"hip\w+", 0)
    cache.save()
    store = ProgramStore(tmp_path / "cache" / "regex.marshal", tmp_path / "shipped.marshal")
    assert set(store.known) == {(rb"hip\w+", 0)}  # the shipped file is read only when needed
    monkeypatch.setattr(lazyre, "_program", lambda *_: pytest.fail("a shipped program was compiled"))
    assert store.compile(rb"cuda\w+", 0).findall(b"cudaMalloc(p)") == [b"cudaMalloc"]
    assert set(store.known) == {(rb"cuda\w+", 0), (rb"hip\w+", 0)}


@pytest.mark.parametrize(
    "content",
    [
        b"[1, 2]",  # a list whose length field reads as 540 million: refused before marshal allocates it
        b"\xdb\xff\xff\xff\x7f",  # the same with FLAG_REF, length 2**31-1
        b'{"a": 1}',
        b"\x00",
    ],
)
def test_damaged_cache_files_read_as_none(tmp_path: Path, content: bytes) -> None:
    """Every cache file of ours (regex programs, mapping tables, the HIP probe) is read through this."""
    from hipify_py.util.fileio import read_marshal_dict

    path = tmp_path / "cache.marshal"
    path.write_bytes(content)
    assert read_marshal_dict(path) is None
    assert read_marshal_dict(tmp_path / "missing.marshal") is None
    path.write_bytes(__import__("marshal").dumps({"k": [1, 2]}))
    assert read_marshal_dict(path) == {"k": [1, 2]}
