"""A calibration's verdict on the bar and the numbers printed beside it agree."""

from __future__ import annotations

from assay.analysis.judge_agreement import RatedItem, judge_agreement
from assay.calibration.measure import Calibration
from assay.config.calibration import JudgeIdentity
from assay.reports.calibration import headline


def _calibration(agreed: int, n: int, *, min_agreement: float | None = 0.85,
                 min_kappa: float | None = None) -> Calibration:
    """A pass/fail calibration whose judge agreed with people on `agreed` of `n` items."""
    items = [RatedItem(f"i{i}", (i % 2 == 0,), (i % 2 == 0) == (i < agreed))
             for i in range(n)]
    return Calibration(kind="pass_fail", identity=JudgeIdentity(model="m/j"), source="run",
                       labels_path="labels.jsonl", measures=judge_agreement(items, "pass_fail"),
                       min_agreement=min_agreement, min_kappa=min_kappa)


def test_regression_an_agreement_just_below_the_bar_is_not_printed_at_the_bar() -> None:
    """623 of 733 (84.99%) was 'agreement 85.0% is below the bar of 85%'."""
    cal = _calibration(623, 733)
    assert not cal.passed
    assert cal.shortfalls == ["agreement 84.99% is below the bar of 85%"]
    line = headline(cal)
    assert line.startswith("BELOW THE BAR: agreement 84.99% is below the bar of 85%")
    assert "85.0%" not in line


def test_an_agreement_at_the_bar_passes_and_reads_as_the_bar() -> None:
    cal = _calibration(85, 100)
    assert cal.passed and "agreement 85.0%," in headline(cal)
    assert "agreement >= 85%" in headline(cal)


def test_regression_a_kappa_just_below_its_bar_is_not_printed_at_the_bar() -> None:
    """A kappa of 0.5992 read 'kappa 0.60 is below the bar of 0.6'."""
    cal = _calibration(1999, 2500, min_agreement=None, min_kappa=0.6)
    assert cal.kappa is not None and 0.599 < cal.kappa < 0.6
    assert cal.shortfalls == ["kappa 0.599 is below the bar of 0.6"]
    assert "kappa 0.60 " not in headline(cal)


def test_the_two_pass_rates_differ_by_the_leniency_printed_below_them() -> None:
    """People passing 2 of 6 and the judge 4 of 6 read '33.3% / 66.7%' above a leniency
    of '+33.3pp': the two rates as shown differ by 33.4."""
    from assay.reports.calibration import measure_rows

    items = [RatedItem(f"i{i}", (i < 2,), i < 4) for i in range(6)]
    cal = Calibration(kind="pass_fail", identity=JudgeIdentity(model="m/j"), source="run",
                      labels_path="labels.jsonl", measures=judge_agreement(items, "pass_fail"),
                      min_agreement=None, min_kappa=None)
    rows = {row[0]: row for row in measure_rows(cal)}
    assert rows["pass rate: people / judge"][1] == "33.33% / 66.67%"
    assert rows["leniency (judge - people pass rate)"][1] == "+33.3pp"


def test_a_kappa_reads_the_same_in_the_headline_and_in_the_table_below_it() -> None:
    """Regression: agreeing on 13 of 16 items, a kappa of 0.625 read `kappa 0.63` in the
    headline and `0.62` in the table of measures, with its interval rounded the other way."""
    from assay.reports.calibration import measure_rows

    cal = _calibration(13, 16, min_agreement=None, min_kappa=0.5)
    assert cal.kappa == 0.625
    rows = {row[0]: row for row in measure_rows(cal)}
    assert "kappa 0.63 " in headline(cal)
    assert rows[cal.measures.kappa.name][1] == "0.63"


def test_a_negative_kappa_on_a_tie_reads_the_same_in_the_headline_and_the_measures_table() -> None:
    """A kappa of -0.125 read 'kappa -0.13' in the headline, a tie rounded away from zero as
    every figure is, and '-0.12' in the table of measures under it, rounded to even."""
    from assay.reports.calibration import measure_rows

    items = ([RatedItem(f"i{i}", (True,), True) for i in range(7)]
             + [RatedItem("j", (True,), False), RatedItem("k", (False,), True)])
    cal = Calibration(kind="pass_fail", identity=JudgeIdentity(model="m/j"), source="run",
                      labels_path="labels.jsonl", measures=judge_agreement(items, "pass_fail"),
                      min_agreement=None, min_kappa=None)
    assert cal.kappa == -0.125
    assert "kappa -0.13 " in headline(cal)
    [row] = [row for row in measure_rows(cal) if row[0].endswith("kappa")]
    assert row[1] == "-0.13"


def test_a_leniency_that_is_not_0_never_reads_as_0_nor_its_interval_as_reaching_it() -> None:
    """Regression: a judge scoring one item of 250 a point above people read a leniency of
    '+0.00', and an interval of '-0.00..+0.01', as if it ended at 0."""
    from assay.reports.calibration import measure_rows

    items = [RatedItem(f"i{i}", (5,), 6 if i == 0 else 5) for i in range(250)]
    cal = Calibration(kind="score", identity=JudgeIdentity(model="m/j"), source="run",
                      labels_path="labels.jsonl",
                      measures=judge_agreement(items, "score", categories=range(1, 11)),
                      min_agreement=None, min_kappa=None)
    [row] = [row for row in measure_rows(cal) if row[0].startswith("leniency")]
    assert row[1] == "+0.004"
    low, high = row[2].split("..")
    assert float(low) < 0 < float(high) and low != "-0.000" and "within noise" in row[3]
