"""README.md and docs/*.md hold together: every relative link and anchor resolves, every test they
cite exists, every docs page is linked from the README, and the README stays a front page (the
reference lives in docs/).

Links are checked as GitHub renders them: the path relative to the page, the anchor one of the
target page's heading slugs. Links to other sites are not followed (no network here).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CITED_TEST = re.compile(r"\b(test_\w+\.py)::(test_\w+)")


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks, inline code removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page, duplicates numbered as GitHub numbers them."""
    seen: Counter[str] = Counter()
    found = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            base = slug(match.group(2))
            found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
            seen[base] += 1
    return found


def link_targets(page: Path) -> list[str]:
    """The target of every link and image in ``page``'s prose, e.g. ``docs/node.md#using-the-node``."""
    return [m.group(1) for line in prose_lines(page.read_text(encoding="utf-8")) for m in LINK.finditer(line)]


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file or anchor does not exist, with the reason."""
    problems = []
    for target in link_targets(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: — another site
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            problems.append(f"{page.name}: {target}: no file {linked}")
        elif anchor and linked.suffix != ".md":
            problems.append(f"{page.name}: {target}: an anchor into a file that is not Markdown")
        elif anchor and anchor not in anchors(linked):
            problems.append(f"{page.name}: {target}: no heading with anchor #{anchor} in {linked.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_cited_test_exists(page: Path) -> None:
    missing = []
    for file_name, test_name in CITED_TEST.findall(page.read_text(encoding="utf-8")):
        test_file = ROOT / "test" / file_name
        if not test_file.exists() or f"def {test_name}(" not in test_file.read_text(encoding="utf-8"):
            missing.append(f"{file_name}::{test_name}")
    assert missing == [], f"{page.name} cites tests that do not exist"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in link_targets(ROOT / "README.md")}
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert unlinked == [], "add these pages to the README's Documentation table"


def test_readme_is_a_front_page() -> None:
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move reference material to docs/"


def test_a_broken_file_link_or_anchor_is_reported(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading: yes\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[good](other.md#a-code-heading-yes) [self](#page) `[in code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "[no file](missing.md) [no anchor](other.md#nowhere) [own](#nowhere-here) [web](https://x.org/a)\n"
    )
    problems = broken_links(page)
    assert len(problems) == 3, problems
    assert any("no file" in p and "missing.md" in p for p in problems)
    assert any("#nowhere" in p and "other.md" in p for p in problems)
    assert any("#nowhere-here" in p for p in problems)


def test_repeated_headings_get_numbered_anchors(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n## Étude — part 1\n")
    assert anchors(page) == {"notes", "notes-1", "étude--part-1"}
