"""The suite's grand summary pools only numbers on one scale, and says what each total covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.analysis.summary import ConditionStats, RunSummary, ScoreStats
from assay.knowledge_packs.all_packs import SuiteEntry, grand_summary


def stats(scorer: str, condition: str, mean: float | None, n: int, *,
          scale: tuple[float, float] = (0.0, 1.0), pass_rate: float | None = None,
          judged_cases: int = 0, errors: int = 0) -> ScoreStats:
    return ScoreStats(scorer=scorer, condition=condition, n=n, mean=mean, scale=scale,
                      pass_rate=pass_rate, judged_cases=judged_cases, errors=errors,
                      judged=judged_cases, passed=round((pass_rate or 0) * judged_cases))


def entry(name: str, *scores: ScoreStats) -> SuiteEntry:
    conditions = list(dict.fromkeys(s.condition for s in scores))
    summary = RunSummary(scores=list(scores), conditions=[ConditionStats(c) for c in conditions],
                         by_tag=[], by_difficulty=[], values={})
    return SuiteEntry(Path(f"{name}.yaml"), 0, name, f"run-{name}", summary)


def judged(name: str, training: float, pack: float, n: int) -> SuiteEntry:
    """An experiment led by a 0-10 judge score that passes at 7."""
    return entry(name,
                 stats("judge_score", "training", training, n, scale=(0, 10),
                       pass_rate=training / 10, judged_cases=n),
                 stats("judge_score", "pack", pack, n, scale=(0, 10), pass_rate=pack / 10,
                       judged_cases=n))


def checked(name: str, training: float, pack: float, n: int) -> SuiteEntry:
    """An experiment led by a 0-1 check (its mean is its pass rate)."""
    return entry(name,
                 stats("exact_match", "training", training, n, pass_rate=training,
                       judged_cases=n),
                 stats("exact_match", "pack", pack, n, pass_rate=pack, judged_cases=n))


def test_experiments_on_one_scorer_pool_into_the_seed_shaped_grand_summary():
    document = grand_summary([judged("go", 8.0, 9.0, 10), judged("rust", 6.0, 7.0, 30)],
                             sample=None)
    training = document["grand_summary"]["training"]
    assert training["avg"] == pytest.approx((8 * 10 + 6 * 30) / 40)
    assert training["accuracy"] == pytest.approx((0.8 * 10 + 0.6 * 30) / 40 * 100)
    assert training["n"] == training["accuracy_n"] == 40
    assert training["experiments"] == ["go", "rust"]
    assert document["warnings"] == []
    [group] = document["grand_summary_by_scorer"]
    assert group["scorer"] == "judge_score" and group["scale"] == [0, 10]


def test_regression_a_0_10_score_is_never_averaged_with_a_0_1_check():
    # the suite used to report avg 2.0 over both scales, and n 40 for an accuracy of 20 cases
    document = grand_summary([judged("go", 8.0, 9.0, 20), checked("docker", 0.5, 0.7, 20)],
                             sample=None)
    assert document["grand_summary"] is None
    totals = {g["scorer"]: g for g in document["grand_summary_by_scorer"]}
    assert totals["judge_score"]["scale"] == [0, 10] and totals["exact_match"]["scale"] == [0, 1]
    assert totals["judge_score"]["conditions"]["pack"]["avg"] == pytest.approx(9.0)
    assert totals["judge_score"]["conditions"]["pack"]["n"] == 20
    assert totals["exact_match"]["conditions"]["pack"]["avg"] == pytest.approx(0.7)
    assert totals["exact_match"]["experiments"] == ["docker"]
    [warning] = document["warnings"]
    assert "different scorers or scales" in warning
    assert "judge_score (0–10): go" in warning and "exact_match (0–1): docker" in warning


def test_one_scorer_on_two_scales_is_two_totals():
    ten = entry("a", stats("quality", "x", 7.0, 5, scale=(0, 10)))
    five = entry("b", stats("quality", "x", 4.0, 5, scale=(1, 5)))
    document = grand_summary([ten, five], sample=None)
    assert document["grand_summary"] is None
    assert [g["scale"] for g in document["grand_summary_by_scorer"]] == [[0, 10], [1, 5]]


def test_a_total_names_the_experiments_it_covers_when_a_condition_is_missing():
    only_training = entry("docs", stats("judge_score", "training", 5.0, 10, scale=(0, 10)))
    document = grand_summary([judged("go", 8.0, 9.0, 10), only_training], sample=None)
    pack = document["grand_summary"]["pack"]
    assert pack["experiments"] == ["go"] and pack["n"] == 10
    assert document["grand_summary"]["training"]["n"] == 20
    assert document["warnings"] == [
        "judge_score (0–10): the 'pack' total covers 1 of 2 experiments (go)"]


def test_accuracy_counts_its_own_cases_when_some_have_no_verdict():
    verdicts = entry("a", stats("numeric", "x", 0.4, 10, pass_rate=0.5, judged_cases=10))
    no_verdicts = entry("b", stats("numeric", "x", 0.8, 30))
    figures = grand_summary([verdicts, no_verdicts], sample=None)["grand_summary"]["x"]
    assert figures["n"] == 40 and figures["avg"] == pytest.approx((4 + 24) / 40)
    assert figures["accuracy_n"] == 10 and figures["accuracy"] == pytest.approx(50.0)


def test_the_accuracy_is_per_case_first_not_per_epoch():
    # two cases, three epochs: one case passed 3 of 3, the other 1 of 2 (an epoch errored)
    per_case = stats("contains", "x", 0.75, 2, pass_rate=(1 + 0.5) / 2, judged_cases=2,
                     errors=1)
    per_case.judged, per_case.passed = 5, 4  # 4 of 5 epochs: 80%, not the 75% of the cases
    figures = grand_summary([entry("a", per_case)], sample=None)
    assert figures["grand_summary"]["x"]["accuracy"] == pytest.approx(75.0)
    assert figures["per_pack"]["a"]["summary"]["x"]["accuracy"] == pytest.approx(75.0)


def test_an_experiment_whose_scorer_got_no_value_joins_that_scorers_total():
    failed = entry("broken", stats("judge_score", "training", None, 0, errors=10))
    document = grand_summary([judged("go", 8.0, 9.0, 10), failed], sample=None)
    assert document["grand_summary"]["training"]["errors"] == 10
    assert document["grand_summary"]["training"]["experiments"] == ["go", "broken"]
    assert document["per_pack"]["broken"]["scale"] is None
