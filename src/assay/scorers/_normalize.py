"""Text normalisation for comparing answers, built once per scorer and applied per trial.

The steps and their order follow SQuAD's answer normalisation (lower-case,
drop punctuation, drop the articles a/an/the, collapse whitespace), each one
optional, plus Unicode NFKC so that full-width digits or ligatures compare
equal to their plain forms when asked.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Literal

Whitespace = Literal["exact", "strip", "collapse"]

_ARTICLES = re.compile(r"\b(?:a|an|the)\b", re.IGNORECASE)
_ARTICLE_WORDS = frozenset(
    "".join(letter.upper() if upper else letter for letter, upper in zip(word, mask))
    for word in ("a", "an", "the") for mask in product((False, True), repeat=len(word)))
"""Each article in every mix of cases: what `_ARTICLES` matches in a word standing alone."""


def _without_articles(text: str) -> str:
    """`_ARTICLES.sub(" ", text)` with its whitespace collapsed, word by word.

    A match never holds whitespace, and a word's ends are word boundaries in the
    text exactly when they are in the word alone, so each word can be treated on
    its own; a word of letters and digits only (`isalnum` is regex's `\\w` bar `_`)
    has no boundary inside, so it is an article or kept whole, with no regex run.
    """
    kept: list[str] = []
    for word in text.split():
        if word.isalnum():
            if word not in _ARTICLE_WORDS:
                kept.append(word)
        else:
            kept += _ARTICLES.sub(" ", word).split()
    return " ".join(kept)


_ASCII_PUNCTUATION = frozenset(map(ord, string.punctuation))


class _PunctuationTable(dict[int, "int | None"]):
    """A `str.translate` table dropping punctuation, filled in as characters are met.

    SQuAD drops `string.punctuation`, which includes symbols such as `$` and
    `+`; we keep that set and add Unicode's punctuation (category P*) so that
    curly quotes, dashes and CJK full stops go too. Filling lazily avoids
    scanning all of Unicode up front.
    """

    def __missing__(self, code: int) -> int | None:
        drop = code in _ASCII_PUNCTUATION or unicodedata.category(chr(code)).startswith("P")
        result = None if drop else code
        self[code] = result
        return result


_PUNCTUATION = _PunctuationTable()


@dataclass(frozen=True, slots=True)
class Normalization:
    """Which normalisation steps to apply."""

    ignore_case: bool = False
    ignore_punctuation: bool = False
    ignore_articles: bool = False
    whitespace: Whitespace = "strip"
    nfkc: bool = False

    def build(self) -> Callable[[str], str]:
        """A function applying the chosen steps in a fixed order."""
        steps: list[Callable[[str], str]] = []
        if self.nfkc:
            steps.append(lambda text: unicodedata.normalize("NFKC", text))
        if self.ignore_case:
            steps.append(str.casefold)
        if self.ignore_punctuation:
            steps.append(lambda text: text.translate(_PUNCTUATION))
        if self.ignore_articles:  # and collapse the whitespace they leave
            steps.append(_without_articles)
        elif self.whitespace == "collapse":
            # str.split splits on exactly the characters `\s` matches: runs of whitespace
            # become one space, and none is left at either end, at half a regex's cost
            steps.append(lambda text: " ".join(text.split()))
        elif self.whitespace == "strip":
            steps.append(str.strip)

        def normalize(text: str) -> str:
            for step in steps:
                text = step(text)
            return text

        return normalize


SQUAD = Normalization(ignore_case=True, ignore_punctuation=True, ignore_articles=True,
                      whitespace="collapse")
"""SQuAD's answer normalisation, used by token F1."""
