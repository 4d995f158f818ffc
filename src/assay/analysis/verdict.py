"""The one line a comparison reads as: one quantity's size, its interval and the verdict.

Everything on the line is about the same quantity (the headline effect), at
the same level, so it cannot contradict itself: "significant" exactly when
the printed interval leaves out 0, and the interval's level says which
correction set it:

    pass rate +6.0pp, 98.3% CI -8.1..+19.6pp (Holm, family of 3), within noise
    (exact McNemar p=0.63, Holm-adjusted); size: strong gain

The Knowledge Packs band is given as a size ("strong gain", "large drop"),
never by its name "significant regression", which `results.json` keeps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.knowledge_packs.bands import size_words

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.paired import PairedComparison

WITHIN_NOISE = "within noise"
SIGNIFICANT = "significant"


def describe(c: PairedComparison) -> str:
    """The one-line verdict for a comparison (B relative to A)."""
    effect = c.headline
    name = "pass rate" if effect.metric == "pass_rate" else "mean"
    digits = 1 if effect.unit == "pp" else 2
    size = f"{name} {effect.estimate:+.{digits}f}{effect.unit}"
    if effect.metric == "mean" and c.reading_delta_pp is not None:
        size += f" ({c.reading_delta_pp:+.1f}pp of the scale)"
    interval = interval_text(effect.interval, effect.unit)
    if c.correction:
        interval += f" ({c.correction})"
    p = format_p(c.p_value) + (", Holm-adjusted" if c.p_adjusted is not None
                               and c.family_size > 1 else "")
    line = f"{size}, {interval}, {evidence(c)} ({effect.test.name} {p})"
    if c.reading is not None:
        line += f"; size: {size_words(c.reading)}"
    return line


def evidence(c: PairedComparison) -> str:
    """`significant` or `within noise`: the headline interval leaves out 0, or holds it."""
    return SIGNIFICANT if c.significant else WITHIN_NOISE


def format_p(p: float) -> str:
    """p-values to two significant digits, floored at 0.001: precision beyond that is noise."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def level_text(confidence: float) -> str:
    """95% -> `95%`, 1 - 0.05/3 -> `98.3%`."""
    return f"{confidence * 100:.3g}%"


def interval_text(interval: Interval, unit: str) -> str:
    """`95% CI -2.0..+14.0pp` (the level is the one the verdict used)."""
    digits = 1 if unit == "pp" else 2
    return f"{level_text(interval.confidence)} CI {bounds_text(interval, digits)}{unit}"


def bounds_text(interval: Interval, digits: int) -> str:
    """`-2.0..+14.0`; a bound at exactly 0 (where the verdict put it) reads `0.0`."""
    def bound(x: float) -> str:
        return f"{0.0:.{digits}f}" if x == 0 else f"{x:+.{digits}f}"

    return f"{bound(interval.low)}..{bound(interval.high)}"
