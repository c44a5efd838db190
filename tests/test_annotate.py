"""`--annotate`: notes above flagged lines, never inside macros/multi-line tokens, never duplicated."""

from __future__ import annotations

import itertools

import pytest
from fixture_cases import FIXTURES, cases

from hipify_py.engine.annotate import annotation_edits
from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.engine.options import Options
from hipify_py.engine.source import LineIndex
from hipify_py.pipeline.translate import translate

ANNOTATE_CASES = [c for c in cases() if c.input.parent == FIXTURES / "annotate"]


def diag(
    source: bytes,
    line: int,
    rule: str = "HIP201",
    severity: Severity = Severity.WARNING,
    message: str = "lane math assumes 32",
) -> Diagnostic:
    index = LineIndex(source)
    start = index.starts[line - 1]
    return Diagnostic(rule, severity, start, start + 1, line, 1, message, "", index.line_text(line))


def annotate(source: bytes, *diagnostics: Diagnostic) -> bytes:
    return apply_edits(source, annotation_edits(source, diagnostics))


def test_fixtures_exist_and_use_annotate() -> None:
    assert len(ANNOTATE_CASES) >= 6
    assert all(c.options.annotate for c in ANNOTATE_CASES)


@pytest.mark.parametrize("case", ANNOTATE_CASES, ids=[c.id for c in ANNOTATE_CASES])
def test_translating_twice_adds_nothing(case) -> None:
    once = translate(case.input.read_bytes(), case.options).text
    twice = translate(once, case.options).text
    assert twice == once
    assert once.count(b"HIPIFY-PY:") == twice.count(b"HIPIFY-PY:")


@pytest.mark.parametrize("case", ANNOTATE_CASES, ids=[c.id for c in ANNOTATE_CASES])
def test_notes_never_follow_a_continued_line(case) -> None:
    lines = case.expected.read_bytes().splitlines()
    for above, line in itertools.pairwise(lines):
        if b"HIPIFY-PY:" in line:
            assert not above.endswith(b"\\"), line


@pytest.mark.parametrize("case", ANNOTATE_CASES, ids=[c.id for c in ANNOTATE_CASES])
def test_one_note_per_rule_per_line(case) -> None:
    lines = case.expected.read_bytes().splitlines()
    block: list[bytes] = []
    for line in lines:
        if b"// HIPIFY-PY:" in line:
            rule = line.split(b"HIPIFY-PY:")[1].split()[0]
            assert rule not in block, line
            block.append(rule)
        else:
            block = []


def test_without_annotate_there_are_no_notes() -> None:
    source = (FIXTURES / "annotate" / "basic.cu").read_bytes()
    result = translate(source, Options())
    assert b"HIPIFY-PY" not in result.text
    assert result.diagnostics  # the fixture does have findings


def test_notes_match_indentation_and_rule() -> None:
    source = b"void f() {\n\tif (x) {\n\t\ty = t % 32;\n\t}\n}\n"
    out = annotate(source, diag(source, 3, message="`% 32` lane math"))
    assert (
        out == b"void f() {\n\tif (x) {\n\t\t// HIPIFY-PY: HIP201 `% 32` lane math\n\t\ty = t % 32;\n\t}\n}\n"
    )


def test_info_is_not_annotated_but_error_is() -> None:
    source = b"a();\nb();\n"
    out = annotate(
        source, diag(source, 1, "HIP207", Severity.INFO), diag(source, 2, "HIP101", Severity.ERROR)
    )
    assert out == b"a();\n// HIPIFY-PY: HIP101 lane math assumes 32\nb();\n"


def test_same_rule_twice_on_a_line_gives_one_note_sorted_by_rule() -> None:
    source = b"x = a % 32 + b / 32;\n"
    out = annotate(source, diag(source, 1, "HIP202"), diag(source, 1, "HIP201"), diag(source, 1, "HIP201"))
    note = b"// HIPIFY-PY: HIP%d lane math assumes 32"
    assert out.splitlines()[:2] == [note % 201, note % 202]
    assert out.count(b"HIP201") == 1


def test_macro_body_note_goes_above_the_define() -> None:
    source = b"#define K(x) \\\n    do { \\\n        y = x % 32; \\\n    } while (0)\nint z;\n"
    out = annotate(source, diag(source, 3))
    assert out.startswith(b"// HIPIFY-PY: HIP201 lane math assumes 32\n#define K(x) \\\n")


@pytest.mark.parametrize(
    ("source", "line", "anchor"),
    [
        (b"int a;\n/* one\n   two */ x = t % 32;\n", 3, 2),  # block comment
        (b'int a;\nauto s = R"(\n%32\n)"; x = t % 32;\n', 4, 2),  # raw string
        (b"int a;\n// continued \\\nstill comment\nx = t % 32;\n", 4, 4),  # ordinary next line
        (b"int a;\n// continued \\\nstill comment\n", 3, 2),  # comment continued by `\`
    ],
)
def test_never_inside_a_multiline_token(source: bytes, line: int, anchor: int) -> None:
    out = annotate(source, diag(source, line))
    lines = out.splitlines()
    assert lines[anchor - 1] == b"// HIPIFY-PY: HIP201 lane math assumes 32"
    assert b"".join(line for line in lines if b"HIPIFY" not in line) == b"".join(source.splitlines())


def test_existing_note_block_and_ignore_comment() -> None:
    source = b"{\n    // HIPIFY-PY: HIP201 old words\n    // hipify-py: ignore[HIP205]\n    x = t % 32;\n}\n"
    out = annotate(source, diag(source, 4), diag(source, 4, "HIP202"))
    # the new note goes on top; the ignore comment stays directly above its line
    assert out == (
        b"{\n    // HIPIFY-PY: HIP202 lane math assumes 32\n    // HIPIFY-PY: HIP201 old words\n"
        b"    // hipify-py: ignore[HIP205]\n    x = t % 32;\n}\n"
    )
    assert annotate(out, diag(out, 5), diag(out, 5, "HIP202")) == out


def test_crlf_mixed_newlines_and_missing_final_newline() -> None:
    source = b"a;\r\nb;\nc;"
    out = annotate(source, diag(source, 1), diag(source, 2), diag(source, 3))
    assert out == (
        b"// HIPIFY-PY: HIP201 lane math assumes 32\r\na;\r\n"
        b"// HIPIFY-PY: HIP201 lane math assumes 32\nb;\n"
        b"// HIPIFY-PY: HIP201 lane math assumes 32\r\nc;"  # no own newline: the file's dominant one
    )


def test_crlf_fixture_output_is_all_crlf() -> None:
    text = (FIXTURES / "annotate" / "crlf.hip").read_bytes()
    assert b"HIPIFY-PY" in text
    assert text.count(b"\n") == text.count(b"\r\n")


def test_bom_stays_first() -> None:
    source = b"\xef\xbb\xbfx = t % 32;\n"
    out = annotate(source, diag(source, 1))
    assert out == b"\xef\xbb\xbf// HIPIFY-PY: HIP201 lane math assumes 32\nx = t % 32;\n"


def test_message_cannot_break_the_code_or_add_directives() -> None:
    source = b"__global__ void k(int *o) { o[0] = threadIdx.x % 32; }\n"
    bad = "first\nsecond  hipify-py: ignore[HIP201] " + "z" * 300 + "\\"
    out = annotate(source, diag(source, 1, message=bad))
    note, code = out.splitlines()
    assert code == source.rstrip()
    assert not note.endswith(b"\\") and b"hipify-py: ignore" not in note and len(note) < 200
    again = translate(out, Options(annotate=True))  # the note does not suppress anything
    assert {d.rule for d in again.diagnostics} == {d.rule for d in translate(source).diagnostics} != set()


def test_non_utf8_source_gets_ascii_notes() -> None:
    source = b"// caf\xe9\nx = t % 32;\n"
    out = annotate(source, diag(source, 2, message="caf\u00e9 \u2014 lanes"))
    assert out == b"// caf\xe9\n// HIPIFY-PY: HIP201 caf? ? lanes\nx = t % 32;\n"


def test_never_inside_a_replaced_range() -> None:
    source = b"int a;\nkernel\n    <<<g, 32>>>(x);\nint b;\n"
    replace = Edit(
        source.index(b"kernel"), source.index(b"(x)") + 1, b"hipLaunchKernelGGL(kernel, g, 32, 0, 0, "
    )
    notes = annotation_edits(source, [diag(source, 3)], [replace])
    out = apply_edits(source, [replace, *notes])  # no OverlappingEditsError
    note = b"// HIPIFY-PY: HIP201 lane math assumes 32\n"
    assert out == b"int a;\n" + note + b"hipLaunchKernelGGL(kernel, g, 32, 0, 0, x);\nint b;\n"


@pytest.mark.slow
def test_annotate_never_breaks_a_translation() -> None:
    """Every example and fixture converts with --annotate, and the notes are all comment lines."""
    root = FIXTURES.parent.parent
    sources = [*FIXTURES.rglob("*.cu"), *(root / "examples").rglob("*.cu")]
    assert len(sources) > 50
    for path in sources:
        source = path.read_bytes()
        plain, annotated = translate(source, Options()).text, translate(source, Options(annotate=True)).text
        assert _without_notes(annotated) == _without_notes(plain), path


def _without_notes(text: bytes) -> bytes:
    bom = b"\xef\xbb\xbf" if text.startswith(b"\xef\xbb\xbf") else b""
    lines = text.removeprefix(bom).splitlines(keepends=True)
    return bom + b"".join(line for line in lines if b"// HIPIFY-PY: HIP" not in line)
