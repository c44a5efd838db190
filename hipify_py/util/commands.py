"""which(): the file a command name runs, found on PATH, as shutil.which finds it on POSIX.

why not shutil.which: importing shutil (and zlib, bz2 and lzma, for its archives) cost ~3 ms of every
run's start-up, on the command line's path to handing over its files (docs/performance.md); a run
only looks up hipcc.
"""

from __future__ import annotations

import os


def which(name: str, path: str | None = None) -> str | None:
    """The first runnable `name` along `path` (default: $PATH); a name with a directory is checked as
    it is. None when there is none."""
    if os.name != "posix":  # pragma: no cover - PATHEXT and the current directory: shutil knows them
        import shutil

        return shutil.which(name, path=path)
    if os.path.dirname(name):
        return name if _runnable(name) else None
    if path is None:
        path = os.environ.get("PATH")
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:
        return None
    seen: set[str] = set()
    for directory in path.split(os.pathsep):
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, name)
        if _runnable(candidate):
            return candidate
    return None


def _runnable(file: str) -> bool:
    return os.path.exists(file) and os.access(file, os.X_OK) and not os.path.isdir(file)
