"""Numbers as the renderers print them: a share never reads as all or nothing unless it is."""

from __future__ import annotations

import pytest

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.interval import Interval, wilson
from assay.analysis.summary import ScoreStats, summarize
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.reports.formatting import fmt_mean, fmt_pass_rate, percent
from assay.review.result import GateBar, GateBars, Review
from tests.review.renderings import assert_every_rendering_shows


@pytest.mark.parametrize(("share", "text"), [(1.0, "100.0%"), (0.0, "0.0%"), (0.5, "50.0%"),
                                             (1999 / 2000, "99.95%"), (1 / 5000, "0.02%"),
                                             (0.99996, "99.996%"), (0.9994, "99.9%")])
def test_a_percentage_reads_0_or_100_only_when_it_is_exactly_that(share: float,
                                                                   text: str) -> None:
    assert percent(share) == text


def test_whole_percentages_keep_the_digits_that_leave_the_ends() -> None:
    assert [percent(x, 0) for x in (1.0, 0.996, 0.004, 0.5)] == ["100%", "99.6%", "0.4%", "50%"]


def test_regression_one_failure_in_2000_cases_does_not_read_as_every_case_passing() -> None:
    """With 1,999 of 2,000 cases passed the score table read `1.000 [0.997–1.000]` and
    `100.0% [100%–100%]` beside the one failure listed under it."""
    low, high = 0.99717, 0.99991
    stats = ScoreStats(scorer="exact_match", condition="a", n=2000, errors=0,
                       mean=0.9995, passed=1999, judged=2000, pass_rate=0.9995,
                       mean_ci=Interval(low, high, 0.95, "Wilson"),
                       pass_rate_ci=Interval(low, high, 0.95, "Wilson"))
    assert fmt_pass_rate(stats) == "99.95% [99.7%–99.99%]"
    assert fmt_mean(stats) == "0.9995 [0.997–0.9999]"


def test_a_graded_mean_reads_its_scales_end_only_when_it_is_there() -> None:
    judged = ScoreStats(scorer="judge_score", condition="a", n=400, errors=0, mean=9.996,
                        scale=(0.0, 10.0), mean_ci=Interval(9.988, 10.0, 0.95, "t"))
    assert fmt_mean(judged) == "9.996 [9.99–10.00]"


def test_regression_a_bound_at_an_end_up_to_float_noise_reads_as_that_end() -> None:
    """A Wilson interval of no passes in 50 cases read `0.0% [0.00000000%–7%]`: its lower
    bound came out as 1e-17, not 0."""
    stats = ScoreStats(scorer="judge_score", condition="a", n=50, errors=0, mean=0.0,
                       passed=0, judged=50, pass_rate=0.0,
                       pass_rate_ci=Interval(1.3e-17, 0.0714, 0.95, "Wilson"))
    assert fmt_pass_rate(stats) == "0.0% [0.0%–7.1%]"
    assert percent(1 - 1e-15) == "100.0%"


def test_a_duration_reads_the_same_in_every_report() -> None:
    """Regression: report.md wrote a mean latency of 9.4 ms as '9 ms', report.html and the
    viewer as '9.4 ms'; all three now write it with `milliseconds`."""
    from assay.reports.formatting import milliseconds

    assert [milliseconds(v) for v in (None, 0.42, 9.4, 212.4, 1250.0, 61_000.0)] == [
        "-", "0.42 ms", "9.4 ms", "212 ms", "1.25 s", "61.00 s"]


def test_a_duration_under_ten_milliseconds_keeps_its_second_digit() -> None:
    """Regression: one latency column read `4 ms` beside `3.9 ms`."""
    from assay.reports.formatting import milliseconds

    assert [milliseconds(v) for v in (4.0, 3.9, 0.4, 0.0, 9.96, 10.4)] == [
        "4.0 ms", "3.9 ms", "0.40 ms", "0.0 ms", "10 ms", "10 ms"]


def test_a_pass_rate_is_printed_inside_its_own_interval() -> None:
    """Regression: 9,880 of 10,000 read `98.8% [99%–99%]`, the rate outside the interval
    printed beside it; the bounds get the digits that keep it inside."""
    interval = wilson(9880, 10000)
    stats = ScoreStats(scorer="exact_match", condition="a", n=10000, errors=0, mean=0.988,
                       passed=9880, judged=10000, pass_rate=0.988, pass_rate_ci=interval)
    assert fmt_pass_rate(stats) == "98.8% [98.6%–99.0%]"
    wide = ScoreStats(scorer="exact_match", condition="a", n=20, errors=0, mean=0.75,
                      passed=15, judged=20, pass_rate=0.75, pass_rate_ci=wilson(15, 20))
    assert fmt_pass_rate(wide) == "75.0% [53.1%–88.8%]"  # one decimal, as the rate


def test_an_interval_bound_is_never_rounded_onto_or_across_a_gates_minimum() -> None:
    """Regression: an interval whose low end was 94.6% read `97.0% [95%–99%]` in the score
    table under a gate at min 95%, as if the whole interval cleared it (a low end of 94.996%
    reads `95.0%` at one decimal); a mean's 6.996 read `7.00` under a gate at min 7."""
    stats = ScoreStats(scorer="exact_match", condition="a", n=400, errors=0, mean=7.2,
                       passed=388, judged=400, pass_rate=0.97, scale=(0.0, 10.0),
                       pass_rate_ci=Interval(0.94996, 0.9853, 0.95, "Wilson"),
                       mean_ci=Interval(6.996, 7.404, 0.95, "t"))
    assert fmt_pass_rate(stats) == "97.0% [95.0%–98.5%]"
    assert fmt_pass_rate(stats, [0.95]) == "97.0% [94.996%–98.530%]"
    assert fmt_mean(stats) == "7.20 [7.00–7.40]"
    assert fmt_mean(stats, [7.0]) == "7.20 [6.996–7.404]"
    assert fmt_mean(stats, [5.0]) == "7.20 [7.00–7.40]"


def test_every_score_table_reads_a_gated_interval_with_the_digits_that_keep_its_side() -> None:
    """The terminal, report.md, report.html and the viewer print one score table: each
    reads the bars of the gates the run was judged by (`Review.bars`) for the digits its
    intervals are held off them with."""
    scores = [ScoreRow(f"q{i}", "a", 0, "exact", float(i != 0), i != 0, None)
              for i in range(20)]
    summary = summarize(scores, [TrialRow(f"q{i}", "a", 0) for i in range(20)], ["exact"], ["a"])
    ci = summary.scores[0].pass_rate_ci
    assert ci is not None
    bar = round(ci.low, 2)  # the whole percent the low end rounds to, which it is not at
    run = RunRecord("run-1", "exp", "eval", "completed", "2026-01-02T00:00:00")
    review = Review(run=run, summary=summary, comparisons=compare_conditions(
        collect_cases(scores), ["a"]), previous=None, gates=[],
        bars=GateBars((GateBar("exact", "a", "pass_rate", bar),)))
    low, high = f"{ci.low:.1%}", f"{ci.high:.1%}"
    assert_every_rendering_shows(review, f"95.0% [{low}–{high}]", only=[
        "terminal", "report.md", "report.html", "assay view"])
    assert_every_rendering_shows(review, f"pass rate 95.0% (95% CI {low}..{high}, n=20)",
                                 only=["terminal", "report.md", "report.html"])


def test_a_gated_rate_and_mean_read_as_their_gate_lines_read_them() -> None:
    """Regression: 2,374 of 2,500 read `95.0%` in the score table above its gate's line
    '94.96% passed over 2,500 cases (min 95.00%)', FAIL; a mean of 6.9996 `7.00` above
    '6.9996 over ... (min 7)'."""
    stats = ScoreStats(scorer="exact_match", condition="a", n=2500, errors=0, mean=6.9996,
                       passed=2374, judged=2500, pass_rate=0.9496, scale=(0.0, 10.0))
    assert (fmt_pass_rate(stats), fmt_pass_rate(stats, [0.95])) == ("95.0%", "94.96%")
    assert (fmt_mean(stats), fmt_mean(stats, [7.0])) == ("7.00", "6.9996")


@pytest.mark.parametrize(("passed", "n", "bars", "text"), [
    (15, 20, [0.89], "75.0% [53.1%–88.8%]"),  # a high end of 88.8% is not `89%` beside 89%
    (15, 20, [0.53, 0.89], "75.0% [53.1%–88.8%]"),  # each end off the bar beside it
    (12, 20, [0.39, 0.8], "60.0% [38.7%–78.1%]"),
    (15, 15, [0.8], "100.0% [79.6%–100.0%]"),
    (15, 20, [0.8934], "75.00% [53.1%–88.8%]"),  # the rate takes the bar's digits
    # a gate at 0 (or 1) with none (or every case) passing: the Wilson end that comes out a
    # hair off it (5.5e-17) is at it, where it read `0.0% [0.0000000%–56.1497032%]`
    (0, 3, [0.0], "0.0% [0.0%–56.1%]"),
    (3, 3, [1.0], "100.0% [43.9%–100.0%]"),
])
def test_a_pass_rates_interval_beside_its_gates_reads_as_pinned(passed: int, n: int,
                                                               bars: list[float],
                                                               text: str) -> None:
    """The interval's bounds, beside one gate or two, on either end: the digits each gets."""
    stats = ScoreStats(scorer="exact_match", condition="a", n=n, errors=0, mean=passed / n,
                       passed=passed, judged=n, pass_rate=passed / n,
                       pass_rate_ci=wilson(passed, n))
    assert fmt_pass_rate(stats, bars) == text


@pytest.mark.parametrize(("mean", "low", "high", "scale", "bars", "text"), [
    (0.62, 0.5996, 0.6404, (0.0, 1.0), [0.6, 0.64], "0.620 [0.5996–0.6404]"),
    (0.62, 0.5996, 0.6404, (0.0, 1.0), [], "0.620 [0.600–0.640]"),
    (0.9998, 0.99955, 1.0, (0.0, 1.0), [0.9996], "0.9998 [0.99955–1.00000]"),
    (7.5, 6.999, 8.004, (0.0, 10.0), [7.0, 8.0], "7.50 [6.999–8.004]"),
    (3.2, 2.9951, 3.4, (1.0, 5.0), [3], "3.20 [2.995–3.400]"),
])
def test_a_means_interval_beside_its_gates_reads_as_pinned(
        mean: float, low: float, high: float, scale: tuple[float, float], bars: list[float],
        text: str) -> None:
    """From the digits its scale gives (more off an end it is not at), the digits that keep
    each bound off each bar."""
    stats = ScoreStats(scorer="judge_score", condition="a", n=30, errors=0, mean=mean,
                       scale=scale, mean_ci=Interval(low, high, 0.95, "t"))
    assert fmt_mean(stats, bars) == text


def test_a_bound_is_read_against_the_gates_own_minimum_not_that_minimum_rounded() -> None:
    """Regression: a pass rate's bounds were held off its gate's minimum rounded to six
    digits of a percent (0.53129913 as 53.1299%): a low end of 53.12991% read `53.13%`,
    above a bar it is below; a mean's bounds were held off the minimum itself, as now both."""
    stats = ScoreStats(scorer="exact_match", condition="a", n=20, errors=0, mean=0.75,
                       passed=15, judged=20, pass_rate=0.75, pass_rate_ci=wilson(15, 20))
    assert fmt_pass_rate(stats, [0.53129913]) == "75.0000% [53.1%–88.8%]"
