"""The documentation: every relative link in README.md, CHANGELOG.md and docs/*.md resolves (file and,
when given, the heading anchor as GitHub renders it), and README keeps the two commands a newcomer runs
and CI reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

PAGES = sorted([REPO / "README.md", REPO / "CHANGELOG.md", *(REPO / "docs").glob("*.md")])

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_INDENTED = re.compile(r"^(?: {4}|\t).*$", re.M)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text with code blocks and code spans blanked (links there are examples, not links)."""
    text = _FENCE.sub("", text)
    text = _INDENTED.sub("", text)
    return _CODE_SPAN.sub("", text)


def links(text: str) -> list[str]:
    return [m.group(1) for m in _LINK.finditer(_prose(text))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces -> '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for m in _HEADING.finditer(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    assert broken_links(page) == []


def test_link_checker_sees_broken_links(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A `code` heading, with: punctuation\n## Twice\n## Twice\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-code-heading-with-punctuation) [ok](there.md#twice-1)\n"
        "[gone](missing.md) [bad anchor](there.md#nope) [web](https://example.org/x)\n"
        "`[in code](missing2.md)`\n\n```\n[in a block](missing3.md)\n```\n"
    )
    assert broken_links(page) == ["missing.md: no such file", "there.md#nope: no heading with anchor #nope"]


def test_readme_keeps_the_two_commands() -> None:
    """A newcomer on a fresh machine runs these, and CI runs the test command it finds here."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    assert "    pip install -e '.[test]' && hipify-py convert examples -o build/hip\n" in section
    assert "    python3 -m pytest -q\n" in section


def test_readme_is_for_users() -> None:
    """About 10 KB, and no commit hashes (history lives in CHANGELOG.md)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.encode()) < 14_000
    hashes = [
        h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", h) and re.search(r"\d", h)
    ]
    assert hashes == []


def test_changelog_is_in_released_versions() -> None:
    """Keep a Changelog: an Unreleased section on top, then released versions, newest first; the newest
    is the package's version (pyproject reads it from hipify_py.__version__)."""
    from hipify_py import __version__
    from hipify_py.data.versions import parse_version

    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert headings[0] == "Unreleased"
    versions = headings[1:]
    assert versions and versions[0] == __version__
    assert versions == sorted(versions, key=parse_version, reverse=True)
    sections = re.findall(r"^### (.+)$", text, re.MULTILINE)
    assert set(sections) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
