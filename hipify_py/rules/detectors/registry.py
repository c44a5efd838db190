"""The detector registry: every pitfall detector, in the order their findings are emitted.

A detector is `fn(ctx, scan) -> RuleResult` (reports only, no edits) in the module of its theme, which
declares it (rules/registry.py) with its order key and its needles: byte strings of which a file must
contain one for the detector to run (`bytes in` is ~50x faster than a regex scan that starts with \\b or
an alternation); () = always. STEPS is built from those declarations.
"""

from __future__ import annotations

from collections.abc import Callable

from hipify_py.analysis.context import Context
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.rules import RuleFn, RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.registry import detector_steps
from hipify_py.util.lazyre import lazy

Detector = Callable[[Context, Scan], RuleResult]


# (detector, needles) in output order: each detector module declares its own (order, fn, needles)
STEPS: tuple[tuple[Detector, tuple[bytes, ...]], ...] = detector_steps()


def pitfall_detectors(ctx: Context) -> RuleResult:
    """Every detector over one file, sharing one Scan (device spans, dead branches computed once)."""
    scan = Scan(ctx)
    result = RuleResult()
    words = ctx.identifier_text
    present = _present_words(words)
    present.update(n for n in _OTHER_NEEDLES if n in ctx.source)
    for step, needles in STEPS:
        if not needles or not present.isdisjoint(needles):
            result.diagnostics.extend(step(ctx, scan).diagnostics)
    return result


_ALL_NEEDLES = frozenset(n for _, needles in STEPS for n in needles)
# A needle of word characters starting with a letter or `_` is in the source iff it is in one of its
# identifiers (ctx.identifier_text: far fewer bytes to search); any other needle is searched in the source.
_WORD_NEEDLES = frozenset(n for n in _ALL_NEEDLES if IDENTIFIER.fullmatch(n))
_OTHER_NEEDLES = _ALL_NEEDLES - _WORD_NEEDLES


def _trie(needles: list[bytes]) -> bytes:
    """An alternation matching exactly `needles` (word characters: nothing to escape), factored by common
    prefixes (`__(?:all|any|...)`), longer needles first where one extends another (greedy `?`)."""
    rests: dict[bytes, list[bytes]] = {}
    for needle in needles:
        rests.setdefault(needle[:1], []).append(needle[1:])
    branches = []
    for first, tails in sorted(rests.items()):
        longer = [t for t in tails if t]
        sub = _trie(longer) if longer else b""
        sub = b"(?:" + sub + b")" if b"|" in sub else sub
        if sub and b"" in tails:
            sub = (sub if sub.startswith(b"(?:") else b"(?:" + sub + b")") + b"?"
        branches.append(first + sub)
    return b"|".join(branches)


_NEEDLE = lazy(_trie(sorted(_WORD_NEEDLES)))
# a needle and the needles it starts with: where the search reports it, those match at the same position
_STARTS = {n: frozenset(n[:k] for k in range(1, len(n) + 1) if n[:k] in _WORD_NEEDLES) for n in _WORD_NEEDLES}


def _present_words(words: bytes) -> set[bytes]:
    """`{n for n in _WORD_NEEDLES if n in words}` in one pass (7 against 16 us a 50-line file). Searching
    again one byte after each needle found visits every position where a needle starts, and at each the
    search reports the longest needle there: the others there are its prefixes."""
    present: set[bytes] = set()
    found = _NEEDLE.search(words)
    while found is not None:
        present |= _STARTS[found.group()]
        found = _NEEDLE.search(words, found.start() + 1)
    return present


DETECTORS: tuple[RuleFn, ...] = (pitfall_detectors,)
