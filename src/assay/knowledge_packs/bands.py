"""The Knowledge Packs reading of a delta in percentage points: a size label, not a test.

The published table names five bands: +5pp or more strong; +1pp to +5pp
moderate; 0pp neutral; -1pp to -5pp slight regression; below -5pp
significant regression. Its rows are whole points, so two edges need a rule:

- Strictly between -1pp and +1pp is "neutral": at the table's resolution such
  a delta is 0pp, and calling +0.5pp "moderate value" would overstate it.
- +5pp exactly is "strong" (the table says "or more"); -5pp exactly is a
  "slight regression" (the table's band runs to -5pp, and only "below" is
  significant); +1pp and -1pp belong to their named bands.

"significant regression" is the table's name for a size. Whether a delta is
statistically significant is the paired test's call; reports show both, and
print the reading as `pack reading: <band>` (`labelled`) so that
"no significant difference" beside "significant regression" is never read as
two verdicts that disagree.
"""

from __future__ import annotations

import math
from typing import Final, Literal, TypeAlias

Reading: TypeAlias = Literal[
    "strong", "moderate", "neutral", "slight regression", "significant regression"]

READINGS: Final[tuple[Reading, ...]] = (
    "strong", "moderate", "neutral", "slight regression", "significant regression")

_DECIMALS = 9
"""55% - 50% is 4.999999999999999 in floating point; it is +5pp, and strong."""


def pack_reading(delta_pp: float) -> Reading:
    """The band of a delta in percentage points, per the Knowledge Packs table."""
    if not math.isfinite(delta_pp):
        raise ValueError(f"a delta must be a finite number of points, got {delta_pp!r}")
    d = round(delta_pp, _DECIMALS)
    if d >= 5:
        return "strong"
    if d >= 1:
        return "moderate"
    if d > -1:
        return "neutral"
    if d >= -5:
        return "slight regression"
    return "significant regression"


def labelled(reading: Reading | None) -> str:
    """A reading as printed next to a test's verdict: `pack reading: significant regression`."""
    return f"pack reading: {reading or '-'}"
