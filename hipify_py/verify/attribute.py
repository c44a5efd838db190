"""Compiler errors -> findings on the ORIGINAL files and lines (rules HIP501-HIP503).

An error is attributed to the first of its locations that lies in a file of the run: its own
location, then its notes in order ("expanded from macro", "in instantiation of ... requested here",
"previous definition is here": clang prints the nearest frame first), then its include stack from the
innermost includer out. An error in the user's code is HIP501; one inside a HIP or system header,
attributed to the user line that led there, is HIP502; a TU that failed without any location (bad flag,
timeout, crash) is HIP503 on its first line. The translated position is mapped back through the
edits (linemap), and a static finding of another rule on the same line is named ("predicted by HIP101").
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hipify_py.engine.diagnostics import Diagnostic, Rule, Severity
from hipify_py.engine.linemap import Layers, OffsetMap, offset_of, original_text
from hipify_py.engine.source import LineIndex
from hipify_py.verify.clang_output import CompilerError, Location
from hipify_py.verify.stage import Unit, VerifyResult

MAX_ERRORS_PER_TU = 10  # the first errors matter; the rest are mostly consequences
VERIFY_RULES = frozenset({"HIP501", "HIP502", "HIP503"})


@dataclass(frozen=True)
class RunFile:
    original: str  # absolute input path
    compiled: str  # absolute path of the text that was compiled
    moves: Layers


@dataclass
class Finding:
    """One mapped compile error, before it becomes a Diagnostic of its file."""

    original: str  # absolute input path of the file it is attributed to
    diagnostic: Diagnostic
    units: list[str]  # TUs (input paths) that reported it


class _Texts:
    """Compiled and rebuilt original texts of the run's files, read once each."""

    def __init__(self, files: Mapping[str, RunFile]) -> None:
        self.files = files
        self.cache: dict[str, tuple[bytes, LineIndex] | None] = {}

    def get(self, compiled: str) -> tuple[bytes, LineIndex] | None:
        if compiled not in self.cache:
            try:
                with open(compiled, "rb") as handle:
                    text = handle.read()
            except OSError:
                self.cache[compiled] = None
            else:
                original = original_text(self.files[compiled].moves, text)
                self.cache[compiled] = (text, LineIndex(original))
        return self.cache[compiled]


def _candidates(error: CompilerError) -> list[Location]:
    found = [error.where] if error.where is not None else []
    found += [n.where for n in error.notes]
    found += list(reversed(error.included_from))
    return found


def attribute(
    result: VerifyResult,
    files: Sequence[RunFile],
    static: Mapping[str, Sequence[Diagnostic]],
    display: Callable[[str], str],
) -> tuple[list[Finding], dict[int, Finding]]:
    """Findings for every failed TU's first errors, deduplicated across TUs (a header's error once);
    and each failed unit's first finding (by id(unit))."""
    by_compiled = {os.path.normpath(f.compiled): f for f in files}
    texts = _Texts(by_compiled)
    findings: dict[tuple, Finding] = {}
    first: dict[int, Finding] = {}
    for unit in result.units:
        if unit.ok:
            continue
        for error in unit.errors[:MAX_ERRORS_PER_TU]:
            finding = _finding(error, unit, by_compiled, texts, static, display)
            d = finding.diagnostic
            key = (finding.original, d.line, d.col, d.message)
            if key in findings:
                findings[key].units += finding.units
            else:
                findings[key] = finding
            first.setdefault(id(unit), finding)
    return list(findings.values()), first


def _finding(
    error: CompilerError,
    unit: Unit,
    files: Mapping[str, RunFile],
    texts: _Texts,
    static: Mapping[str, Sequence[Diagnostic]],
    display: Callable[[str], str],
) -> Finding:
    tu = unit.source
    at = next((loc for loc in _candidates(error) if loc.file in files), None)
    if at is None:  # nothing in the run: the TU's first line, the error's own place in the message
        where = f" (at {_shown(error.where, files, display)})" if error.where else ""
        rule = "HIP503" if error.where is None else "HIP502"
        run_file = files.get(os.path.normpath(tu.compiled))
        return _make(
            rule, error.text + where, run_file, tu.original, Location(tu.compiled, 1, 1), texts, static, unit
        )
    rule = "HIP501" if at == error.where else "HIP502"
    message = error.text
    if at != error.where and error.where is not None:
        message += f" (in {_shown(error.where, files, display)})"
    return _make(rule, message, files[at.file], files[at.file].original, at, texts, static, unit)


def _shown(where: Location | None, files: Mapping[str, RunFile], display: Callable[[str], str]) -> str:
    if where is None:
        return "?"
    name = files[where.file].original if where.file in files else where.file
    return f"{display(name)}:{where.line}"


def _make(
    rule: str,
    message: str,
    run_file: RunFile | None,
    original: str,
    at: Location,
    texts: _Texts,
    static: Mapping[str, Sequence[Diagnostic]],
    unit: Unit,
) -> Finding:
    got = texts.get(run_file.compiled) if run_file is not None else None
    if got is None or run_file is None:
        d = Diagnostic(rule, Severity.ERROR, 0, 0, 1, 1, message)
        return Finding(original, d, [unit.source.original])
    text, index = got
    offset = offset_of(text, at.line, max(at.col, 1))
    start = offset
    for moves in reversed(run_file.moves):
        start = OffsetMap(moves).to_original(start)
    start = min(start, len(index.source))
    line, col = index.line_col(start)
    predicted = tuple(
        sorted({d.rule for d in static.get(original, ()) if d.line == line and d.rule not in VERIFY_RULES})
    )
    if predicted:
        message += f" [predicted by {', '.join(predicted)}]"
    from hipify_py.engine.rule_texts import RULES

    d = Diagnostic(
        rule,
        Severity.ERROR,
        start,
        start + 1,
        line,
        col,
        message,
        RULES[rule].hint if rule in RULES else "",
        index.line_text(line),
        predicted,
    )
    return Finding(original, d, [unit.source.original])


def first_causes(result: VerifyResult) -> list[tuple[str, int, str]]:
    """Failing TUs grouped by their first error's text: (message, TU count, an example TU), most first."""
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for unit in result.units:
        if unit.ok:
            continue
        text = unit.errors[0].text if unit.errors else f"hipcc exited with {unit.returncode}"
        counts[text] += 1
        example.setdefault(text, unit.source.original)
    return [(text, n, example[text]) for text, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def with_units(d: Diagnostic, units: int) -> Diagnostic:
    if units <= 1:
        return d
    return d._replace(message=f"{d.message} (in {units} translation units)")


# The texts of the ids this module emits (collected by scripts/gen_rules.py; see rules/registry.py)
RULE_TEXTS: tuple[Rule, ...] = (
    Rule(
        "HIP501",
        "compile-error",
        Severity.ERROR,
        "The HIP compiler rejects this line of the translated code",
        "Port this line by hand; when the message names a CUDA API, see `hipify-py explain` for the finding "
        "that predicted it.",
        "With --verify (or `hipify-py verify`), every translated translation unit is compiled with the "
        "installed hipcc (-fsyntax-only, host and device, for each --offload-arch). Each compiler error is "
        "mapped back through the edits to the CUDA file and line it came from; a static finding on the same "
        'line is named ("predicted by HIP101").',
    ),
    Rule(
        "HIP502",
        "compile-error-in-header",
        Severity.ERROR,
        "A compiler error inside a HIP or system header, caused by this line",
        "Look at the user line: a macro of the same name as a HIP identifier, a wrong argument type for a "
        "HIP template, or an include order problem.",
        "The compiler reported the error inside a header that is not part of the converted tree (HIP's own "
        "headers, a library, a file left out of the run). The finding sits on the line of the converted "
        "code that led there: the macro use or template instantiation named in the compiler's notes, else "
        "the #include line. The message gives the header location.",
    ),
    Rule(
        "HIP503",
        "compile-failed",
        Severity.ERROR,
        "The translation unit did not compile and the compiler named no line",
        "Run the compile command shown in the report by hand; check flags (-p, -I, -D, --std).",
        "The compiler stopped without a source location: an unknown flag, a missing input, a timeout or a "
        "crash. The finding sits on the first line of the translation unit.",
    ),
)
