"""The Knowledge Packs reading of a delta in percentage points: a size label, not a test.

The published table names five bands: +5pp or more strong; +1pp to +5pp
moderate; 0pp neutral; -1pp to -5pp slight regression; below -5pp
significant regression. Its rows are whole points, so two edges need a rule:

- Strictly between -1pp and +1pp is "neutral": at the table's resolution such
  a delta is 0pp, and calling +0.5pp "moderate value" would overstate it.
- +5pp exactly is "strong" (the table says "or more"); -5pp exactly is a
  "slight regression" (the table's band runs to -5pp, and only "below" is
  significant); +1pp and -1pp belong to their named bands.

"significant regression" is the table's name for a size, not a test's call.
`results.json` keeps the band names; on screen and in reports a band reads
as a size (`size_words`: "large drop"), beside the test's own verdict
("significant" or "within noise"), so no line says "significant" twice with
two meanings.
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


SIZE_WORDS: Final[dict[Reading, str]] = {
    "strong": "strong gain", "moderate": "moderate gain", "neutral": "about even",
    "slight regression": "slight drop", "significant regression": "large drop"}


def size_words(reading: Reading | None) -> str:
    """A band as a size, for people: "large drop" for the band "significant regression"."""
    return SIZE_WORDS[reading] if reading is not None else "-"
