"""Dropping articles word by word gives what the article regex gives on the whole text."""

from __future__ import annotations

import random
import re

import pytest

from assay.scorers._normalize import SQUAD, Normalization

ARTICLES = re.compile(r"\b(?:a|an|the)\b", re.IGNORECASE)


def by_regex(text: str) -> str:
    """The definition: every article between word boundaries replaced, whitespace collapsed."""
    return " ".join(ARTICLES.sub(" ", text).split())


ARTICLES_ONLY = Normalization(ignore_articles=True).build()


@pytest.mark.parametrize("text", [
    "The answer is a value", "THE An a tHe", "theater an-the anthem", "the_cat a1 the2",
    "l'the (an) «the»", "the©cat a—b", "an\u00a0the\tA\n", "", "   ", "ａ the", "éthe théa",
])
def test_articles_are_dropped_where_the_regex_would_drop_them(text: str) -> None:
    assert ARTICLES_ONLY(text) == by_regex(text)


def test_articles_match_the_regex_on_random_mixes_of_letters_and_separators() -> None:
    rng = random.Random(14)
    pieces = [*"aAnNtThHeE xy_-'.é©\t\u00a0１", "the", "an", "a", "The", "AN"]
    for _ in range(5_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert ARTICLES_ONLY(text) == by_regex(text), text


def test_squad_normalisation_lowers_drops_punctuation_and_articles_and_collapses() -> None:
    assert SQUAD.build()("  The Eiffel-Tower,  an  icon! ") == "eiffeltower icon"
