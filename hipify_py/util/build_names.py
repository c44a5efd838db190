"""Which file names are Makefiles: one answer for discovery, the build-file translator and the settle step."""

from __future__ import annotations

MAKEFILE_NAMES = ("Makefile", "makefile", "GNUmakefile")
# what follows `Makefile.` in a file that is no Makefile of its own: automake's input and output
_NOT_MAKEFILES = ("am", "in")


def makefile_name(name: str) -> bool:
    """A Makefile's name: GNU make's own, `*.mk`/`*.make`, and the variants HPC projects keep beside
    them and build with `make -f` (neutral's `Makefile.cuda`, `Makefile.inc`, `makefile.nvidia`)."""
    if name in MAKEFILE_NAMES or name.endswith((".mk", ".make")):
        return True
    stem, dot, variant = name.partition(".")
    return stem in MAKEFILE_NAMES and bool(variant) and dot == "." and variant not in _NOT_MAKEFILES
