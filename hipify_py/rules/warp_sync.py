"""Warp-level intrinsics adapted to the target HIP version (mappings/version-adaptations.yaml).

HIP before 6.2 has no `*_sync` forms: the lane mask is dropped and the mask-free form written
(`__shfl_down_sync(0xffffffff, v, 1)` -> `__shfl_down(v, 1)`; a mask that is not full gets HIP209, and
votes an exact `__ballot(p) & mask` form). HIP 6.2-6.x has them with a 64-bit mask, opt-in: the macro
must come before the translation unit's first HIP header, which a project header included after one
cannot ensure, so the mask-free forms are written there too. From 7.0 (on by default) the mask is
widened to 64 bits. __match_*_sync have no mask-free form: widened, with the opt-in macro, from 6.2.
Masks that are not "every lane" keep a warning (HIP209); constructs with no equivalent on the target
get an error (HIP117). Calls inside macro bodies are found through callargs (re-parsed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hipify_py.analysis import callargs
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.adaptations import Adaptation, adapted_words, row_words, rows_for
from hipify_py.data.adaptations import load_table as _adaptations_table
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import COPY_MARK, Edit
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import compiled, lazy

FULL_MASK_64 = b"0xffffffffffffffffULL"
_CAST_64 = b"static_cast<unsigned long long>("
# Findings other rules make about these calls that an adaptation settles.
SETTLED_RULES = frozenset({"HIP101", "HIP202", "HIP203"})

_FULL_LITERAL = lazy(
    rb"(?:0[xX](?:[fF]{8}|[fF]{16})|~0(?:[xX]0)?|-1|4294967295|18446744073709551615)[uUlL]{0,3}"
)
_CAST_PREFIX = lazy(
    rb"\((?:unsigned|signed|int|long|uint32_t|uint64_t|int32_t|int64_t|const|\s)+\)\s*"
    rb"|static_cast\s*<[\w\s]+>\s*(?=\()"
)
_DEFINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*?)[ \t]*$", re.MULTILINE)
_CONSTANT = lazy(rb"\b(?:const|constexpr)\b[\w\s]*?\b(\w+)\s*=\s*([^;,{}]+?)\s*[;,]")
_ACTIVEMASK = lazy(rb"__activemask\s*\(\s*\)")
_COUNT_BEFORE = lazy(rb"\b(__popc|__ffs)\s*\(\s*\Z")
_WIDE_COUNT = {b"__popc": b"__popcll", b"__ffs": b"__ffsll"}


def _bare(text: bytes) -> bytes:
    """Text without blanks, outer parentheses and integer casts: `(unsigned)(~0u)` -> `~0u`."""
    text = b"".join(text.split())
    while True:
        cast = _CAST_PREFIX.match(text)
        if cast and cast.end() < len(text):
            text = text[cast.end() :]
        elif text.startswith(b"(") and text.endswith(b")") and callargs.balanced_parens(text[1:-1]):
            text = text[1:-1]
        else:
            return text


def full_mask_names(source: bytes) -> frozenset[bytes]:
    """Names a file #defines or declares const as a full mask (`#define FULL_MASK 0xffffffff`)."""
    names = set()
    for pattern in (_DEFINE, _CONSTANT):
        for m in pattern.finditer(source):
            if _FULL_LITERAL.fullmatch(_bare(m.group(2))):
                names.add(m.group(1))
    return frozenset(names)


def is_full_mask(text: bytes, names: frozenset[bytes]) -> bool:
    """A mask that names every lane: all ones (32 or 64 bits), a full-mask name, or __activemask()."""
    bare = _bare(text)
    return bool(_FULL_LITERAL.fullmatch(bare) or bare in names or _ACTIVEMASK.fullmatch(bare))


def adapt_warp_sync(ctx: Context) -> RuleResult:
    result = RuleResult()
    target = ctx.target
    if not target:
        return result
    rows = rows_for(target)
    named = row_words(target) & ctx.identifiers
    present = [name for name in rows if name.encode() in named] if named else []
    if not present:
        if b"ffffffff" in ctx.source or b"~0" in ctx.source:  # an unused full-mask #define is harmless
            result.settled.extend(_settled_mask_definitions(ctx, full_mask_names(ctx.source), []))
        return result
    pattern = compiled(rb"(?<![\w$])(" + b"|".join(n.encode() for n in present) + rb")(?=\s*\()")
    finder = callargs.CallFinder(ctx.source, ctx.root)
    names = full_mask_names(ctx.source)
    enable: list[Adaptation] = []
    masks: list[tuple[int, int]] = []  # mask arguments of adapted calls (rewritten as a whole)
    for m, where in ctx.code_matches(pattern):
        if where not in REWRITABLE or any(a <= m.start(1) < b for a, b in masks):
            continue  # `__all_sync(__activemask(), p)`: the outer call rewrites the inner one's text
        call = finder.at((m.start(1), m.end(1)))
        if call is None:
            continue  # a declaration (a user's own shim) or a call the tree cannot structure
        row = rows[m.group(1).decode()]
        if _adapt(ctx, result, row, call, names, target):
            result.counts["version_adaptations"] += 1
            if row.mask and call.args:
                masks.append(call.args[0])
            if row.needs_enable(target) and row.enable and row.enable.encode() not in ctx.source:
                enable.append(row)
    if enable:
        # `#define HIP_ENABLE_WARP_SYNC_BUILTINS` before the first include (HIP's headers read it)
        assert enable[0].enable is not None
        result.requests.append(Insertion.macro(enable[0].enable.encode()))
    result.settled.extend(_settled_mask_definitions(ctx, names, masks))
    return result


def _settled_mask_definitions(
    ctx: Context, names: frozenset[bytes], masks: list[tuple[int, int]]
) -> list[tuple[int, int, frozenset[str]]]:
    """`#define FULL_MASK 0xffffffff` used only as the mask of adapted calls: its HIP202 is settled."""
    settled = []
    for name in names:
        uses = [m.start() for m, _ in ctx.code_matches(re.compile(rb"(?<![\w$])" + name + rb"(?![\w$])"))]
        outside = [u for u in uses if not any(a <= u < b for a, b in masks)]
        if len(outside) <= 1:  # the definition itself
            for u in outside:
                line_end = ctx.source.find(b"\n", u)
                settled.append((u, len(ctx.source) if line_end < 0 else line_end, frozenset({"HIP202"})))
    return settled


def _adapt(
    ctx: Context,
    result: RuleResult,
    row: Adaptation,
    call: callargs.Call,
    names: frozenset[bytes],
    target: str,
) -> bool:
    """Edits and findings for one call; False when the call is left alone."""
    if any(a <= call.name[0] < b for a, b in ctx.branches.dead):
        return False  # a branch hipcc never compiles (`#ifndef USE_ROCM`) is the CUDA build's: kept
    span = (call.name[0], call.close + 1)
    result.settled.append((*span, SETTLED_RULES))
    if row.op == "missing":
        message = (
            f"`{row.cuda}` does not exist in HIP {target} and has no equivalent there "
            f"({row.range_text}; {row.source})"
        )
        result.diagnostics.append(ctx.diag("HIP117", *span, message))
        return False
    if row.op == "replace-call":
        assert row.hip is not None
        result.edits.append(Edit(*span, row.hip.encode(), covers=True))
        _widen_count(ctx, result, row, call)
        return True
    has_mask = row.mask and bool(call.args)
    mask = call.text(ctx.source, 0) if has_mask else b""
    full = has_mask and is_full_mask(mask, names)
    if row.op == "drop-mask":
        assert row.hip is not None
        if not has_mask:
            return False
        if not full and row.partial is not None:
            result.edits.extend(_partial_edits(call, row))
        else:
            result.edits.extend(callargs.rename(call, row.hip.encode()) + callargs.delete(call, 0))
        if not full:
            result.diagnostics.append(_partial_finding(ctx, call, row, target, dropped=row.partial is None))
        _widen_count(ctx, result, row, call)
        return True
    # widen-mask
    if has_mask and not full and not b"".join(mask.split()).startswith(b"".join(_CAST_64.split())):
        result.edits.extend(callargs.wrap(call, 0, _CAST_64, b")"))
        result.diagnostics.append(_partial_finding(ctx, call, row, target, dropped=False))
    elif (
        full
        and not _bare(mask).lower().startswith(b"0xffffffffffffffff")
        and not _ACTIVEMASK.fullmatch(_bare(mask))
    ):
        result.edits.extend(callargs.replace(call, 0, FULL_MASK_64))
    _widen_count(ctx, result, row, call)
    return True


def _partial_edits(call: callargs.Call, row: Adaptation) -> list[Edit]:
    """before + partial.hip(args without the mask) + after, {mask} in `after` a copy of the mask."""
    assert row.partial is not None
    p = row.partial
    edits = [Edit(call.name[0], call.name[0], p.before.encode())]
    edits += callargs.rename(call, p.hip.encode()) + callargs.delete(call, 0)
    end = call.close + 1
    after = p.after.encode()
    if b"{mask}" in after:  # one copy edit: every COPY_MARK in its text becomes the mask's text
        edits.append(Edit(end, end, after.replace(b"{mask}", COPY_MARK), copy=call.args[0]))
    elif after:
        edits.append(Edit(end, end, after))
    return edits


def _partial_finding(ctx: Context, call: callargs.Call, row: Adaptation, target: str, dropped: bool):
    a, b = call.args[0]
    mask = " ".join(ctx.source[a:b].decode("utf-8", "replace").split())
    if dropped:
        what = (
            f"the mask `{mask}` of `{row.cuda}` is not a full mask and HIP {target} has no masked form: "
            "it was dropped, so every active lane of the 64-lane wavefront takes part"
        )
    elif row.op == "widen-mask":
        what = (
            f"the mask `{mask}` of `{row.cuda}` is computed: it was cast to 64 bits, but it still names "
            "lanes 0-31 only unless it is built from warpSize/64-bit values; on 64-lane wavefronts lanes "
            "32-63 that run this call must be in it (HIP checks)"
        )
    else:
        what = (
            f"the mask `{mask}` of `{row.cuda}` is not a full mask: the result is masked with it as written, "
            "so on 64-lane wavefronts lanes 32-63 are dropped unless the mask is 64-bit"
        )
    return ctx.diag("HIP209", a, b, what)


def _widen_count(ctx: Context, result: RuleResult, row: Adaptation, call: callargs.Call) -> None:
    """`__popc(__ballot_sync(...))` counts 64 lanes on AMD: __popcll (and __ffs -> __ffsll)."""
    if not row.widen:
        return
    before = _COUNT_BEFORE.search(ctx.source, max(0, call.name[0] - 40), call.name[0])
    after = compiled(rb"\s*\)").match(ctx.source, call.close + 1)
    if before is None or after is None:
        return
    result.edits.append(Edit(before.start(1), before.end(1), _WIDE_COUNT[before.group(1)]))


def settled_by(spans: list[tuple[int, int, frozenset[str]]]) -> Mapping[str, list[tuple[int, int]]]:
    by_rule: dict[str, list[tuple[int, int]]] = {}
    for a, b, rules in spans:
        for rule in rules:
            by_rule.setdefault(rule, []).append((a, b))
    return by_rule


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={100: adapt_warp_sync},
    texts=(
        Rule(
            "HIP117",
            "missing-in-target",
            Severity.ERROR,
            "Construct the target HIP version lacks, with no equivalent written",
            "Rewrite it by hand for AMD (e.g. a shuffle loop for __reduce_add_sync), raise --hip-version if "
            "your ROCm is newer, or guard it with `#ifndef __HIP_PLATFORM_AMD__`.",
            "The target HIP version (--hip-version, the config, else the installed HIP) does not provide "
            "this CUDA construct and hipify-py knows no equivalent for it there "
            "(mappings/version-adaptations.yaml says which HIP versions have it and why). The file will not "
            "compile against that HIP.",
        ),
        Rule(
            "HIP209",
            "warp-mask-partial",
            Severity.WARNING,
            "Warp intrinsic with a lane mask that is not a full mask: check it on 64-lane wavefronts",
            "Build lane masks as 64-bit values from warpSize (e.g. `__ballot(cond)` results kept in "
            "unsigned long long) or use the full mask when every lane takes part.",
            "CUDA lane masks are 32-bit; AMD wavefronts have 64 lanes. A full mask (0xffffffff, ~0, -1, a "
            "#define of one) is adapted exactly (dropped for HIP < 6.2, widened to 64 bits for 6.2+). Any "
            "other mask is adapted as written: for HIP < 6.2 shuffles lose it (every active lane takes "
            "part) and votes are masked with it; for 6.2+ it is cast to 64 bits, and HIP's builtins check "
            "that it names every lane that runs the call, so a 32-bit mask built for 32 lanes fails on "
            "lanes 32-63.",
        ),
    ),
    tables=(_adaptations_table,),
    views=(row_words, adapted_words),
    fixtures=("warp_sync",),
)
