"""Reading and atomic writing of files. A file is never left half-written."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

BINARY_SNIFF = 8192


class InputError(Exception):
    """A file that cannot be converted (unreadable, binary, ...): reported, the run goes on."""


def read_source(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except PermissionError:
        raise InputError("permission denied: cannot read file") from None
    except IsADirectoryError:
        raise InputError("is a directory") from None
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}") from None
    if b"\0" in data[:BINARY_SNIFF]:
        raise InputError("binary file (NUL bytes), skipped")
    return data


def is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def atomic_write(path: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write via a temp file in the same directory + fsync + os.replace.

    Readers (and an interrupted run) see either the old or the new content, never a mix.
    Permission bits are copied from `mode_from` (the original file) or kept from `path`.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    reference = mode_from if mode_from is not None else path
    try:
        mode = stat.S_IMODE(reference.stat().st_mode)
    except OSError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hipify-py.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def backup_copy(path: Path, suffix: str) -> Path:
    """Copy `path` to `path + suffix` atomically (metadata kept) before it is replaced."""
    target = path.with_name(path.name + suffix)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".hipify-py.tmp", dir=path.parent)
    os.close(fd)
    try:
        shutil.copy2(path, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def writable(path: Path) -> bool:
    return os.access(path, os.W_OK)
