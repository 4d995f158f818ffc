"""Per-case tables from score rows, and every condition read against the baseline."""

from __future__ import annotations

import pytest

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.errors import UserError
from assay.records import ScoreRow, TrialRow
from assay.reports.comparisons import excluded_line


def row(case: str, condition: str, value: float | None, passed: bool | None = None, *,
        scorer: str = "judge", epoch: int = 0, error: str | None = None,
        scale: tuple[float, float] = (0, 10)) -> ScoreRow:
    return ScoreRow(case_id=case, condition=condition, epoch=epoch, scorer=scorer, value=value,
                    passed=passed, error=error, scale=scale)


def test_rows_become_per_case_epoch_lists_with_errors_kept_as_none() -> None:
    cases = collect_cases([
        row("q1", "training", 7, True), row("q1", "training", 5, False, epoch=1),
        row("q1", "pack", None, None, error="judge unreachable"),
        row("q1", "pack", 9, True, epoch=1),
    ])
    judge = cases["judge"]
    assert judge.values == {"training": {"q1": [7, 5]}, "pack": {"q1": [None, 9]}}
    assert judge.passed == {"training": {"q1": [True, False]}, "pack": {"q1": [None, True]}}
    assert judge.kind == "pass_fail" and judge.scale == (0.0, 10.0)


def test_a_scorer_without_verdicts_is_compared_on_its_mean() -> None:
    cases = collect_cases([row(f"q{i}", c, v, scorer="f1", scale=(0, 1))
                           for i in range(12) for c, v in (("a", 0.2), ("b", 0.2 + i / 100))])
    assert cases["f1"].kind == "score"
    [entry] = compare_conditions(cases, ["a", "b"]).entries
    c = entry.comparison
    assert c.kind == "score" and c.delta_pp is None
    assert c.delta_mean == pytest.approx(sum(i / 100 for i in range(12)) / 12)
    assert [a.metric for a in entry.advice] == ["mean"]


def test_every_condition_is_compared_with_the_baseline_in_one_holm_family() -> None:
    rows = []
    for i in range(30):
        rows += [row(f"q{i}", "training", 5, False), row(f"q{i}", "pack", 8, True),
                 row(f"q{i}", "enhanced", 8 if i % 2 else 5, bool(i % 2))]
    rows += [row(f"q{i}", c, 1.0, True, scorer="exact", scale=(0, 1))
             for i in range(30) for c in ("training", "pack", "enhanced")]
    result = compare_conditions(collect_cases(rows), ["training", "pack", "enhanced"])
    assert result.baseline == "training"
    pairs = [(e.comparison.scorer, e.comparison.label_a, e.comparison.label_b)
             for e in result.entries]
    assert pairs == [("judge", "training", "pack"), ("judge", "training", "enhanced"),
                     ("exact", "training", "pack"), ("exact", "training", "enhanced")]
    assert all(e.comparison.family_size == 4 for e in result.entries)
    pack = result.entries[0].comparison
    assert pack.delta_pp == 100 and pack.significant and len(pack.wins) == 30
    assert pack.p_adjusted == pytest.approx(min(1.0, pack.test.p_value * 4))
    exact = result.entries[2].comparison
    assert exact.delta_pp == 0 and not exact.significant and len(exact.ties) == 30
    assert result.to_dict()["family_size"] == 4


def test_a_named_baseline_reverses_the_reading() -> None:
    rows = [row(f"q{i}", c, v, v >= 7) for i in range(10) for c, v in (("a", 5), ("b", 8))]
    result = compare_conditions(collect_cases(rows), ["a", "b"], baseline="b")
    [entry] = result.entries
    assert (entry.comparison.label_a, entry.comparison.label_b) == ("b", "a")
    assert entry.comparison.delta_pp == -100


def test_an_unknown_baseline_names_the_conditions() -> None:
    with pytest.raises(UserError, match="'pak' is not a condition.*training, pack"):
        compare_conditions({}, ["training", "pack"], baseline="pak")


def test_a_comparison_without_common_cases_is_skipped_and_said_so() -> None:
    rows = [row("q1", "a", 5, False), row("q2", "b", 8, True)]
    result = compare_conditions(collect_cases(rows), ["a", "b"])
    assert result.entries == []
    [line] = result.skipped  # printed after "not compared: ", which it does not repeat
    assert line.startswith("judge: b vs a: no case has a usable result on both sides (")
    assert "not compared" not in line and line.count("judge") == 1


def test_one_condition_has_nothing_to_compare() -> None:
    result = compare_conditions(collect_cases([row("q1", "only", 5, False)]), ["only"])
    assert result.entries == [] and result.skipped == []


def test_target_errors_are_named_errored_and_every_dropped_epoch_is_counted() -> None:
    # issue cases: target-errored epochs were not counted in epoch_values_ignored, and a
    # case whose trials all errored read as "only in A", like a dataset mismatch
    rows = [row(f"q{i}", c, 8.0, True, epoch=e) for i in range(4) for c in ("a", "b")
            for e in (1, 2, 3)]
    rows = [r for r in rows if not (r.condition == "b" and r.case_id in ("q0", "q1")
                                    and (r.case_id == "q0" or r.epoch > 1))]
    failed = [TrialRow("q0", "b", e, error="boom") for e in (1, 2, 3)]
    failed += [TrialRow("q1", "b", e, error="boom") for e in (2, 3)]
    comps = compare_conditions(collect_cases(rows, failed), ["a", "b"])
    excluded = comps.entries[0].comparison.excluded
    assert excluded.errored_in_b == ("q0",) and excluded.only_in_a == ()
    assert excluded.epoch_values_ignored == 2
    assert excluded_line(comps.entries[0].comparison) == [
        "- left out, errored in b (every epoch) (1): `q0`",
        "- 2 errored epochs left out of the per-case means of cases kept"]


def test_fed_row_by_row_the_cases_put_failed_trials_in_for_every_scorer_seen() -> None:
    """A failed trial read before the scorers' rows still counts for each of them."""
    from assay.analysis.conditions import CaseCollector

    rows = [row("q1", "a", 5, True, scorer="s1"), row("q1", "a", 6, True, scorer="s2",
                                                      epoch=1),
            row("q2", "b", None, error="boom", scorer="s1")]
    failed = [TrialRow("q1", "a", 0, error="target failed"), TrialRow("q3", "b", 0, error="x")]
    collector = CaseCollector()
    collector.add_failed(failed[0])
    for score_row in rows:
        collector.add_score(score_row)
    collector.add_failed(failed[1])
    cases = collector.cases()
    assert cases == collect_cases(rows, failed)
    assert cases["s2"].values["b"] == {"q3": None} and cases["s1"].values["a"] == {"q1": [5, None]}


def test_a_scorer_that_gives_a_verdict_on_some_answers_only_is_compared_on_its_mean() -> None:
    """Regression: False for an empty answer (a 0-1 verdict) among 0-10 grades without one
    made the scorer a pass/fail scorer, whose cases without a verdict were left out of
    its comparison as errored. Its scale is the one every value lies on, 0..10."""
    rows = [row(f"q{i}", "base", 5.0 + i % 3) for i in range(6)]
    rows += [row(f"q{i}", "cand", 6.5 + i % 3) for i in range(5)]
    rows.append(row("q5", "cand", 0.0, False, scale=(0, 1)))
    cases = collect_cases(rows)
    assert cases["judge"].kind == "score" and cases["judge"].scale == (0.0, 10.0)
    [entry] = compare_conditions(cases, ["base", "cand"]).entries
    c = entry.comparison
    assert (c.n, c.excluded.count) == (6, 0)
    assert c.delta_mean == pytest.approx((5 * 1.5 - 7.0) / 6)
    assert c.ci_mean.low < c.delta_mean < c.ci_mean.high
