"""Cache of compile results, so re-verifying an unchanged tree runs no compiler.

Key: the compiler's version, the TU's place in the tree, its flags (tree paths replaced by a
placeholder, so a temporary mirror at another path still hits) and its translated content. An entry
also lists every file the compile read (from -MD) with its content hash: a hit needs all of them
unchanged, so an edited header re-runs exactly the TUs that include it (as ccache's direct mode does).
Entries are small marshal files under <cache>/verify/, written atomically.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from collections.abc import Sequence
from pathlib import Path

from hipify_py.util.fileio import atomic_write
from hipify_py.util.locations import content_hash, text_hash

FORMAT = 1
TREE = "\0TREE\0"  # placeholder for the compiled tree's root in keys, stderr and dependency paths


class FileHashes:
    """Content hashes of files, each file read at most once per run (system headers are shared by all TUs)."""

    def __init__(self) -> None:
        self.known: dict[str, str | None] = {}

    def of(self, path: str) -> str | None:
        if path not in self.known:
            try:
                with open(path, "rb") as handle:
                    self.known[path] = content_hash(handle.read())
            except OSError:
                self.known[path] = None
        return self.known[path]

    def forget(self, path: str) -> None:
        """The file has just been (re)written."""
        self.known.pop(path, None)


class CompileCache:
    def __init__(self, root: Path, tree: str, hashes: FileHashes) -> None:
        self.dir = root / "verify"
        self.tree = tree.rstrip(os.sep)
        self.hashes = hashes
        self.hits = 0

    def _norm(self, text: str) -> str:
        return text.replace(self.tree, TREE)

    def _unnorm(self, text: str) -> str:
        return text.replace(TREE, self.tree)

    def key(
        self, compiler_version: str, source: str, cwd: str, args: Sequence[str], arch: Sequence[str]
    ) -> str | None:
        digest = self.hashes.of(source)
        if digest is None:
            return None
        parts = (str(FORMAT), compiler_version, self._norm(source), self._norm(cwd), *map(self._norm, args))
        return text_hash(*parts, "\0arch", *arch, digest)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.marshal"

    def get(self, key: str) -> tuple[int, str] | None:
        """(returncode, stderr) of an earlier compile whose every input is unchanged, else None."""
        try:
            raw = marshal.loads(self._path(key).read_bytes())
            returncode, stderr, deps = raw
        except (OSError, EOFError, ValueError, TypeError):
            return None
        for path, digest in deps:
            if self.hashes.of(self._unnorm(path)) != digest:
                return None
        self.hits += 1
        return returncode, self._unnorm(stderr)

    def put(self, key: str, returncode: int, stderr: str, deps: Sequence[str]) -> None:
        if returncode < 0 or not deps:  # a timeout or a compiler that did not run: try again next time
            return
        listed = []
        for path in deps:
            digest = self.hashes.of(path)
            if digest is None:
                return
            listed.append((self._norm(path), digest))
        data = marshal.dumps((returncode, self._norm(stderr), tuple(listed)))
        with contextlib.suppress(OSError):
            atomic_write(self._path(key), data, durable=False)
