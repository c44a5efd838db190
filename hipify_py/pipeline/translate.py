"""translate(source, options) -> Result: the pure core. No file system, no globals.

parse -> every rule looks at the tree and returns edits/diagnostics/counts -> apply edits once.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from hipify_py.analysis.context import Context
from hipify_py.analysis.defines import is_option, names_defined, option_macros
from hipify_py.analysis.option_branches import option_branches
from hipify_py.analysis.version_tests import VERSION_MACROS
from hipify_py.data import derived
from hipify_py.data.mappings import load_mappings
from hipify_py.data.predefined import hip_predefined_macros
from hipify_py.data.tables import Tables, compile_tables
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.engine.options import Options
from hipify_py.pipeline.insertions import place
from hipify_py.rules import RuleFn, RuleResult, registry
from hipify_py.rules.detectors import DETECTORS
from hipify_py.util.spans import merged


class Result:
    """A translated file: its text, findings, counts, the edits made and the macros it defines.

    why a plain class, not a dataclass: see engine/options.py"""

    __slots__ = ("counts", "defines", "diagnostics", "edits", "lines", "mixed", "text")

    def __init__(
        self,
        text: bytes,
        diagnostics: list[Diagnostic],
        counts: Counter[str],  # "identifiers.<family>", "launches", ...
        lines: int,
        edits: list[Edit],  # every edit applied (verify maps compiler lines back)
        defines: tuple[str, ...],  # macros the file #defines (option_macros: the project-wide decision)
        mixed: bool = False,  # the file has HIP-platform branches: its headers may map CUDA names themselves
    ) -> None:
        self.text, self.diagnostics, self.counts = text, diagnostics, counts
        self.lines, self.edits, self.defines, self.mixed = lines, edits, defines, mixed

    def changed_from(self, source: bytes) -> bool:
        return self.text != source


def translation_rules() -> tuple[RuleFn, ...]:
    """Rules that edit code, by the order keys their modules declare (rules/registry.py). Order matters
    only for insertions at one offset (kept in order)."""
    return _TRANSLATION_RULES


# why at import: every rule module is imported here anyway, and a file's translate() then reads a tuple
_TRANSLATION_RULES = registry.translation_rules()


def detector_rules() -> tuple[RuleFn, ...]:
    """Rules that only report (portability pitfalls); see hipify_py/rules/detectors/registry.py."""
    return DETECTORS


def default_tables(extra_mappings: tuple[Path, ...] = ()) -> Tables:
    """The compiled tables (their `.mappings` too); the shipped ones come from the derived cache."""
    # why the argument always passed on: lru_cache keys `f()` and `f(())` apart, and a table loaded
    # before a fork under one key was loaded again by every worker under the other
    return _tables_for(tuple(extra_mappings))


@functools.lru_cache(maxsize=8)
def _tables_for(extra_mappings: tuple[Path, ...]) -> Tables:
    if not extra_mappings:  # why not with extras: the key covers the shipped tables, not a user's file
        return derived.load("tables", _shipped_tables)
    return compile_tables(load_mappings(extra_mappings))


def preload_rule_tables(options: Options, stop: Callable[[], bool] | None = None) -> None:
    """Load every table a rule loads on first use, for the target: before a pool forks, so each
    worker inherits them instead of reading (on a cold cache: building from YAML) its own copy.
    `stop`: asked before each table; True ends the loading there (a guess that other work outranks)."""
    loads, tables, views = registry.preload_steps()
    version = options.hip_version
    # why the per-target views too: built from the tables on first use, they were built again in each
    # worker (renames_for: ~2.3 ms, in a worker's first file)
    target = version or default_tables().mappings.latest_hip_version
    for step in (
        *(functools.partial(load, version) for load in loads),
        *tables,
        *(functools.partial(view, target) for view in views),
    ):
        if stop is not None and stop():
            return
        step()


def _shipped_tables() -> Tables:
    return compile_tables(load_mappings())


def translate(
    source: bytes,
    options: Options | None = None,
    tables: Tables | None = None,
    renamed_includes: Sequence[Edit] = (),
) -> Result:
    """`renamed_includes`: edits of the output-name policy (run/output_names.py include_edits, on
    `source`), applied with the translation's own edits (pipeline/insertions.py)."""
    options = options or Options()
    tables = tables or default_tables()
    ctx = Context(source=source, tables=tables, options=options)
    combined = RuleResult()
    parts = [rule(ctx) for rule in (*translation_rules(), *detector_rules())]
    if _already_hip(ctx, parts):
        # why: `<<<>>>` is valid HIP too; a file with nothing CUDA left in it stays byte-identical
        parts = [RuleResult(diagnostics=p.diagnostics) if p.valid_hip else p for p in parts]
    for part in parts:
        combined.edits.extend(part.edits)
        combined.requests.extend(part.requests)
        combined.diagnostics.extend(part.diagnostics)
        if part.counts:  # why the test: Counter.update is Python code (~0.3 us) and most rules count nothing
            combined.counts.update(part.counts)
        combined.settled.extend(part.settled)
    placed = place(ctx, combined.edits, combined.requests, combined.counts, renamed_includes)
    combined.diagnostics.extend(placed.diagnostics)
    if placed.counts:
        combined.counts.update(placed.counts)
    _drop_settled_findings(combined)
    _drop_api_findings_in_cuda_only_code(ctx, combined)
    diagnostics = _with_option_macros(
        ctx,
        sorted((d for d in combined.diagnostics if not ctx.suppressed(d)), key=lambda d: (d.start, d.rule)),
    )
    edits = placed.edits
    if options.annotate:
        from hipify_py.engine.annotate import annotation_edits

        edits = [*edits, *annotation_edits(source, diagnostics, edits)]
    text = apply_edits(source, edits) if edits else source
    return Result(
        text=text,
        diagnostics=diagnostics,
        counts=combined.counts,
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        edits=edits,
        defines=names_defined(ctx.define_lines),
        mixed=b"#" in source and bool(ctx.hip_branches),
    )


def _with_option_macros(ctx: Context, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Error findings in a branch only a build option compiles (`#ifdef PTX`) carry the option's name:
    the run decides, once it has seen every file and build file, whether anything defines it."""
    if b"#" not in ctx.source or not any(d.severity is Severity.ERROR for d in diagnostics):
        return diagnostics
    names = ctx.tables.names
    predefined = hip_predefined_macros(ctx.options.hip_version)
    # CUDA's version macros are the toolkit's, never a project's build option (a HIP147-opened
    # `#if CUDA_VERSION < 11020 ... #else` compiles its #else on AMD whatever CUDA_VERSION is)
    spans = option_branches(
        ctx.source,
        lambda n: is_option(n, names.__contains__, predefined) and VERSION_MACROS.fullmatch(n) is None,
    )
    if not spans:
        return diagnostics
    out = []
    for d in diagnostics:
        needs = option_macros(spans, d.start) if d.severity is Severity.ERROR else ()
        out.append(d._replace(requires=tuple(sorted({*d.requires, *needs}))) if needs else d)
    return out


# API-support findings about one name; the detectors already skip code hipcc never compiles.
_API_RULES = frozenset({"HIP101", "HIP103", "HIP104", "HIP105", "HIP106", "HIP107", "HIP128"})


def _drop_api_findings_in_cuda_only_code(ctx: Context, combined: RuleResult) -> None:
    """A name in a branch hipcc never compiles (`#if __CUDA_ARCH__ >= 800`, `#ifndef USE_ROCM`) is still
    renamed, but whether HIP has it does not matter for the AMD build: the guard's own finding (HIP30x)
    says what ROCm drops. Removed HIP101s leave the unsupported count too."""
    if not any(d.rule in _API_RULES for d in combined.diagnostics):
        return
    dead = ctx.branches.dead  # computed once per file, shared with the detectors
    if not dead:
        return
    _drop_findings(combined, lambda d: d.rule in _API_RULES and any(a <= d.start < b for a, b in dead))


def _drop_settled_findings(combined: RuleResult) -> None:
    """Findings inside spans a rule's edits settled (RuleResult.settled) are no longer true."""
    if not combined.settled:
        return
    by_rule: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for a, b, rules in combined.settled:
        for rule in rules:
            by_rule[rule].append((a, b))
    spans = {rule: merged(found) for rule, found in by_rule.items()}

    def settled(d: Diagnostic) -> bool:  # why bisect: a file with n edits settling n findings was n^2
        found = spans.get(d.rule)
        i = bisect.bisect_right(found, (d.start, 1 << 62)) - 1 if found else -1
        return i >= 0 and found is not None and found[i][0] <= d.start < found[i][1]

    _drop_findings(combined, settled)


def _drop_findings(combined: RuleResult, drop: Callable[[Diagnostic], bool]) -> None:
    """Remove the findings `drop` picks; a dropped HIP101 no longer counts as unsupported."""
    kept = []
    for d in combined.diagnostics:
        if drop(d):
            if d.rule == "HIP101":
                combined.counts["unsupported"] -= 1
                if combined.counts["unsupported"] <= 0:
                    del combined.counts["unsupported"]
            continue
        kept.append(d)
    combined.diagnostics[:] = kept


def _already_hip(ctx: Context, parts: list[RuleResult]) -> bool:
    """A file that includes HIP headers and has nothing but edits valid in HIP too (kernel launches)."""
    if not ctx.includes_hip:
        return False
    return not any(part.edits or part.requests for part in parts if not part.valid_hip)


# The pipeline's own table (option macros: _with_option_macros) and the fixtures of what it does around
# the rules (suppressions, encodings, already-HIP and mixed files, annotations, real-world files, the
# insertion planner's order: pipeline/insertions.py)
DECLARED = registry.declare(
    __name__,
    loads=(hip_predefined_macros,),
    fixtures=(
        "annotate",
        "encoding",
        "insertions",
        "mixed",
        "negative",
        "false_alarms",
        "option_macros",
        "realworld",
        "detectors/suppressed_and_protected",
        "detectors/amd_native_negative",
        "detectors/api_in_cuda_only_code_negative",
    ),
)
