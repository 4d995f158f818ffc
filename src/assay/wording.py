"""Counts in words, as people write them: `1 answer`, `3 answers`."""

from __future__ import annotations


def plural(count: int, noun: str) -> str:
    """`1 line`, `3 lines`, `1,200 cases`: the count with its noun, singular for one."""
    return f"{count:,} {noun}{'s' * (count != 1)}"
