"""What a reader asks for when browsing the store: which runs, which cases.

Plain values, so `assay view` can parse them from a URL and the store can
turn them into SQL without either knowing the other's details.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Show = Literal["all", "flipped", "regressed", "errored", "unstable"]
SHOWS: tuple[str, ...] = get_args(Show)
"""Which cases to list side by side:

- `flipped`: a scorer's verdict differs between the sides (the conditions of
  a run, or the two runs under one condition): the pass share is not the same.
- `regressed`: a side passes less often than the baseline (the baseline
  condition of a run; run A of two runs).
- `errored`: a trial or a score of the case ended in an error.
- `unstable`: the verdict changed between a case's epochs, or a repeated judge
  disagreed with itself (its details say `unstable`).
"""


@dataclass(frozen=True, slots=True)
class RunFilter:
    """Runs to list: of one experiment, kind and status, started within dates (ISO, inclusive)."""

    experiment: str | None = None
    kind: str | None = None
    status: str | None = None
    since: str | None = None
    """Started on or after this date or time (`2025-01-31`)."""
    until: str | None = None
    """Started on or before this date (the whole day) or time."""


@dataclass(frozen=True, slots=True)
class CaseFilter:
    """Cases to list side by side."""

    show: Show = "all"
    tag: str | None = None
    """Only cases with this tag."""
    text: str | None = None
    """Only cases whose id contains this text."""
    scorer: str | None = None
    """`flipped`, `regressed` and `unstable` read only this scorer's verdicts (all by default)."""
    baseline: str | None = None
    """A run's baseline condition for `regressed` (the first condition when None)."""


@dataclass(frozen=True, slots=True)
class CasePage:
    """One page of case ids in id order, and where the pages next to it start."""

    case_ids: list[str]
    after: str | None
    """Give this as `after` for the next page; None on the last page."""
    before: str | None
    """Give this as `before` for the previous page; None on the first page."""
    searched_to: str | None = None
    """The search stopped at this case id before filling the page (it took too long);
    `after` (or `before`, paging back) goes on from here. None when it looked everywhere."""
