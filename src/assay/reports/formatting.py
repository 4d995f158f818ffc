"""Number formatting shared by the text renderers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from assay.analysis.summary import ScoreStats
from assay.shown_numbers import (
    AT_END,
    MAX_DECIMALS,
    fixed,
    fixed_beside,
    off_ends,
    percent,
    percent_beside,
)

if TYPE_CHECKING:
    from assay.review.result import GateBars

__all__ = ["figures", "fmt_mean", "fmt_pass_rate", "mean_bounds", "milliseconds", "pass_rate_bounds",
           "percent", "score_text"]


def fmt_mean(stats: ScoreStats, bars: Sequence[float] = ()) -> str:
    """The mean and its interval; `bars`, minimums a gate holds it to, are never a bound's
    rounding away."""
    if stats.mean is None:
        return "-"
    text = mean_text(stats, bars)
    if stats.mean_ci is not None:  # clipped to the scale, so not always symmetric
        low, high = mean_bounds(stats, bars)
        text += f" [{low}–{high}]"
    return text


def fmt_pass_rate(stats: ScoreStats, bars: Sequence[float] = ()) -> str:
    """The pass rate and its interval; `bars` as for `fmt_mean`."""
    if stats.pass_rate is None:
        return "-"
    text = pass_rate_text(stats, bars)
    if stats.pass_rate_ci is not None:
        low, high = pass_rate_bounds(stats, bars)
        text += f" [{low}–{high}]"
    return text


def figures(stats: ScoreStats, bars: GateBars) -> tuple[str, str]:
    """A score table row's mean and pass rate, read against the minimums the run's gates
    set for them (`bars`)."""
    rates, means = bars.of(stats.scorer, stats.condition)
    return fmt_mean(stats, means), fmt_pass_rate(stats, rates)


def mean_text(stats: ScoreStats, bars: Sequence[float] = ()) -> str:
    """The mean as the score table prints it, with the digits that show which side of each
    of `bars` it is on, as its gate's line shows it (a mean of 6.9996 is not `7.00` under a
    gate at min 7)."""
    assert stats.mean is not None
    text = score_text(stats.mean, stats.scale)
    for bar in bars:
        beside = fixed_beside(stats.mean, bar, len(text.partition(".")[2]))
        text = beside if len(beside) > len(text) else text
    return text


def pass_rate_text(stats: ScoreStats, bars: Sequence[float] = ()) -> str:
    """The pass rate as the score table prints it, with the digits that show which side of
    each of `bars` it is on: 94.96% read `95.0%` above a gate line of `94.96% passed ...
    (min 95.00%)`."""
    assert stats.pass_rate is not None
    text = percent(stats.pass_rate)
    for bar in bars:
        beside = percent_beside(stats.pass_rate, bar)
        text = beside if len(beside) > len(text) else text
    return text


def mean_bounds(stats: ScoreStats, bars: Sequence[float] = ()) -> tuple[str, str]:
    """The mean's interval as the score table prints it, for every line that quotes it:
    digits added where a bound would round onto or across one of `bars`."""
    assert stats.mean_ci is not None
    ci, scale = stats.mean_ci, stats.scale
    first = len(score_text(ci.low, scale).partition(".")[2])
    return _bounds_beside(ci.low, ci.high, lambda value, places: score_text(value, scale, places),
                          bars, range(first, MAX_DECIMALS + 1))


def pass_rate_bounds(stats: ScoreStats, bars: Sequence[float] = ()) -> tuple[str, str]:
    """The pass rate's interval as the score table prints it: at one decimal, as the rate
    itself and every other view of the interval (the tables read `61.3% [59%–64%]` where
    the viewer's history of the same run read `58.8%..63.8%`); more digits off an end
    (`99.97%`), where those would leave out the rate printed beside them, or where a bound
    would round onto or across one of `bars`, a gate's minimum."""
    assert stats.pass_rate_ci is not None and stats.pass_rate is not None
    ci = stats.pass_rate_ci
    return _bounds_beside(ci.low, ci.high, percent, bars, range(1, MAX_DECIMALS + 1),
                          holding=pass_rate_text(stats, bars))


def _bounds_beside(low: float, high: float, text: Callable[[float, int], str],
                   bars: Sequence[float], places: range, *,
                   holding: str | None = None) -> tuple[str, str]:
    """`low` and `high` as `text(value, decimals)` writes them, at the fewest of `places`
    decimals (the last when none does) that keep each on the side of every one of `bars` it
    truly is on, at one only when truly at it, and, with `holding`, the figure printed
    beside them between them."""
    numbers = [Decimal(repr(bar)) for bar in bars]
    for decimals in places:
        shown = text(low, decimals), text(high, decimals)
        if _sides_kept(((low, shown[0]), (high, shown[1])), numbers) and (
                holding is None
                or _number(shown[0]) <= _number(holding) <= _number(shown[1])):
            return shown
    return shown


def _sides_kept(bounds: Sequence[tuple[float, str]], bars: Sequence[Decimal]) -> bool:
    """Each bound, as shown, is on the side of each bar that it truly is on (at it only
    when it truly is at it, or within float noise of it: a Wilson low end of 0 passes comes
    out as 5.5e-17, which is at a bar of 0, not a hair above it)."""
    for value, text in bounds:
        shown = _number(text)
        for bar in bars:
            truly = bar if abs(Decimal(repr(value)) - bar) <= _NOISE else Decimal(repr(value))
            if (shown > bar) != (truly > bar) or (shown < bar) != (truly < bar):
                return False
    return True


_NOISE = Decimal(repr(AT_END))


def _number(text: str) -> Decimal:
    """The number a figure reads as: `79.6%` is 0.796, `0.796` is 0.796."""
    return Decimal(text[:-1]) / 100 if text.endswith("%") else Decimal(text)


def score_text(value: float, scale: tuple[float, float], decimals: int | None = None) -> str:
    """A value on its scale: three decimals on 0..1, else two (or `decimals`), and more when
    those would round it onto an end of the scale it is not at (0.9995 is not `1.000`)."""
    if decimals is None:
        decimals = 3 if scale[1] - scale[0] <= 1 else 2
    text = fixed(value, decimals)
    while off_ends(value, scale) and float(text) in scale and decimals < MAX_DECIMALS:
        decimals += 1
        text = fixed(value, decimals)
    return text


def milliseconds(value: float | None) -> str:
    """A duration as every report writes it: `9.4 ms`, `4.0 ms`, `212 ms`, `1.25 s`; `-` when
    unknown. (report.md wrote `9 ms` where report.html and the viewer wrote `9.4 ms`, and a
    column wrote `4 ms` beside `3.9 ms`.)"""
    if value is None:
        return "-"
    if value >= 1000:
        return f"{value / 1000:,.2f} s"
    small = f"{value:#.2g}"  # two digits, a trailing zero kept: `4.0 ms` beside `3.9 ms`
    if value >= 10 or small.endswith("."):  # 9.96 reads `10 ms`, as the next size writes it
        return f"{value:,.0f} ms"
    return f"{small} ms"
