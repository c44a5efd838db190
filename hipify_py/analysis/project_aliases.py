"""CUDA names a project maps to HIP names itself, where hipify-py's tables give another HIP name.

A code base built for both platforms often carries its own compatibility header for the HIP side:
`#define CUDA_MEMCPY3D hipMemcpy3DParms`, `typedef hipFoo cudaFoo;`, `using cudaFoo = hipFoo;` (cudawrappers'
macros.hpp, included in the `#if defined(__HIP__)` branch of cu.hpp). Its HIP branches are written against
that mapping (the fields of hipMemcpy3DParms, not of the driver's HIP_MEMCPY3D the tables give), so a
use of such a name in the shared code takes the project's HIP name: it holds in the HIP build whether or
not the project's header is reached, as the project's own build has it. Found in the file itself and
(run/helper_defs.py) in the headers a mixed CUDA/HIP file includes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hipify_py.data.schema import Entry
from hipify_py.util.lazyre import lazy

_ALIAS = lazy(
    rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([A-Za-z_]\w*)[ \t]*(?:/[/*][^\n]*)?\r?$"
    rb"|\btypedef[ \t]+(?:struct[ \t]+|enum[ \t]+)?([A-Za-z_]\w*)[ \t]+([A-Za-z_]\w*)[ \t]*;"
    rb"|\busing[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_]\w*)[ \t]*;",
    re.MULTILINE,
)
# a HIP (or ROCm library) name as the value: the project's HIP side, not a CUDA-side alias
_HIP_LIKE = lazy(rb"(?:hip|HIP|roc|__hip)\w*")


def defined_aliases(text: bytes, names: Mapping[bytes, Entry]) -> dict[bytes, bytes]:
    """CUDA name -> the HIP name `text` defines it as, where that is another HIP API name the tables know
    (hipMemcpy3DParms, cudaMemcpy3DParms' counterpart) than the tables' one for it (the first definition
    of a name counts). A name the tables do not give for any CUDA one (the project's own wrapper, a
    hipBLAS 2 enumerator hipBLAS 3 dropped) is not followed: nothing says the target declares it."""
    if b"hip" not in text and b"HIP" not in text and b"roc" not in text:
        return {}
    found: dict[bytes, bytes] = {}
    known: frozenset[bytes] | None = None
    for name, value in _pairs(text):
        entry = names.get(name)
        if entry is None or name in found:
            continue
        if entry.hip is not None and entry.hip.encode() == value:
            continue
        if known is None:  # why here: only a file that maps a CUDA name differently pays for the set
            known = hip_names(names)
        if value in known:
            found[name] = value
    return found


def _pairs(text: bytes) -> tuple[tuple[bytes, bytes], ...]:
    """(name, value) of each alias `text` defines with a HIP-looking value."""
    found = []
    for m in _ALIAS.finditer(text):
        if m.group(1) is not None:
            name, value = m.group(1), m.group(2)
        elif m.group(3) is not None:
            name, value = m.group(4), m.group(3)
        else:
            name, value = m.group(5), m.group(6)
        if _HIP_LIKE.fullmatch(value) is not None:
            found.append((name, value))
    return tuple(found)


def used_aliases(source: bytes, aliases: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
    """The `aliases` whose CUDA name `source` names as a word."""
    return {
        name: value
        for name, value in aliases.items()
        if name in source and re.search(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])", source)
    }


def hip_names(names: Mapping[bytes, Entry]) -> frozenset[bytes]:
    """Every HIP name the tables give for a CUDA one, version-dependent renames included."""
    from hipify_py.data.renames import load_table

    rows, _ = load_table()
    return frozenset(
        [*(e.hip.encode() for e in names.values() if e.hip), *(row.hip.encode() for row in rows)]
    )
