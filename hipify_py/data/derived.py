"""Objects built from the data tables, kept in the cache directory between runs.

A rule's table (call adaptations, HIP's device functions, version adaptations) is parsed from YAML and
turned into lookups; for one staged file that build costs more than translating the file. `load`
returns what `build(*args)` returns, from `<cache>/derived/<name>-<key>.pickle` when an earlier run
built it with the same code and tables, else it builds it and writes the pickle atomically.

The key is the code stamp (`cache.code_stamp`: every .py of the package and mappings/*.yaml by name,
size and mtime, as the result cache uses), the name and the arguments, so an edited table or rule
module is rebuilt. Arguments must have a stable repr (str, int, None, tuples of them); a builder that
reads anything else (a user's file) must not be cached. No cache directory, an unreadable or
foreign file: built in-process, as without this module. Each build keeps the KEEP newest files of
its name, so edits during development do not pile up.

An installed wheel also ships the tables it was built with (`shipped_dir()`, written by
`hipify_py.run.prebuild` at build time and keyed without the code stamp: the code beside them is the code
that built them), so a fresh install with an empty cache directory builds nothing it ships. A checkout
(editable install) has no such directory: its YAML is edited, and the code stamp decides.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hipify_py.util.fileio import atomic_write
from hipify_py.util.locations import cache_root, code_stamp, shipped_dir, text_hash

T = TypeVar("T")
FORMAT = 1
KEEP = 4  # files kept per name: a few checkouts or versions sharing one cache directory
_MISSING = object()


def shipped_name(name: str, args: tuple[Any, ...]) -> str:
    """A shipped table's file name: no code stamp (the wheel's code is the code that built it)."""
    return f"{name}-{text_hash(str(FORMAT), name, repr(args))}.pickle"


def path_for(name: str, args: tuple[Any, ...], root: Path | None = None) -> Path | None:
    root = root if root is not None else cache_root()
    if root is None:
        return None
    key = text_hash(str(FORMAT), code_stamp(), name, repr(args))
    return root / "derived" / f"{name}-{key}.pickle"


def load(name: str, build: Callable[..., T], *args: Any, cache: bool = True) -> T:
    """`build(*args)`, from the cache when a run with the same code and tables already built it.

    `cache=False` (e.g. `--no-cache`): neither read nor write the cache directory."""
    shipped = shipped_dir()
    if shipped is not None:  # why even with cache=False: shipped tables are the package, not a cache
        found = read(shipped / shipped_name(name, args), name, args)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
    path = path_for(name, args) if cache else None
    if path is None:
        return build(*args)
    found = read(path, name, args)
    if found is not _MISSING:
        return found  # type: ignore[no-any-return]
    value = build(*args)
    _store(path, name, args, value)
    return value


def read(path: Path, name: str, args: tuple[Any, ...]) -> Any:
    """The value stored at `path` for (name, args), else _MISSING."""
    import pickle  # why here: only runs that use a cached table pay its import

    try:
        with open(path, "rb") as handle:
            stored = pickle.loads(handle.read())  # why not pickle.load: one read, not many small ones
        if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == (FORMAT, name, args):
            return stored[1]
    except Exception:  # why so broad: a missing, damaged or foreign file is a miss, never an error
        pass
    return _MISSING


def dump(name: str, args: tuple[Any, ...], value: Any) -> bytes:
    """What `read` reads back: the key travels with the value, so a foreign file is a miss."""
    import pickle

    return pickle.dumps(((FORMAT, name, args), value), protocol=pickle.HIGHEST_PROTOCOL)


def _store(path: Path, name: str, args: tuple[Any, ...], value: Any) -> None:
    import pickle

    # why suppressed: an unwritable cache directory (read-only home, CI sandbox) only costs a rebuild
    with contextlib.suppress(OSError, pickle.PicklingError, TypeError, AttributeError):
        data = dump(name, args, value)
        if not path.parent.is_dir():
            os.makedirs(path.parent, exist_ok=True)
        atomic_write(path, data, durable=False)
        _prune(path, name)


def _prune(written: Path, name: str) -> None:
    """Keep `written` and the KEEP - 1 newest other files of `name` (each code or table edit makes one)."""
    others = []
    for entry in os.scandir(written.parent):
        stem, _, key = entry.name.rpartition("-")
        if stem == name and key.endswith(".pickle") and entry.name != written.name:
            with contextlib.suppress(OSError):
                others.append((entry.stat().st_mtime_ns, entry.path))
    for _, old in sorted(others, reverse=True)[KEEP - 1 :]:
        with contextlib.suppress(OSError):
            os.unlink(old)
