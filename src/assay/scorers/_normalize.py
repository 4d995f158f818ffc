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
from typing import Literal

Whitespace = Literal["exact", "strip", "collapse"]

_ARTICLES = re.compile(r"\b(?:a|an|the)\b", re.IGNORECASE)


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
        if self.ignore_articles:
            steps.append(lambda text: _ARTICLES.sub(" ", text))
        if self.whitespace == "collapse" or self.ignore_articles:
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
