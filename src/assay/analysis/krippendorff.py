"""Krippendorff's alpha: agreement of any number of raters, with items some raters skipped.

Kappa pairs two raters. When several people label an item (and not every
person labels every item), alpha is the measure: 1 - observed / expected
disagreement, where both come from the coincidence matrix of values given
to the same item (Krippendorff 2011, "Computing Krippendorff's Alpha-
Reliability"). The level of measurement sets how far apart two values are:

- nominal: any two different labels are equally far apart;
- ordinal: by how many values lie between them (ranks, not distances);
- interval: by the squared difference (scores).

It is also how a judge's repeats are read: k asks of the same item are k
raters, and alpha says how far the judge agrees with itself beyond chance.

The interval is the jackknife over items: alpha recomputed with each item left
out (its coincidences taken off the total), the spread of those values giving
the standard error, and Student's t with items - 1 degrees of freedom the
width. In the seeded simulations of `tests/analysis/test_krippendorff.py` it
holds the true alpha more often at 20 items than the percentile bootstrap
over items it replaced (92-95% where that gave 88-92%), and it needs no
random draws, so the same ratings always get the same interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np

from assay.analysis.distributions import t_ppf
from assay.analysis.interval import Interval

Level: TypeAlias = Literal["nominal", "ordinal", "interval"]
METHOD = "jackknife over items"


@dataclass(frozen=True, slots=True)
class Alpha:
    """Krippendorff's alpha over the items with at least two values; None when undefined."""

    value: float | None
    interval: Interval | None
    level: Level
    items: int
    """Items that had two or more values (the others carry no information on agreement)."""
    values: int
    """Pairable values: the values given to those items."""
    raters: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": "Krippendorff's alpha", "value": self.value, "level": self.level,
                "interval": self.interval.to_dict() if self.interval else None,
                "items": self.items, "values": self.values, "raters": self.raters,
                "note": self.note}


def krippendorff_alpha(ratings: Sequence[Sequence[Hashable | None]], *, level: Level = "nominal",
                       categories: Sequence[Hashable] | None = None) -> Alpha:
    """Alpha of `ratings`: one row per item, one column per rater, None where a rater gave
    nothing. `categories` orders the values (needed for ordinal labels that are not numbers;
    numbers are sorted)."""
    raters = max((len(row) for row in ratings), default=0)
    present = [[value for value in row if value is not None] for row in ratings]
    units = [row for row in present if len(row) >= 2]
    if categories is None:
        categories = sorted({value for row in units for value in row},
                            key=lambda v: (not isinstance(v, (int, float)), v if isinstance(
                                v, (int, float)) else str(v)))
    index = {category: i for i, category in enumerate(categories)}
    per_unit = np.zeros((len(units), len(categories), len(categories)))
    for u, row in enumerate(units):
        counts = np.zeros(len(categories))
        for value in row:
            counts[index[value]] += 1
        per_unit[u] = (np.outer(counts, counts) - np.diag(counts)) / (len(row) - 1)
    pairable = sum(len(row) for row in units)
    if not units:
        return Alpha(None, None, level, 0, 0, raters, "no item has two values")
    distance = _distances(categories, per_unit.sum(axis=0).sum(axis=1), level)
    value = _alpha(per_unit.sum(axis=0), distance, level, categories)
    if value is None:
        return Alpha(None, None, level, len(units), pairable, raters,
                     "undefined: every value given is the same")
    interval = _jackknife(per_unit, value, distance, level, categories)
    return Alpha(value, interval, level, len(units), pairable, raters)


def _alpha(coincidence: np.ndarray, distance: np.ndarray | None, level: Level,
           categories: Sequence[Hashable]) -> float | None:
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    if distance is None:  # ordinal distances depend on the margins of this sample
        distance = _distances(categories, totals, level)
    expected = (np.outer(totals, totals) * distance).sum()
    if n <= 1 or expected <= 0:
        return None
    observed = (coincidence * distance).sum()
    return float(1.0 - (n - 1) * observed / expected)


def _distances(categories: Sequence[Hashable], totals: np.ndarray,
               level: Level) -> np.ndarray:
    size = len(categories)
    if level == "nominal":
        return 1.0 - np.eye(size)
    if level == "interval":
        numbers = np.asarray([float(c) for c in categories])  # type: ignore[arg-type]
        return np.asarray((numbers[:, None] - numbers[None, :]) ** 2, dtype=float)
    cumulative = np.concatenate([[0.0], np.cumsum(totals)])
    out = np.zeros((size, size))
    for c in range(size):
        for k in range(c + 1, size):
            between = cumulative[k + 1] - cumulative[c] - (totals[c] + totals[k]) / 2
            out[c, k] = out[k, c] = between ** 2
    return out


def _jackknife(per_unit: np.ndarray, value: float, distance: np.ndarray, level: Level,
               categories: Sequence[Hashable]) -> Interval | None:
    """Alpha +- t * its jackknife standard error; None below three items, or when leaving
    one item out leaves every value the same (alpha undefined)."""
    items = len(per_unit)
    if items < 3:
        return None
    total = per_unit.sum(axis=0)
    fixed = None if level == "ordinal" else distance
    left_out = [_alpha(total - unit, fixed, level, categories) for unit in per_unit]
    if any(v is None for v in left_out):
        return None
    values = np.asarray(left_out, dtype=float)
    se = float(np.sqrt((items - 1) / items * ((values - values.mean()) ** 2).sum()))
    if se == 0.0:
        return None
    half = t_ppf(0.975, items - 1) * se
    return Interval(max(-1.0, value - half), min(1.0, value + half), method=METHOD)
