"""Compile flags per translation unit, as the real build would give them.

1. A compile database (`-p DIR`: DIR/compile_commands.json, the convention of clang tools and
   hipify-clang): the entry's include paths, macros, language standard and forced includes are kept;
   nvcc-only flags go through the build-file translator's nvcc table (mapped or dropped); everything
   that does not change what the front end sees (optimisation, warnings, outputs, linking) is dropped.
2. Else the -I/-D/--std options (and their configuration keys).
3. Else the file's own folder and the tree root are include paths.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


class CompileDatabaseError(Exception):
    """An unreadable or malformed compile_commands.json."""


@dataclass(frozen=True)
class Entry:
    file: str  # absolute, normalised
    directory: str  # absolute
    arguments: tuple[str, ...]  # argv, compiler first


def load_database(path: Path) -> dict[str, Entry]:
    """`-p DIR` or `-p DIR/compile_commands.json`: entries by absolute source path (the last one wins)."""
    target = path / "compile_commands.json" if path.is_dir() else path
    try:
        raw = json.loads(target.read_text(encoding="utf-8"))
    except OSError as err:
        raise CompileDatabaseError(f"{target}: cannot read: {err.strerror or err}") from None
    except ValueError as err:
        raise CompileDatabaseError(f"{target}: not valid JSON: {err}") from None
    if not isinstance(raw, list):
        raise CompileDatabaseError(f"{target}: expected a JSON array of entries")
    entries: dict[str, Entry] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "file" not in item or "directory" not in item:
            raise CompileDatabaseError(f"{target}: entry {i}: needs `directory` and `file`")
        directory = os.path.normpath(os.path.join(target.parent, str(item["directory"])))
        if "arguments" in item:
            args = tuple(str(a) for a in item["arguments"])
        elif "command" in item:
            try:
                args = tuple(shlex.split(str(item["command"])))
            except ValueError as err:
                raise CompileDatabaseError(f"{target}: entry {i}: bad command: {err}") from None
        else:
            raise CompileDatabaseError(f"{target}: entry {i}: needs `arguments` or `command`")
        file = os.path.normpath(os.path.join(directory, str(item["file"])))
        entries[file] = Entry(file, directory, args)
    return entries


# Flags that change what the front end sees, with the number of words they take when not joined.
_PATH_FLAGS = (
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-imacros",
    "-isysroot",
    "--include-path",
)
_KEEP_JOINED = (
    "-D",
    "-U",
    "-std=",
    "--std=",
    "-fopenmp",
    "-fgpu-rdc",
    "-fno-gpu-rdc",
    "-fgpu-default-stream=",
)
_KEEP_SEPARATE = ("-D", "-U", "--define-macro", "--undefine-macro")
_VALUE_WORDS = frozenset(
    {"-o", "-MF", "-MT", "-MQ", "-x", "-Xlinker", "-L", "-l", "--output-file", "-ccbin", "--compiler-bindir"}
)


def database_args(entry: Entry, relocate: Callable[[str], str] = lambda p: p) -> tuple[str, ...]:
    """The front-end flags of a database entry, nvcc flags translated, paths absolute and relocated."""
    argv = list(entry.arguments[1:])  # argv[0] is the compiler
    argv = _translate_nvcc(argv)
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        flag = next(
            (f for f in _PATH_FLAGS if word == f or (word.startswith(f) and f != "--include-path")), None
        )
        if flag is not None:
            value = word[len(flag) :] if word != flag else nxt
            if value is not None:
                name = "-I" if flag == "--include-path" else flag
                path = relocate(_absolute(value, entry.directory))
                out += [f"-I{path}"] if name == "-I" else [name, path]
            i += 1 if word != flag else 2
            continue
        if word in _KEEP_SEPARATE and nxt is not None:
            out.append(("-D" if "define" in word or word == "-D" else "-U") + nxt)
            i += 2
            continue
        if word.startswith(_KEEP_JOINED):
            out.append(word.replace("--std=", "-std=", 1))
            i += 1
            continue
        if word in ("-std", "--std") and nxt is not None:
            out.append(f"-std={nxt}")
            i += 2
            continue
        i += 2 if word in _VALUE_WORDS else 1
    return tuple(out)


def _absolute(path: str, directory: str) -> str:
    return os.path.normpath(os.path.join(directory, path))


def _translate_nvcc(argv: Sequence[str]) -> list[str]:
    """nvcc flags -> hipcc flags with the build-file translator's table (-Xcompiler a,b -> a b, ...)."""
    from hipify_py.buildfiles import BuildOptions
    from hipify_py.buildfiles.nvcc_flags import translate_flags

    new, _ = translate_flags(list(argv), BuildOptions(), True)
    out: list[str] = []
    for i, word in enumerate(argv):
        out += list(new[i]) if i in new else [word]
    return out
