"""Reading and atomic writing of files. A file is never left half-written."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

BINARY_SNIFF = 8192
# Temp files are `.<name>.hipify-py-tmp.<pid>.<random>` next to their target: hidden, recognisable, and
# the pid tells a later run whether the writer is gone (killed) so the leftover can be removed.
TEMP_MARK = ".hipify-py-tmp."
_TEMP_NAME = r"^\..*\.hipify-py-tmp\.(\d+)\.\w+$"  # why no lazy(): lazyre writes through this module
# why once: getattr of a flag this os lacks (O_BINARY off Windows) raises and formats an AttributeError
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
)


class InputError(Exception):
    """A file that cannot be converted (unreadable, binary, ...): reported, the run goes on.

    `skip`: not an error, just not a source file (binary, FIFO): the run's exit code is not affected.
    """

    def __init__(self, message: str, skip: bool = False) -> None:
        super().__init__(message)
        self.skip = skip


def read_source(path: Path) -> bytes:
    return read_source_stat(path)[0]


def read_source_stat(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and its stat taken on the opened file before reading it (the result cache's
    files index and the output's permissions use it: no second stat of the path)."""
    try:
        # why O_NONBLOCK + fstat: opening a FIFO (or reading a device) named like a source would block
        # the run forever; the check is on the opened file, so nothing can swap it in between
        fd = os.open(path, _READ_FLAGS)
        try:  # why no file object: os.fdopen adds ~5 syscalls (ioctl, lseek, fstats) and two objects
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(st.st_mode):
                raise InputError("not a regular file (FIFO, socket or device)", skip=True)
            data = _read_to_end(fd, st.st_size)
        finally:
            os.close(fd)
    except PermissionError:
        raise InputError("permission denied: cannot read file") from None
    except IsADirectoryError:
        raise InputError("is a directory") from None
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}") from None
    if b"\0" in data[:BINARY_SNIFF]:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # a BOM: text, but every other byte is NUL
            raise InputError("UTF-16 text is not supported (convert the file to UTF-8)", skip=True)
        raise InputError("binary file (NUL bytes)", skip=True)
    return data, st


def reading_ahead(paths: Iterable[str], batch: int = 16) -> Iterator[None]:
    """Ask the kernel to start reading these files into its cache, without waiting for them: one step
    (one yield) per `batch` files, so a caller that must stay responsive runs the steps in its idle time.

    why: a file whose pages were evicted (first run after a checkout, memory pressure) costs its reader
    a wait on the disk; 400 small files read cold took a -j2 run from 0.27 to 0.22 s (median) when
    advised ahead, and nothing measurable when they were cached. Opened as read_source_stat opens them,
    so a FIFO does not block; anything that cannot be advised is skipped (its read reports the problem)."""
    if not hasattr(os, "posix_fadvise"):
        return
    for count, path in enumerate(paths, 1):
        _advise_reading(path)
        if count % batch == 0:
            yield


def _advise_reading(path: str) -> None:
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
    except OSError:  # a FIFO or device: nothing to read ahead
        pass
    finally:
        os.close(fd)


def _read_to_end(fd: int, size: int) -> bytes:
    """Everything left in the file, as a file object's read() returns it: `size` (from its stat) sizes
    the first read, and reading goes on until a read returns nothing (a file that grew is read whole)."""
    data = os.read(fd, size + 1)
    chunks = [data]
    while data:
        data = os.read(fd, max(size, _READ_CHUNK))
        chunks.append(data)
    return chunks[0] if len(chunks) <= 2 else b"".join(chunks)


_READ_CHUNK = 1 << 16


def is_valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def atomic_write(path: Path, data: bytes, mode_from: Path | None = None, durable: bool = True) -> None:
    """Write via a temp file in the same directory + fsync + os.replace.

    Readers (and an interrupted run) see either the old or the new content, never a mix.
    Permission bits are copied from `mode_from` (the original file) or kept from `path`.
    `durable=False` skips the fsync (still atomic against a killed process, not against power loss):
    for generated output trees, where an fsync per file was a third of a cold run.
    """
    if path.is_symlink():  # why: replacing the link itself would turn it into a copy of the file
        path = Path(os.path.realpath(path))
    reference = mode_from if mode_from is not None else path
    try:
        st: os.stat_result | None = reference.stat()
    except OSError:
        st = None
    write_replacing(path, data, st, durable)


def write_replacing(
    path: Path, data: bytes, like: os.stat_result | None, durable: bool = True
) -> os.stat_result:
    """atomic_write for a `path` known not to be a symlink, permission bits (and owner) from `like`
    (None: the temp file's 0600). Makes the parent directory when it is missing. Returns the written
    file's stat (taken on its descriptor: the rename changes none of its size, mtime and inode)."""
    with _ctrl_c_deferred():
        return _write_and_replace(path, data, like, durable)


def _write_and_replace(path: Path, data: bytes, st: os.stat_result | None, durable: bool) -> os.stat_result:
    try:  # why not a stat of the parent first: it exists for all files but the first of a directory
        fd, tmp = _temp_file(path)
    except (FileNotFoundError, NotADirectoryError):
        path.parent.mkdir(parents=True, exist_ok=True)  # raises what a stat-then-mkdir raised
        fd, tmp = _temp_file(path)
    try:
        try:  # why no file object: os.write is half the cost of a buffered writer for a whole file
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
            if st is not None:  # why on the descriptor: no second lookup of the path
                _copy_mode(fd, tmp, st)
            written = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return written


def _copy_mode(fd: int, tmp: str, st: os.stat_result) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(st.st_mode))
    else:  # pragma: no cover - Windows
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
    if hasattr(os, "fchown") and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):  # keep the owner when we may (root); else ours
            os.fchown(fd, st.st_uid, st.st_gid)


def backup_copy(path: Path, suffix: str) -> Path:
    """Copy `path` to `path + suffix` atomically (metadata kept) before it is replaced."""
    target = path.with_name(path.name + suffix)
    with _ctrl_c_deferred():
        fd, tmp = _temp_file(target)
        os.close(fd)
        try:
            import shutil  # why here: ~1.5 ms of imports (zlib, bz2, lzma) that only --backup needs

            shutil.copy2(path, tmp)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    return target


@contextlib.contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Hold a Ctrl-C that arrives while a temp file exists until it is renamed or removed.

    why: KeyboardInterrupt can be raised between any two bytecodes, e.g. inside mkstemp after the file
    was created but before its name reached us; the cleanup could then never unlink it. Only the main
    thread can swap handlers; workers ignore SIGINT anyway (the parent stops the pool).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:  # ignored, or a handler of the caller's: leave it
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _temp_file(target: Path) -> tuple[int, str]:
    """A new file next to `target` (mode 0600, as tempfile.mkstemp made it), opened for writing.

    why not mkstemp: its name generator (the random module, in Python) cost as much as the write."""
    directory, name = os.path.split(target)  # why not .parent and .name: a Path made and formatted
    prefix = os.path.join(directory, f".{name}{TEMP_MARK}{os.getpid()}.")
    flags = _CREATE_FLAGS
    while True:
        name = prefix + os.urandom(6).hex()
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:  # pragma: no cover - 48 random bits taken by this very pid
            continue


def writable(path: Path) -> bool:
    """May we rewrite `path`? A file without any write bit is read-only by intent: refused even for
    root, for whom os.access() is always true."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(path, os.W_OK)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    try:  # a killed worker nobody reaped (orphans in a container whose init does not wait) is a zombie
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:
        return True  # no /proc: trust kill()


def remove_stale_temps(directories: Iterable[Path]) -> list[Path]:
    """Delete temp files that a killed run (SIGKILL, power loss) left in `directories`.

    Only files named by _temp_file whose writing process is gone are touched, so a concurrent run in
    the same tree keeps its temp files. Returns the removed paths.
    """
    removed: list[Path] = []
    for directory in directories:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            match = re.match(_TEMP_NAME, entry.name)
            if match is None or _alive(int(match.group(1))) or not entry.is_file(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def read_marshal_dict(path: Path | str) -> dict | None:
    """A cache file of ours (a marshal'd dict), or None when it is missing, damaged or foreign.

    why the first-byte check: every cache file is a dict, and a damaged one starting like a list or a
    string makes marshal allocate what its length field says (4 GB for the text `[1, 2]`) before it fails.
    """
    import marshal

    try:
        with open(path, "rb") as handle:
            data = handle.read()  # why not marshal.load: it reads in tiny pieces
        if data[:1] not in (b"{", b"\xfb"):  # TYPE_DICT, without or with FLAG_REF
            return None
        loaded = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError, MemoryError):  # marshal's errors for a damaged file
        return None
    return loaded if isinstance(loaded, dict) else None
