"""Number formatting shared by the text renderers."""

from __future__ import annotations

from decimal import Decimal

from assay.analysis.summary import ScoreStats
from assay.shown_numbers import MAX_DECIMALS, off_ends, percent

__all__ = ["fmt_mean", "fmt_pass_rate", "mean_bounds", "milliseconds", "pass_rate_bounds",
           "percent", "score_text"]


def fmt_mean(stats: ScoreStats) -> str:
    if stats.mean is None:
        return "-"
    text = score_text(stats.mean, stats.scale)
    if stats.mean_ci is not None:  # clipped to the scale, so not always symmetric
        low, high = mean_bounds(stats)
        text += f" [{low}–{high}]"
    return text


def fmt_pass_rate(stats: ScoreStats) -> str:
    if stats.pass_rate is None:
        return "-"
    text = percent(stats.pass_rate)
    if stats.pass_rate_ci is not None:
        low, high = pass_rate_bounds(stats)
        text += f" [{low}–{high}]"
    return text


def mean_bounds(stats: ScoreStats) -> tuple[str, str]:
    """The mean's interval as the score table prints it, for every line that quotes it."""
    assert stats.mean_ci is not None
    return score_text(stats.mean_ci.low, stats.scale), score_text(stats.mean_ci.high, stats.scale)


def pass_rate_bounds(stats: ScoreStats) -> tuple[str, str]:
    """The pass rate's interval as the score table prints it: whole percents, more digits
    off an end (`99.7%`) or where whole ones would leave out the rate printed beside them:
    9,880 of 10,000 read `98.8% [99%–99%]`, now `98.8% [98.6%–99.0%]`."""
    assert stats.pass_rate_ci is not None and stats.pass_rate is not None
    rate = Decimal(percent(stats.pass_rate)[:-1])
    for decimals in range(MAX_DECIMALS):
        low = percent(stats.pass_rate_ci.low, decimals)
        high = percent(stats.pass_rate_ci.high, decimals)
        if Decimal(low[:-1]) <= rate <= Decimal(high[:-1]):
            return low, high
    return low, high


def score_text(value: float, scale: tuple[float, float]) -> str:
    """A value on its scale: three decimals on 0..1, else two, and more when those would
    round it onto an end of the scale it is not at (0.9995 is not `1.000`)."""
    decimals = 3 if scale[1] - scale[0] <= 1 else 2
    text = f"{value:.{decimals}f}"
    while off_ends(value, scale) and float(text) in scale and decimals < MAX_DECIMALS:
        decimals += 1
        text = f"{value:.{decimals}f}"
    return text


def milliseconds(value: float | None) -> str:
    """A duration as every report writes it: `9.4 ms`, `212 ms`, `1.25 s`; `-` when unknown.
    (report.md wrote `9 ms` where report.html and the viewer wrote `9.4 ms`.)"""
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value / 1000:,.2f} s"
    return f"{value:,.0f} ms" if value >= 10 else f"{value:.2g} ms"
