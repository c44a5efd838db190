"""Regular expressions compiled on first use.

Compiling the ~150 module-level patterns of the rules took ~50 ms at import, a third of a one-file
(pre-commit) run; most files need a handful of them (a detector whose needles are absent never runs
its pattern). Module-level patterns are therefore written

    _LAUNCH = lazy(rb"<<<", re.DOTALL)

and behave as the `re.Pattern` they stand for: the first method call or attribute read compiles the
pattern once and stores the compiled pattern's bound methods on the object, so every later call goes
straight to C (no Python frame in between). `tests/test_lazyre.py` fails when a module compiles a
pattern at import.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_FORWARDED = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "scanner",
    "flags",
    "groups",
    "groupindex",
)


class LazyPattern:
    """Stands for `re.compile(pattern, flags)`; compiles on the first use of anything but `.pattern`."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern  # why stored: patterns are built from other patterns' text at import
        self._flags = flags

    def compiled(self) -> re.Pattern[Any]:
        return re.compile(self.pattern, self._flags)

    def __getattr__(self, name: str) -> Any:
        # why the guard: copy/pickle probe dunders on a half-built object; they must not compile
        if name.startswith("__") or "_flags" not in self.__dict__:
            raise AttributeError(name)
        compiled = self.compiled()
        for attribute in _FORWARDED:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (LazyPattern, (self.pattern, self._flags))

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def lazy(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, compiled when first used (typed as the pattern it stands for)."""
    return cast("re.Pattern[AnyStr]", LazyPattern(pattern, int(flags)))
