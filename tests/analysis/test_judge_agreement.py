"""A judge against people: agreement, kappa, confusion, leniency, per-label scores, several raters."""

from __future__ import annotations

import random

import pytest
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

from assay.analysis.judge_agreement import RatedItem, judge_agreement, rated_items


def pass_fail_items(n: int, agreement: float, seed: int = 0) -> list[RatedItem]:
    draw = random.Random(seed)
    items = []
    for i in range(n):
        human = draw.random() < 0.6
        judge = human if draw.random() < agreement else not human
        items.append(RatedItem(f"c{i}", (human,), judge))
    return items


def test_pass_fail_agreement_kappa_and_per_label_scores_match_scikit_learn() -> None:
    items = pass_fail_items(300, 0.8)
    result = judge_agreement(items, "pass_fail")
    human = [item.human[0] for item in items]
    judge = [item.judge for item in items]
    assert result.n == 300
    assert result.agreement == pytest.approx(sum(h == j for h, j in zip(human, judge)) / 300)
    assert result.agreement_ci.contains(result.agreement)
    assert result.kappa.value == pytest.approx(cohen_kappa_score(human, judge))
    passing = next(label for label in result.labels if label.label == "pass")
    assert passing.precision == pytest.approx(precision_score(human, judge))
    assert passing.recall == pytest.approx(recall_score(human, judge))
    assert result.confusion.categories == ("fail", "pass")
    assert sum(map(sum, result.confusion.counts)) == 300


def test_leniency_is_the_judge_pass_rate_minus_the_human_one_with_its_interval() -> None:
    # people pass 10 of 20; the judge passes those 10 and 6 more
    items = [RatedItem(f"c{i}", (i < 10,), i < 16) for i in range(20)]
    result = judge_agreement(items, "pass_fail")
    assert result.human_pass_rate == 0.5 and result.judge_pass_rate == 0.8
    assert result.leniency is not None
    assert result.leniency.estimate == pytest.approx(30.0)  # points
    assert result.leniency.interval.contains(30.0)
    assert result.leniency.significant  # 6 against 0 discordant items: McNemar p=0.014
    assert result.disagreements == tuple(f"c{i}" for i in range(10, 16))


def test_scores_get_the_quadratic_weighted_kappa_and_a_mean_leniency() -> None:
    draw = random.Random(3)
    items = []
    for i in range(150):
        human = draw.randint(1, 5)
        judge = min(5, human + (1 if draw.random() < 0.3 else 0))  # a lenient judge
        items.append(RatedItem(f"c{i}", (human,), judge))
    result = judge_agreement(items, "score", categories=[1, 2, 3, 4, 5])
    human = [item.human[0] for item in items]
    judge = [item.judge for item in items]
    assert result.kappa.weighting == "quadratic"
    assert result.kappa.value == pytest.approx(
        cohen_kappa_score(human, judge, weights="quadratic"))
    assert result.unweighted_kappa is not None
    assert result.unweighted_kappa.value == pytest.approx(cohen_kappa_score(human, judge))
    assert result.within_one == 1.0
    assert result.leniency is not None and result.leniency.metric == "mean"
    assert result.leniency.estimate > 0 and result.leniency.significant


def test_a_judge_that_scores_like_one_more_rater_is_not_called_lenient() -> None:
    """Two people give 3 and 4; the judge gives 4 to half the items and 3 to the others.
    Held against the consensus (the lower median, 3) it read +0.50, 'more lenient than
    people, significant'; against the people's mean (3.5) it is 0."""
    items = [RatedItem(f"c{i}", (3, 4), 4 if i % 2 else 3) for i in range(30)]
    result = judge_agreement(items, "score", categories=[1, 2, 3, 4, 5])
    assert result.leniency is not None
    assert result.leniency.estimate == pytest.approx(0.0)
    assert not result.leniency.significant


def test_several_raters_give_a_consensus_and_krippendorff_alphas() -> None:
    items = [
        RatedItem("a", ("pass", "pass", "fail"), "pass"),
        RatedItem("b", ("fail", "fail", "fail"), "fail"),
        RatedItem("c", ("pass", "fail"), "pass"),       # an even split: no consensus
        RatedItem("d", ("pass", "pass", "pass"), "fail"),
        RatedItem("e", ("fail", "pass", "fail"), "fail"),
    ]
    result = judge_agreement(items, "label", passing=["pass"])
    assert result.raters == 3
    assert result.split == ("c",)
    assert result.n == 4 and result.agreement == 0.75
    assert result.human_alpha is not None and result.alpha_with_judge is not None
    assert result.human_alpha.raters == 3 and result.alpha_with_judge.raters == 4
    assert result.leniency is not None


def test_items_are_joined_by_id_and_the_unmatched_ones_are_named() -> None:
    items, only_human, only_judge = rated_items({"a": ["pass"], "b": ["fail"]},
                                                {"b": "pass", "z": "fail"})
    assert [item.id for item in items] == ["b"]
    assert only_human == ["a"] and only_judge == ["z"]
