"""A viewer page read as a person reads it, for tests to look for phrases in."""

from __future__ import annotations

import html
import re


def page_text(page: str) -> str:
    """A page's text, tags and runs of white space collapsed to one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
