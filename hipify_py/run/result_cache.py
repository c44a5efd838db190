"""Content-hash cache of translation results, so a re-run over an unchanged tree does almost no work.

Layout under the cache directory ($HIPIFY_PY_CACHE_DIR, else $XDG_CACHE_HOME/hipify-py):
- `results/<project>.marshal`: ONE file per project (the common parent of the inputs) holding
  `files`   path -> (mtime_ns, size, inode, content hash): a stat() match skips reading the file;
  `results` key -> result tuple (marshalled apart: decoded on lookup), key = hash(settings digest,
            path, content hash);
  `written` output path -> (mtime_ns, size, inode, output hash): files this tool wrote (-o mode),
            so an unchanged re-run skips writing a target that already has the right bytes.
  One read of one file per run: 1,000 small cache files would cost more than the work they save.
- `blobs/xx/<hash>`: converted texts (only --diff/stdout runs store them), read only on demand;
  an -o run's outputs are their own copies (`written`), re-read when another target needs them.

The settings digest covers the tool version, a stamp of the package code and mapping tables,
the contents of extra mapping files, the translation options, build options and rename plan.
Writes are atomic (temp file + os.replace); concurrent runs may drop each other's new entries
but never corrupt the file. A corrupt or foreign file is ignored and rebuilt.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import time
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISREG
from typing import NamedTuple

from hipify_py.util.fileio import atomic_write
from hipify_py.util.locations import code_stamp, content_hash, text_hash

# 2: results carry the file's #defines (option_macros); 3: results stored marshalled; 4: helpers
CACHE_FORMAT = 4
# A file modified this close to when it was hashed may change again within one mtime tick without
# its stat changing ("racy git"); such entries are stored without a trusted stat and re-hashed.
RACY_SECONDS = 1.0
MIN_KEEP = 2000  # entries kept at least; beyond that, about 4x the files of the last run


class Result(NamedTuple):
    """What a translation produced, without the text (that lives in a blob when needed)."""

    changed: bool
    out_hash: str
    diagnostics: tuple[tuple, ...]  # Diagnostic fields, severity as int
    counts: tuple[tuple[str, int], ...]
    lines: int
    message: str
    moves: tuple = ()  # --verify runs: linemap layers (translated -> original positions)
    defines: tuple[str, ...] = ()  # macros the file #defines: the project-wide part of a hit's findings
    # (helpers written, those the closure defined[, aliases, CUdeviceptr names]): a hit re-checks them
    helpers: tuple = ()

    def as_tuple(self) -> tuple:
        return (
            self.changed,
            self.out_hash,
            self.diagnostics,
            self.counts,
            self.lines,
            self.message,
            self.moves,
            self.defines,
            self.helpers,
        )


def _stat_key(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _trusted(st: os.stat_result, now: float) -> bool:
    return now - st.st_mtime_ns / 1e9 > RACY_SECONDS


RACY = (-1, -1, -1)  # a stat entry too recent to trust: the file is read (and hashed) to check it


def stat_entry(st: os.stat_result) -> tuple[int, int, int]:
    """What the files index keeps of a stat taken before the file was read: RACY when it is racy."""
    return _stat_key(st) if _trusted(st, time.time()) else RACY


class ResultCache:
    """The per-project cache of one run: load once, look up/store many times, save once."""

    def __init__(self, root: Path, project: Path, settings_digest: str) -> None:
        self.root = root
        self.digest = settings_digest
        self.path = root / "results" / f"{text_hash(str(project.resolve()))}-{CACHE_FORMAT}.marshal"
        self.files: dict[str, tuple[int, int, int, str]] = {}
        # key -> the result tuple, marshalled on its own: loading the cache makes one bytes object per
        # entry, and only the entries a run looks up are decoded (a project's 1,000 results: ~8 ms)
        self.results: dict[str, bytes] = {}
        self.written: dict[str, tuple[int, int, int, str]] = {}
        self.dirty = False
        self.hits = self.misses = 0
        self._by_hash: dict[str, list[str]] | None = None
        self._load()

    def _load(self) -> None:
        try:
            data = marshal.loads(self.path.read_bytes())
            if data["format"] == CACHE_FORMAT:
                self.files, self.results, self.written = data["files"], data["results"], data["written"]
        except (OSError, EOFError, ValueError, TypeError, KeyError):
            pass  # missing or corrupt: start empty, the next save rewrites it

    # -- source files ---------------------------------------------------------------------------

    def file_hash(self, path: Path | str) -> str | None:
        """Content hash of `path` (from the stat index when the file has not changed), None if unreadable."""
        name = os.path.abspath(path)
        try:
            st = os.stat(name)
        except OSError:
            return None
        if not S_ISREG(st.st_mode):  # a FIFO named x.cu would block the read forever
            return None
        known = self.files.get(name)
        if known is not None and known[:3] == _stat_key(st):
            return known[3]
        try:
            with open(name, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        digest = content_hash(data)
        self.note_file(path, digest, st)
        return digest

    def note_file(self, path: Path, digest: str, st: os.stat_result | None = None) -> None:
        """Remember the content hash of a file (e.g. one this run just wrote)."""
        try:
            st = st or os.stat(path)
        except OSError:
            return
        self.note_read(path, stat_entry(st), digest)

    def note_read(self, path: Path | str, stat_key: tuple[int, int, int], digest: str) -> None:
        """Remember the content hash of a file a worker read, with its `stat_entry` from before the read."""
        name = os.path.abspath(path)
        entry = (*stat_key, digest)
        if self.files.get(name) != entry:
            self.files[name] = entry
            self.dirty = True

    # -- results --------------------------------------------------------------------------------

    def key(self, path: Path | str, digest: str) -> str:
        return text_hash(self.digest, os.path.abspath(path), digest)

    def get(self, path: Path | str, digest: str) -> Result | None:
        key = self.key(path, digest)
        raw = self.results.pop(key, None)
        if raw is None:
            self.misses += 1
            return None
        self.results[key] = raw  # why: re-insert keeps recently used entries last, pruning drops the oldest
        self.hits += 1
        try:
            return Result(*marshal.loads(raw))
        except (EOFError, ValueError, TypeError):
            return None

    def put(self, path: Path, digest: str, result: Result) -> None:
        self.results[self.key(path, digest)] = marshal.dumps(result.as_tuple())
        self.dirty = True

    # -- output files (-o mode) -----------------------------------------------------------------

    def target_has(self, target: Path, out_hash: str) -> bool:
        """True when `target` still holds what this tool wrote there, which was `out_hash`."""
        entry = self.written.get(os.path.abspath(target))
        if entry is None or entry[3] != out_hash:
            return False
        try:
            if entry[0] >= 0 and entry[:3] == _stat_key(os.stat(target)):
                return True
            with open(target, "rb") as handle:  # racy or touched: the bytes decide (no translation)
                return content_hash(handle.read()) == out_hash
        except OSError:
            return False

    def written_copy(self, out_hash: str) -> bytes | None:
        """The bytes of any output this tool wrote with `out_hash` that is still intact, else None."""
        if self._by_hash is None:  # built on the first need: most runs never ask
            self._by_hash = {}
            for target, entry in self.written.items():
                self._by_hash.setdefault(entry[3], []).append(target)
        for target in self._by_hash.get(out_hash, ()):
            entry = self.written.get(target)
            if entry is None or entry[3] != out_hash:
                continue
            try:
                with open(target, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if content_hash(data) == out_hash:
                return data
        return None

    def note_written(self, target: Path, out_hash: str, stat_key: tuple[int, int, int] | None = None) -> None:
        """Remember what `target` holds; `stat_key`: its stat entry from the worker that wrote or compared
        it (RACY for a file just written), else it is stat'ed here."""
        if stat_key is None:
            try:
                st = os.stat(target)
            except OSError:
                return
            stat_key = stat_entry(st)
        self.written[os.path.abspath(target)] = (*stat_key, out_hash)
        self.dirty = True

    # -- persistence ----------------------------------------------------------------------------

    def save(self, current_files: int) -> None:
        if not self.dirty:
            return
        keep = max(MIN_KEEP, 4 * current_files)
        data = {
            "format": CACHE_FORMAT,
            "files": _newest(self.files, keep),
            "results": _newest(self.results, keep),
            "written": _newest(self.written, keep),
        }
        with contextlib.suppress(OSError, ValueError):
            atomic_write(self.path, marshal.dumps(data), durable=False)
        self.dirty = False


def _newest(table: dict, keep: int) -> dict:
    if len(table) <= keep:
        return table
    return dict(list(table.items())[-keep:])


# -- blobs (converted texts) ----------------------------------------------------------------------


def _blob_path(root: Path, out_hash: str) -> Path:
    return root / "blobs" / out_hash[:2] / out_hash


def get_blob(root: Path, out_hash: str) -> bytes | None:
    try:
        data = _blob_path(root, out_hash).read_bytes()
    except OSError:
        return None
    return data if content_hash(data) == out_hash else None  # a damaged blob is a miss


def put_blob(root: Path, out_hash: str, data: bytes) -> None:
    path = _blob_path(root, out_hash)
    if path.exists():
        return
    with contextlib.suppress(OSError):
        atomic_write(path, data, durable=False)


# -- the settings digest --------------------------------------------------------------------------


def settings_digest(version: str, parts: Iterable[str], extra_files: Iterable[Path]) -> str:
    """Digest of everything besides the file itself that decides a translation result."""
    extra = []
    for path in extra_files:
        try:
            extra.append(f"{path}:{content_hash(Path(path).read_bytes())}")
        except OSError:
            extra.append(f"{path}:missing")
    return text_hash(str(CACHE_FORMAT), version, code_stamp(), *parts, *extra)
