"""Every link of the README, docs/ and the examples' pages leads somewhere.

A link to a section (`#is-the-difference-real`) must meet a heading of its page,
as GitHub names it; a link to a file (`docs/ci.md`, `examples/pytest`) must
meet that file or folder. A heading reworded or a file moved breaks neither
silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "examples").glob("*/README.md"))]


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_an_anchor_is_the_heading_as_github_names_it() -> None:
    assert anchor("Browsing results: `assay view`") == "browsing-results-assay-view"
    assert anchor("History, compare and CI") == "history-compare-and-ci"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_link_of_the_page_leads_somewhere(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    headings = {anchor(heading) for heading in re.findall(r"^#+ (.*)$", prose, re.MULTILINE)}
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        path, _, section = target.partition("#")
        if re.match(r"https?://", target):
            continue
        leads = (page.parent / path).exists() if path else section in headings
        if not leads:
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)} links to nothing: {broken}"
