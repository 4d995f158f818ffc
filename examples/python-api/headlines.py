"""A tiny headline styler, the app under test: two versions of the same idea.

Version 1 is `str.title()`, which capitalises after every apostrophe
("Don'T") and capitalises small words ("Of", "The"). Version 2 fixes both.
"""

from __future__ import annotations

SMALL_WORDS = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or",
               "the", "to", "vs"}


def style(headline: str, version: int = 2) -> str:
    if version == 1:
        return headline.title()
    words = headline.lower().split()
    styled = [word if 0 < i < len(words) - 1 and word in SMALL_WORDS else word[:1].upper()
              + word[1:] for i, word in enumerate(words)]
    return " ".join(styled)
