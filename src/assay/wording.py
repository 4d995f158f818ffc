"""Things said in words, as people write them: counts (`1 answer`, `3 answers`) and what
kind of value a file holds where another was wanted (`text`, `a number`, `true or false`),
and paths as a terminal shows them."""

from __future__ import annotations

import os
import unicodedata
from typing import Any

from assay.shown_numbers import count as count_text


def capitalised(text: str) -> str:
    """`Kept 3 of 7 sessions`: a phrase made the start of a sentence."""
    return text[:1].upper() + text[1:]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 line`, `3 lines`, `1,200 cases`: the count with its noun, singular for one;
    `nouns` is the plural where it is not the noun and an s (`1 retry`, `2 retries`)."""
    return f"{count_text(count)} {noun if count == 1 else nouns or noun + 's'}"


def part_of(count: int, total: int | None, noun: str, *, of: str = "of") -> str:
    """`8 of 20 trials`, `1 of 1 trial`, or `8 trials` when the whole is not known: the noun
    agrees with the whole it is a part of."""
    if not total:
        return plural(count, noun)
    return f"{count_text(count)} {of} {plural(total, noun)}"


def the_last(count: int, noun: str, nouns: str | None = None) -> str:
    """`the last trial`, `the last 3 trials`: the count said only where it is more than one,
    so the verb after it agrees by itself (`the last trial ended`, `the last 3 trials ended`)."""
    return f"the last {noun}" if count == 1 else f"the last {plural(count, noun, nouns)}"


def path_text(path: str | os.PathLike[str]) -> str:
    """A path as a terminal shows it: the bytes of a name that are not UTF-8 each become
    U+FFFD, where Python's str of it printed the escape `r\\udcff.md`."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def name_text(name: str) -> str:
    """A key as written, each character no one can see (a zero-width space, a direction
    mark, a control character, a space other than the plain one) shown as its code point:
    `dataset\\u200b`, where 'unknown key 'dataset'; did you mean 'dataset'?' read as nonsense."""
    return "".join(f"\\u{ord(c):04x}" if c != " " and unicodedata.category(c) in _UNSEEN else c
                   for c in name)


_UNSEEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})
"""Unicode categories of characters that show as nothing, or as a plain space."""


def kind_of(value: Any) -> str:
    """What a value read from a file is, in the same words wherever it is refused: null,
    true or false, a number, text, a list, an object (or its Python type's name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
