"""Helpers the project defines in the headers a file includes: asked only of files that got a shim.

translate() sees one file. A shim it writes (`__vsub4`, mappings/shims.yaml) clashes with the project's
own definition of the name in a header the file includes (often under `#ifdef __HIP_PLATFORM_AMD__`).
So after a translation that wrote shims, the file's include closure is read from disk (quoted includes
from the including file's folder, then the run's root; angled ones from the root: the project's own
headers, never the system's), each header that holds a written name's bytes is checked for a
definition in any branch (rules/shims.py `defined_helpers`), and the file is translated again with
those names in `Options.defined_elsewhere`: no shim for them, their uses settled.

Cost: nothing for a file without a shim (nearly all); for one with, a read of its closure's headers.
The result cache keys a file by its own content, so a hit that depended on headers re-checks them
(`stale`, from run/cache_hits.py): a header that gained or lost a definition makes it a miss.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable

from hipify_py.data.tables import Tables
from hipify_py.util.lazyre import lazy

_SHIM_MACRO = lazy(rb"^[ \t]*#[ \t]*define[ \t]+HIPIFY_PY_SHIM_(\w+)", re.MULTILINE)
_INCLUDE = lazy(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.MULTILINE)
MAX_HEADERS = 500  # a closure larger than this is not followed further (generated code, a vendored SDK)

# per process (a run's worker): a header's text by its stat, read once however many files include it,
# and the paths found missing (a run does not wait for headers to appear)
_texts: dict[str, tuple[tuple[int, int], bytes]] = {}
_missing: set[str] = set()
# and what a header's text declares, scanned once per process for every file that includes it (keyed by
# the text itself, which _texts keeps: no file's own source is held here)
_aliases_of: dict[bytes, dict[bytes, bytes]] = {}
_pointers_of: dict[bytes, frozenset[bytes]] = {}
_members_of: dict[bytes, tuple] = {}


def written_helpers(source: bytes, text: bytes) -> tuple[str, ...]:
    """The names whose shims the translation wrote (guard macros in the output, not in the input)."""
    before = set(_SHIM_MACRO.findall(source)) if b"HIPIFY_PY_SHIM_" in source else set()
    return tuple(sorted(n.decode() for n in set(_SHIM_MACRO.findall(text)) - before))


def _read(path: str) -> bytes | None:
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        known = _texts.get(path)
        if known is not None and known[0] == (st.st_mtime_ns, st.st_size):
            return known[1]
        with open(path, "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    _texts[path] = ((st.st_mtime_ns, st.st_size), text)
    return text


def closure(path: str, source: bytes, root: str | tuple[str, ...], wide: bool = False) -> list[str]:
    """The project headers `path` includes, directly or not (not `path` itself), in discovery order: a
    quoted include beside its includer, then (as an angled one) under the file's root and the run's other
    roots (`root`: that one, or all of them, the file's first), then (`wide`) in the includer's parent
    folders and their `include/` folders. Why not wide for helpers: a definition is matched by name, and
    a header found by a guess must not take a helper away."""
    roots = (root,) if isinstance(root, str) else root
    start = os.path.realpath(path)
    seen = {start}
    found: list[str] = []
    todo = [(start, source)]
    while todo and len(found) < MAX_HEADERS:
        includer, text = todo.pop()
        if b"include" not in text:
            continue
        folder = os.path.dirname(includer)
        for m in _INCLUDE.finditer(text):
            quoted = m.group(1) is not None
            name = os.fsdecode(m.group(1) if quoted else m.group(2))
            for base in ((folder, *roots) if quoted else roots) + (_include_folders(folder) if wide else ()):
                candidate = os.path.normpath(os.path.join(base, name))
                if candidate in _missing:
                    continue  # why: a system header (<vector>) is looked for in every folder, per file
                header = _read(candidate)
                if header is None:
                    _missing.add(candidate)
                    continue
                candidate = os.path.realpath(candidate)
                if candidate in seen:
                    break
                if header is not None:
                    seen.add(candidate)
                    found.append(candidate)
                    todo.append((candidate, header))
                    break
    return found


_PARENTS = 6  # how far up from the includer a project's -I folder is looked for


def _include_folders(folder: str) -> tuple[str, ...]:
    """The -I folders a project's build gives for the usual layouts, looked for from the includer up:
    its parents (`<occa/internal/modes/cuda/buffer.hpp>` from src/occa/internal/modes/cuda/, with -Isrc)
    and the `include/` folders beside it and them (OpenMM's src/X.cpp including "X.h" from include/)."""
    found: list[str] = []
    for _ in range(_PARENTS):
        found.append(os.path.join(folder, "include"))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        found.append(parent)
        folder = parent
    return tuple(found)


def defined_elsewhere(
    path: str, source: bytes, root: str | tuple[str, ...], names: Iterable[str], tables: Tables
) -> frozenset[str]:
    """The `names` that a header of `path`'s include closure defines."""
    from hipify_py.rules.shims import defined_helpers

    wanted = set(names)
    found: set[str] = set()
    for header in closure(path, source, root):
        found |= defined_helpers(_read(header) or b"", wanted - found, tables)
        if found == wanted:
            break
    return frozenset(found)


def project_aliases(
    path: str, source: bytes, root: str | tuple[str, ...], tables: Tables
) -> tuple[tuple[str, str], ...]:
    """(CUDA name, HIP name) pairs the headers of `path`'s include closure map differently from the
    tables, for the names `path` uses (analysis/project_aliases.py); the first header's definition counts."""
    from hipify_py.analysis.project_aliases import defined_aliases, used_aliases

    found: dict[bytes, bytes] = {}
    for header in closure(path, source, root, wide=True):
        text = _read(header) or b""
        if text not in _aliases_of:
            _aliases_of[text] = defined_aliases(text, tables.names)
        for name, value in _aliases_of[text].items():
            found.setdefault(name, value)
    used = used_aliases(source, found) if found else {}
    return tuple(sorted((name.decode(), value.decode()) for name, value in used.items()))


def deviceptr_names(path: str, source: bytes, root: str | tuple[str, ...]) -> tuple[str, ...]:
    """The names the headers of `path`'s include closure declare as CUdeviceptr (and nothing else there)
    that `path` uses (analysis/deviceptr_names.py)."""
    from hipify_py.analysis.deviceptr_names import declared, used

    found: set[bytes] = set()
    for header in closure(path, source, root, wide=True):
        text = _read(header) or b""
        if text not in _pointers_of:
            _pointers_of[text] = declared(text)
        found |= _pointers_of[text]
    return tuple(sorted(name.decode() for name in used(source, frozenset(found)))) if found else ()


def member_macros(
    path: str, source: bytes, root: str | tuple[str, ...]
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The macros of `path`'s include closure that paste an argument after `->`/`.` and that `path` calls
    (analysis/member_macros.py), with those arguments' indexes; the first header's definition counts."""
    from hipify_py.analysis.member_macros import definitions, pasted_of

    defs: list = []
    for header in closure(path, source, root, wide=True):
        text = _read(header) or b""
        if text not in _members_of:
            _members_of[text] = definitions(text)
        defs.extend(_members_of[text])
    found = pasted_of([*defs, *definitions(source)]) if defs else {}
    return tuple(sorted((name.decode(), tuple(sorted(ix))) for name, ix in found.items() if name in source))
