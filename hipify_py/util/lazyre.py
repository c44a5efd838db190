"""Regular expressions compiled on first use.

Compiling the ~150 module-level patterns of the rules took ~50 ms at import, a third of a one-file
(pre-commit) run; most files need a handful of them (a detector whose needles are absent never runs
its pattern). Module-level patterns are therefore written

    _LAUNCH = lazy(rb"<<<", re.DOTALL)

and behave as the `re.Pattern` they stand for: the first method call or attribute read compiles the
pattern once and stores the compiled pattern's bound methods on the object, so every later call goes
straight to C (no Python frame in between). `tests/test_lazyre.py` fails when a module compiles a
pattern at import.

Compiling is parsing the pattern and generating the regex engine's program, in Python (~0.2 ms a
pattern, 15-20 ms for the ~90 a rich file needs). The programs are kept between runs in
`<cache>/regex-<interpreter>-<engine magic>.marshal` and handed to the engine directly (`_sre.compile`,
what `re.compile` itself ends with); the engine validates every program it is given, and anything
unexpected (another Python, a damaged file) falls back to `re.compile`. New programs are added to the
file when the process exits.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any, AnyStr, cast

_FORWARDED = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class LazyPattern:
    """Stands for `re.compile(pattern, flags)`; compiles on the first use of anything but `.pattern`."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern  # why stored: patterns are built from other patterns' text at import
        self._flags = flags

    def compiled(self) -> re.Pattern[Any]:
        return _compile(self.pattern, self._flags)

    def __getattr__(self, name: str) -> Any:
        # why the guard: copy/pickle probe dunders on a half-built object; they must not compile
        if name.startswith("__") or "_flags" not in self.__dict__:
            raise AttributeError(name)
        compiled = self.compiled()
        for attribute in _FORWARDED:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (LazyPattern, (self.pattern, self._flags))

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def words_at_boundary(words: Iterable[bytes]) -> bytes:
    r"""`\b(?:word1|word2|...)` for words of word characters (nothing to escape), written `w(?<!\ww)ord1|...`:
    the boundary checked behind each word's first letter. why: a pattern that starts with \b (or any
    assertion) is tried at every byte; one that starts with literals gets the engine's search for them."""
    return b"(?:" + b"|".join(w[:1] + rb"(?<!\w" + w[:1] + b")" + w[1:] for w in words) + b")"


def lazy(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, compiled when first used (typed as the pattern it stands for)."""
    return cast("re.Pattern[AnyStr]", LazyPattern(pattern, int(flags)))


# -- compiled programs kept between runs -----------------------------------------------------------

Program = tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]  # _sre.compile's arguments


class ProgramStore:
    """(pattern, flags) -> the engine program re.compile would build; loaded once, saved at exit.

    The file keeps the KEEP most recently used programs (patterns built from a file's names come and
    go with the files)."""

    KEEP = 3000

    def __init__(self, path: Any, shipped: Any = None) -> None:
        self.path = path  # a Path, or None: nothing is read or written
        self.known: dict[tuple[Any, int], Program] = self._read(path)
        # why the shipped programs too, read at the first pattern the cache's file lacks: that file holds
        # what this machine's runs used and saved (the run's own process only: pool workers save
        # nothing), not the whole shipped set; the workers of every run after the first compiled the
        # ~180 shipped patterns again. Read lazily: a run the cache's file covers does not pay for it
        self.shipped = shipped
        self.new: dict[tuple[Any, int], Program] = {}  # built or used by this process, in order

    @staticmethod
    def _read(path: Any) -> dict[tuple[Any, int], Program]:
        from hipify_py.util.fileio import read_marshal_dict

        if path is None:
            return {}
        return read_marshal_dict(path) or {}

    def compile(self, pattern: str | bytes, flags: int) -> re.Pattern[Any]:
        import _sre

        key = (pattern, flags)
        program = self.known.get(key)
        if program is None and self.shipped is not None:
            self.read_shipped()
            program = self.known.get(key)
        compiled = None
        if program is not None:
            try:
                compiled = _sre.compile(pattern, *program)
            except Exception:  # why so broad: a program the engine rejects is rebuilt below
                self.known.pop(key, None)
                program = None
        if program is None:
            try:
                program = _program(pattern, flags)
                compiled = _sre.compile(pattern, *program)
            except Exception:  # why so broad: an interpreter whose internals differ: the public way
                return re.compile(pattern, flags)
            self.known[key] = program
        if self.path is not None and key not in self.new:
            if not self.new:
                import atexit

                atexit.register(self.save)
            self.new[key] = program
        return compiled  # type: ignore[return-value]

    def read_shipped(self) -> None:
        """Add the shipped programs (once; the machine's own file wins where both have one)."""
        if self.shipped is not None:
            self.known = {**self._read(self.shipped), **self.known}
            self.shipped = None

    def save(self) -> None:
        """Merge this process's new programs into the file (atomic replace; a lost race loses nothing
        but those programs)."""
        if not self.new or self.path is None:
            return
        import contextlib
        import marshal

        from hipify_py.util.fileio import atomic_write

        on_disk = self._read(self.path)
        if (
            all(on_disk.get(key) == program for key, program in self.new.items())
            and len(on_disk) <= self.KEEP
        ):
            return  # nothing new (the used ones stay: their order only matters once the file is full)
        merged = {**on_disk}
        for key, program in self.new.items():  # used last = kept longest
            merged.pop(key, None)
            merged[key] = program
        merged = dict(list(merged.items())[-self.KEEP :])
        with contextlib.suppress(OSError, ValueError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, marshal.dumps(merged), durable=False)
        self.new = {}


def _program(pattern: str | bytes, flags: int) -> Program:
    """What re._compiler.compile passes to _sre.compile, as plain ints/strs (marshal-able)."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10: the same modules under their old names
        import sre_compile as _compiler  # type: ignore[no-redef]
        import sre_parse as _parser  # type: ignore[no-redef]

    parsed = _parser.parse(pattern, flags)
    code = [int(c) for c in _compiler._code(parsed, flags)]
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


_stores: list[ProgramStore] = []  # the process's store, made on the first compile


def store_path() -> Any:
    import _sre

    from hipify_py.util.locations import cache_root

    root = cache_root()
    tag = f"{sys.implementation.cache_tag}-{_sre.MAGIC}-{_sre.CODESIZE}"
    return None if root is None else root / f"regex-{tag}.marshal"


def shipped_store(path: Any) -> Any:
    """The programs shipped in the wheel for this interpreter (hipify_py/run/prebuild.py), else None."""
    from hipify_py.util.locations import shipped_dir

    shipped = shipped_dir()
    return None if shipped is None or path is None else shipped / path.name


def _compile(pattern: str | bytes, flags: int) -> re.Pattern[Any]:
    from hipify_py.util.startup import on

    if flags & re.DEBUG or not on("regex"):  # why `regex` off: re's own compile (util/startup.py)
        return re.compile(pattern, flags)
    return _store().compile(pattern, flags)


def _store() -> ProgramStore:
    if not _stores:
        path = store_path()
        _stores.append(ProgramStore(path, shipped_store(path)))
    return _stores[0]


def load_programs() -> None:
    """Read the stored and the shipped programs now: before a pool forks, so that its workers inherit
    them instead of each reading both files at its first pattern."""
    _store().read_shipped()


def save_programs() -> None:
    """Write this process's new programs now (the store does so at exit; prebuild cannot wait)."""
    for store in _stores:
        store.save()


_recent: dict[tuple[Any, int], re.Pattern[Any]] = {}  # this process's run-time patterns, oldest first
_RECENT_MAX = 512  # as many as the re module keeps


def compiled(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """`re.compile` for a pattern built at run time that recurs across runs (from the tables, the
    options or a file's names): the program comes from the store when an earlier run built it."""
    key = (pattern, int(flags))
    found = _recent.get(key)
    if found is None:
        if len(_recent) >= _RECENT_MAX:
            del _recent[next(iter(_recent))]
        found = _recent[key] = _compile(pattern, int(flags))
    return found
