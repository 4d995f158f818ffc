"""A verdict line as printed: its rounded interval and p-value tell the verdict's story."""

from __future__ import annotations

import pytest

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.interval import Interval
from assay.analysis.paired import compare_paired
from assay.analysis.verdict import bounds_text, format_p, level_text, off_zero, shown_effect
from assay.records import ScoreRow


def test_regression_a_bound_just_above_zero_never_prints_as_zero():
    # a significant mean delta printed "95% CI +0.00..+0.52, significant"
    interval = Interval(0.004690435198272447, 0.5163265896711656)
    assert bounds_text(interval, 2) == "+0.0047..+0.52"
    assert bounds_text(Interval(-0.70, -0.0015562198), 2) == "-0.70..-0.0016"
    assert bounds_text(Interval(-44.04, -0.0228), 1) == "-44.0..-0.023"


def test_a_bound_near_zero_is_written_out_as_the_delta_beside_it_is() -> None:
    """Regression: a mean one case of 2,000 moved by a billionth read
    `+0.000000000001 (95% CI -4.8e-13..+0.000000000004)`, one bound in exponent notation."""
    assert bounds_text(Interval(-4.8e-13, 4e-12), 12) == "-0.00000000000048..+0.000000000004"
    assert bounds_text(Interval(0.000999, 0.5), 2) == "+0.0010..+0.50"
    assert bounds_text(Interval(1e-300, 0.5), 2) == "+1e-300..+0.50"  # past any delta's digits


def test_a_bound_at_zero_reads_zero_and_others_keep_their_digits():
    assert bounds_text(Interval(0.0, 54.5), 1) == "0.0..+54.5"
    assert bounds_text(Interval(-6.3, 54.5), 1) == "-6.3..+54.5"


@pytest.mark.parametrize("p, alpha, text", [
    (0.0496, 0.05, "p=0.0496"),  # significant: not "p=0.05"
    (0.0504, 0.05, "p=0.0504"),  # within noise: not "p=0.05" either
    (0.05, 0.05, "p=0.05"),
    (0.049999999, 0.05, "p<0.05"),
    (0.0166, 0.05 / 3, "p=0.0166"),  # a Holm step's level
    (0.22, 0.05, "p=0.22"),
    (0.0004, 0.05, "p<0.001"),
])
def test_a_p_value_beside_a_verdict_shows_which_side_of_alpha_it_is(p, alpha, text):
    assert format_p(p, alpha) == text
    assert format_p(0.0496) == "p=0.05"  # alone, two digits are enough


def test_a_p_value_at_a_tie_rounds_away_from_zero_as_every_figure_does():
    """The sign test of 4 cases that all moved one way (p = 0.125) read `p=0.12`, a tie
    rounded to even, where every other figure rounds it away from zero."""
    assert format_p(0.125) == "p=0.13"
    assert format_p(0.0625, 0.05) == "p=0.063"


def test_the_verdict_line_gives_the_delta_and_interval_of_the_table_row_above_it():
    """Regression: 1,999 of 2,000 against 2,000 of 2,000 read `+0.05pp, 95% CI -0.14..+0.28pp`
    in the comparison's row and `pass rate +0.1pp, 95% CI -0.1..+0.3pp` in the verdict under
    it (report.md, report.html, results.json): one quantity, two numbers."""
    a = {f"q{i}": i != 5 for i in range(2000)}
    b = {f"q{i}": True for i in range(2000)}
    c = compare_paired(a, b, kind="pass_fail")
    shown = shown_effect(c)
    assert (shown.before, shown.after, shown.delta) == ("99.95%", "100.00%", "+0.05pp")
    assert c.verdict.startswith(f"pass rate +0.05pp, 95% CI {shown.interval}, within noise")


def test_a_delta_that_is_not_zero_never_reads_as_zero():
    """Regression: a mean that moved from 1.0 to 0.9997 read `1.000 → 1.000, -0.000`."""
    a = {f"q{i}": 1.0 for i in range(3000)}
    b = {f"q{i}": 0.5 if i < 2 else 1.0 for i in range(3000)}
    shown = shown_effect(compare_paired(a, b, kind="score", scale=(0, 1)))
    assert (shown.before, shown.after, shown.delta) == ("1.0000", "0.9997", "-0.0003")
    assert off_zero(0.0, 3) == 3 and off_zero(0.0004, 3) == 4 and off_zero(-0.04, 1) == 2


def test_an_interval_in_a_family_of_a_hundred_never_reads_as_a_100_percent_interval():
    """Regression: 25 conditions against a baseline on 4 scorers are a Holm family of 100,
    tested at 1 - 0.05/100 when nothing is significant; every line read `100% CI -60.7..
    +73.2pp`, a certainty no interval of 8 cases has. It reads `99.95% CI`."""
    conditions = ["base", *(f"v{i:02d}" for i in range(1, 26))]
    rows = [ScoreRow(case_id=f"q{case}", condition=condition, epoch=0, scorer=f"s{scorer}",
                     value=float(passed), passed=passed, error=None, scale=(0, 1))
            for scorer in range(4) for k, condition in enumerate(conditions)
            for case in range(8) for passed in [(case * 7 + k * 3 + scorer) % 5 < 2]]
    family = compare_conditions(collect_cases(rows), conditions)
    assert len(family.entries) == 100
    assert not any(e.comparison.significant for e in family.entries)
    for entry in family.entries:
        assert entry.comparison.headline.interval.confidence == 1 - 0.05 / 100
        assert ", 99.95% CI " in entry.comparison.verdict
        assert entry.advice[0].summary().startswith("99.95% CI ")
    assert level_text(1 - 0.05 / 1000) == "99.995%" and level_text(1.0) == "100%"
    assert level_text(0.95) == "95%" and level_text(1 - 0.05 / 3) == "98.3%"


def test_a_significant_delta_never_reads_as_zero_however_small():
    """Regression: five cases each 1e-9 or 2e-9 higher read `0.50000000 → 0.50000000,
    +0.00000000, 95% CI +7.2e-10..+2.4e-09, significant`; and a mean +0.35 higher on a
    0-1000 scale `mean +0.35 (+0.0pp of the scale), ..., significant`."""
    a = {f"q{i}": 0.5 for i in range(5)}
    tiny = compare_paired(a, {f"q{i}": 0.5 + 1e-9 * (1 + i % 2) for i in range(5)},
                          kind="score", scale=(0, 1))
    assert tiny.significant
    shown = shown_effect(tiny)
    assert (shown.before, shown.after, shown.delta) == (
        "0.500000000", "0.500000001", "+0.000000001")
    assert tiny.verdict.startswith("mean +0.000000001 (+0.0000001pp of the scale), 95% CI "
                                   "+0.000000001..+0.000000002, significant")
    wide = compare_paired({f"q{i}": 500.0 + i for i in range(10)},
                          {f"q{i}": 500.3 + i + 0.1 * (i % 2) for i in range(10)},
                          kind="score", scale=(0, 1000))
    assert wide.significant
    assert wide.verdict.startswith("mean +0.35 (+0.04pp of the scale), 95% CI +0.31..+0.39")


def test_a_delta_beside_its_size_keeps_the_digits_that_put_it_in_that_size():
    """Regression: on one screen, 5 more passes of 101 cases (4.95pp) read `+5.0pp (moderate
    gain)` and 5 more of the 100 a second scorer could pair read `+5.0pp (strong gain)`; a
    mean 0.4998 higher on 0-10 read `+0.500 (+5.0pp of the scale) ... moderate gain`."""
    rows = [ScoreRow(case_id=f"q{case}", condition=condition, epoch=0, scorer=scorer,
                     value=None if missing else float(passed), passed=None if missing else passed,
                     error="judge unreachable" if missing else None, scale=(0, 1))
            for scorer in ("exact", "judge") for condition, passing in (("a", 50), ("b", 55))
            for case in range(101) for passed in [case < passing]
            for missing in [scorer == "judge" and condition == "a" and case == 100]]
    lines = {e.comparison.scorer: e.comparison
             for e in compare_conditions(collect_cases(rows), ["a", "b"]).entries}
    assert [(shown_effect(c).delta, c.reading) for c in lines.values()] == [
        ("+4.95pp", "moderate"), ("+5.0pp", "strong")]
    assert lines["exact"].verdict.startswith("pass rate +4.95pp, 97.5% CI -0.02..+12.27pp")
    mean = compare_paired({f"q{i}": 5.0 for i in range(20)},
                          {f"q{i}": 5.3498 + 0.3 * (i % 2) for i in range(20)},
                          kind="score", scale=(0, 10))
    assert mean.reading == "moderate" and shown_effect(mean).delta == "+0.4998"
    assert mean.verdict.startswith("mean +0.4998 (+4.998pp of the scale)")
