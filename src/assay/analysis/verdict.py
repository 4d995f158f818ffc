"""The one line a comparison reads as: one quantity's size, its interval and the verdict.

Everything on the line is about the same quantity (the headline effect), at
the same level, so it cannot contradict itself: "significant" exactly when
the printed interval leaves out 0, and the interval's level says which
correction set it:

    pass rate +6.0pp, 98.3% CI -8.1..+19.6pp (Holm, family of 3), within noise
    (asymptotic McNemar p=0.63, Holm-adjusted); size: strong gain

The Knowledge Packs band is given as a size ("strong gain", "large drop"),
never by its name "significant regression", which `results.json` keeps.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal, NamedTuple

from assay.analysis.mean_delta import Differences
from assay.knowledge_packs.bands import Reading, pack_reading, size_words
from assay.shown_numbers import adding_up, fixed, percent, points, significant

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.paired import PairedComparison

WITHIN_NOISE = "within noise"
SIGNIFICANT = "significant"


def describe(c: PairedComparison) -> str:
    """The one-line verdict for a comparison (B relative to A), its delta and interval with
    the digits of the comparison's table row (`+0.05pp` there is not `+0.1pp` here)."""
    effect = c.headline
    name = "pass rate" if effect.metric == "pass_rate" else "mean"
    shown = shown_effect(c)
    size = f"{name} {shown.delta}"
    if effect.metric == "mean" and c.reading_delta_pp is not None:
        size += f" ({points(c.reading_delta_pp, share_digits(c))} of the scale)"
    interval = f"{level_text(effect.interval.confidence)} CI {shown.interval}"
    if c.correction:
        interval += f" ({c.correction})"
    p = format_p(c.p_value, c.alpha) + (", Holm-adjusted" if c.p_adjusted is not None
                               and c.family_size > 1 else "")
    line = f"{size}, {interval}, {evidence(c)} ({effect.test.name} {p})"
    if c.reading is not None:
        line += f"; size: {size_words(c.reading)}"
    return line


class ShownEffect(NamedTuple):
    """One effect of a comparison as text: `before → after`, the delta and its interval's
    bounds (with the unit, `pp` for a pass rate), and the decimals the delta was given."""

    before: str
    after: str
    delta: str
    interval: str
    digits: int


def shown_effect(c: PairedComparison, metric: Literal["pass_rate", "mean"] | None = None
                 ) -> ShownEffect:
    """A, B, the delta and the interval of one of the comparison's effects (its headline by
    default) as text, with the digits at which B minus A as shown is the delta shown, the
    interval at those digits too. Every line that prints the effect reads it from here, so a table row
    and the verdict under it give one number: `+0.05pp` in one was `+0.1pp` in the other."""
    effect = c.headline if metric is None else c.mean if metric == "mean" else c.pass_rate
    assert effect is not None
    # the size band beside the line is the headline's: its delta keeps to that band
    reading = c.reading if effect is c.headline else None
    if effect.metric == "pass_rate" and c.pass_rate_a is not None and c.pass_rate_b is not None:
        rate_a, rate_b = c.pass_rate_a, c.pass_rate_b
        digits = in_band(effect.estimate, off_zero(effect.estimate, 1), reading, 1.0)
        a, b, delta, digits = adding_up(lambda d: percent(rate_a, d), lambda d: percent(rate_b, d),
                                         effect.estimate, digits)
        return ShownEffect(a, b, f"{delta}pp", f"{bounds_text(effect.interval, digits)}pp",
                           digits)
    mean_a, mean_b = c.mean_a, c.mean_b
    digits = off_zero(effect.estimate, 2 if abs(mean_a) >= 10 or abs(mean_b) >= 10 else 3)
    if isinstance(effect.evidence, Differences) and effect.evidence.span:
        # the band reads the delta as a share of the scale
        digits = in_band(effect.estimate, digits, reading, 100.0 / effect.evidence.span)
    a, b, delta, digits = adding_up(lambda d: fixed(mean_a, d), lambda d: fixed(mean_b, d),
                                     effect.estimate, digits)
    return ShownEffect(a, b, delta, bounds_text(effect.interval, digits), digits)


def share_digits(c: PairedComparison) -> int:
    """The decimals of a mean's delta in points of its scale, in its comparison and in a
    regression gate on it alike: 1, or more where 1 would round it onto 0 or into another
    size band (`-5.0004pp`, never the `-5.0pp` of a slight drop beside `large drop`)."""
    share = c.reading_delta_pp
    assert share is not None
    return in_band(share, off_zero(share, 1), c.reading, 1.0)


def in_band(delta: float, digits: int, reading: Reading | None, pp_per_unit: float) -> int:
    """`digits`, or more where those would round the delta into another size band than
    its `reading` (`pp_per_unit`: percentage points per unit of the delta): 5 of 101 cases
    gained, 4.95pp, read `+5.0pp (moderate gain)` beside `+5.0pp (strong gain)` of 5 of 100."""
    while (reading is not None and digits < DELTA_DECIMALS
           and pack_reading(float(fixed(delta, digits)) * pp_per_unit) != reading):
        digits += 1
    return digits


DELTA_DECIMALS = 17
"""The most decimals a delta gets to leave 0: a mean difference that is not 0 is at least
1e-9 (the rounding of each case's difference) over the cases, so a significant +1.5e-9
needs 9 decimals, where the cap of other numbers (8) printed it `+0.00000000`."""


def off_zero(delta: float, digits: int) -> int:
    """`digits`, or more where those would round a delta that is not 0 onto it: a mean
    that moved from 1.0 to 0.9997 read `1.000 → 1.000, -0.000`, now `1.0000 → 0.9997`."""
    while delta != 0 and float(fixed(delta, digits)) == 0 and digits < DELTA_DECIMALS:
        digits += 1
    return digits


def evidence(c: PairedComparison) -> str:
    """`significant` or `within noise`: the headline interval leaves out 0, or holds it."""
    return SIGNIFICANT if c.significant else WITHIN_NOISE


def format_p(p: float, alpha: float | None = None) -> str:
    """p-values to two significant digits, floored at 0.001: precision beyond that is noise.

    Beside a verdict at `alpha`, a p-value that two digits would round onto alpha, or
    across it, gets the digits that show its side: `p=0.0496` (significant), `p=0.0504`.
    """
    if p < 0.001:
        return "p<0.001"
    digits = 2
    while alpha is not None and _misleads(float(significant(p, digits)), p, alpha):
        if digits == 6:
            return f"p<{alpha:g}" if p < alpha else f"p={alpha:g}"
        digits += 1
    return f"p={significant(p, digits)}"


def _misleads(shown: float, p: float, alpha: float) -> bool:
    """The rounded p-value sits at alpha or on the other side of it from the true one."""
    return shown == alpha or (shown < alpha) != (p < alpha)


def level_text(confidence: float) -> str:
    """95% -> `95%`, 1 - 0.05/3 -> `98.3%`; a level short of 100% gets the digits that
    keep it there: a Holm family of 100 tests at 1 - 0.05/100, which read `100% CI`, a
    certainty no interval of a few cases has, and reads `99.95% CI`."""
    digits = 3
    text = significant(confidence * 100, digits)
    while confidence < 1 and float(text) >= 100 and digits < 17:
        digits += 1
        text = significant(confidence * 100, digits)
    return f"{text}%"


def bounds_text(interval: Interval, digits: int) -> str:
    """`-2.0..+14.0`; a bound at exactly 0 (where the verdict put it) reads `0.0`.

    Only a bound at 0 may read as 0: one that misses 0 by less than the last digit
    shown gets the digits it needs (`+0.0047..+0.52`), or "significant" would sit
    beside an interval that seems to reach 0.
    """
    return f"{bound_text(interval.low, digits)}..{bound_text(interval.high, digits)}"


def bound_text(x: float, digits: int) -> str:
    """One bound, signed, never rounded onto 0 unless it is 0."""
    if x == 0:
        return fixed(0.0, digits)
    text = fixed(x, digits, signed=True)
    if float(text) != 0:
        return text
    # two significant digits, written out as the delta beside it is while that fits
    rounded = float(significant(x, 2))
    decimals = 1 - math.floor(math.log10(abs(rounded)))
    if decimals <= DELTA_DECIMALS:
        return fixed(rounded, decimals, signed=True)
    return significant(x, 2, signed=True)
