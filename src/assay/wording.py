"""Counts in words, as people write them: `1 answer`, `3 answers`."""

from __future__ import annotations


def capitalised(text: str) -> str:
    """`Kept 3 of 7 sessions`: a phrase made the start of a sentence."""
    return text[:1].upper() + text[1:]


def plural(count: int, noun: str) -> str:
    """`1 line`, `3 lines`, `1,200 cases`: the count with its noun, singular for one."""
    return f"{count:,} {noun}{'s' * (count != 1)}"
