"""Where things live and how cached things are keyed: the ONE cache-directory resolver, the mapping
tables' folder, the tables shipped prebuilt in a wheel, the code stamp and the hashes of the caches.

Every cache of the package (results, built tables, parsed YAML, compiled patterns, compiles) lives
under `cache_root()`; every key that must change with the code includes `code_stamp()`.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # hipify_py/
CACHE_ENV = "HIPIFY_PY_CACHE_DIR"
PREBUILT = "prebuilt"  # under the installed mapping tables (hipify_py/mappings_data/)
STAMP_FILE = "code-stamp"  # in PREBUILT: source_stamp() of the built package
_CHECKOUT_MARK = "generated/runtime.yaml"  # the first mapping family's table (data/mappings.py: FAMILY_ORDER)
# The three kinds of mapping table, one folder each (mappings/README.md says which script writes which)
GENERATED = "generated"  # written by scripts/gen_*.py from reference data
PROBED = "probed"  # <table>-<HIP version>.yaml, written per release by scripts/probe_*.py from its compilers
HAND_KEPT = "hand-kept"  # edited by hand, a source for each fact


def cache_root() -> Path | None:
    """$HIPIFY_PY_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/hipify-py, else ~/.cache/hipify-py."""
    override = os.environ.get(CACHE_ENV)
    if override is not None:
        return Path(override) if override else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hipify-py"


def mappings_dir() -> Path:
    """The repo checkout's mappings/ when running from source, else the installed package data."""
    checkout = PACKAGE_DIR.parent / "mappings"
    if (checkout / _CHECKOUT_MARK).is_file():
        return checkout
    return PACKAGE_DIR / "mappings_data"


def generated_dir() -> Path:
    return mappings_dir() / GENERATED


def probed_dir() -> Path:
    return mappings_dir() / PROBED


def hand_kept_dir() -> Path:
    return mappings_dir() / HAND_KEPT


@functools.lru_cache(maxsize=1)
def shipped_dir() -> Path | None:
    """The tables built into the installed wheel, None when running from a checkout."""
    tables = mappings_dir()
    if tables.name == "mappings":  # the checkout's own mappings/: nothing built there is trusted
        return None
    found = tables / PREBUILT
    return found if found.is_dir() else None


def _hasher() -> Callable[..., Any]:
    try:  # why: `hashlib` imports OpenSSL bindings (~10 ms of start-up); _blake2 is builtin and fast
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - other interpreters
        from hashlib import blake2b
    return blake2b


def content_hash(data: bytes) -> str:
    return _hasher()(data, digest_size=16).hexdigest()


def text_hash(*parts: str) -> str:
    return content_hash("\0".join(parts).encode("utf-8", "surrogateescape"))


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """Stamp of the package code and built-in mapping tables (name, size, mtime of each file).

    Covers a development checkout where the code changes without a version bump. Stat only: hashing
    1.3 MB of tables on every run would cost more than the rest of a warm run. An installed wheel
    reads the stamp its build wrote (`source_stamp`, like the tables it ships: the code beside them
    is the code that built them) instead of stat-ing its ~350 files on every run.
    """
    shipped = shipped_dir()
    if shipped is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return "wheel:" + (shipped / STAMP_FILE).read_text(encoding="utf-8")
    parts: list[str] = []
    for top in (PACKAGE_DIR, PACKAGE_DIR.parent / "mappings"):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".yaml")):
                    with contextlib.suppress(OSError):
                        st = os.stat(os.path.join(dirpath, name))
                        parts.append(f"{dirpath}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return text_hash(*parts)


def source_stamp(package: Path) -> str:
    """Content hash of a package tree's code and mapping tables (relative name and bytes of every .py
    and .yaml): what a wheel's build writes as its code stamp, the same for two builds of one tree."""
    parts: list[str] = []
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".yaml")):
                path = os.path.join(dirpath, name)
                with open(path, "rb") as handle:
                    parts.append(f"{os.path.relpath(path, package)}:{content_hash(handle.read())}")
    return text_hash(*parts)
