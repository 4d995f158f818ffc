"""Pairwise verdicts in both orders: winners, position-inconsistent ties, leaning, win rate."""

from __future__ import annotations

import pytest
from scipy import stats

from assay.analysis.pairwise_agreement import pairwise_agreement
from assay.analysis.pairwise_verdicts import (
    OrderedVerdicts,
    adjust_pairwise,
    clopper_pearson,
    pairwise_result,
    position_stats,
)


def test_the_same_winner_in_both_orders_wins_and_a_flip_is_a_tie() -> None:
    assert OrderedVerdicts("x", "b", "b").winner == "b"
    flipped = OrderedVerdicts("y", "a", "b")  # the judge picked whatever came first
    assert flipped.winner == "tie" and not flipped.consistent
    assert OrderedVerdicts("z", "a", None).winner is None


def test_counts_win_rate_and_sign_test_of_one_pair_of_conditions() -> None:
    verdicts = ([OrderedVerdicts(f"w{i}", "b", "b") for i in range(12)]
                + [OrderedVerdicts(f"l{i}", "a", "a") for i in range(3)]
                + [OrderedVerdicts(f"t{i}", "tie", "tie") for i in range(2)]
                + [OrderedVerdicts(f"f{i}", "a", "b") for i in range(3)]
                + [OrderedVerdicts("e", "b", None)])
    result = pairwise_result(verdicts, label_a="base", label_b="new")
    assert (result.n, result.wins, result.ties, result.losses) == (20, 12, 5, 3)
    assert result.inconsistent == 3 and result.errored == 1
    assert result.win_rate == pytest.approx(12 / 15)
    assert result.win_rate_ties_half == pytest.approx((12 + 2.5) / 20)
    assert result.test.p_value == pytest.approx(stats.binomtest(12, 15, 0.5).pvalue)
    assert result.significant and result.preferred == "new"
    assert result.positions.consistency == pytest.approx(17 / 20)


def test_the_interval_leaves_out_one_half_exactly_when_the_sign_test_rejects() -> None:
    for n in (1, 2, 3, 5, 8, 13, 21, 34, 55):
        for wins in range(n + 1):
            test_rejects = stats.binomtest(wins, n, 0.5).pvalue < 0.05
            interval = clopper_pearson(wins, n, 0.05)
            assert interval is not None
            assert (not interval.contains(0.5)) == test_rejects, (wins, n)


def test_first_position_rate_counts_the_answer_shown_first_in_each_order() -> None:
    verdicts = [OrderedVerdicts("a", "a", "b"),   # first both times
                OrderedVerdicts("b", "b", "b"),   # on merit: second, then first
                OrderedVerdicts("c", "tie", "a")]  # a tie, then the second shown
    positions = position_stats(verdicts)
    assert positions.first_picks == 3 and positions.decided_verdicts == 5
    assert positions.first_position_rate == pytest.approx(0.6)
    assert positions.tie_verdicts == 1 and positions.tie_rate == pytest.approx(1 / 6)


def test_several_pairs_of_conditions_are_one_holm_family() -> None:
    strong = pairwise_result([OrderedVerdicts(f"w{i}", "b", "b") for i in range(15)],
                             label_b="x")
    weak = pairwise_result([OrderedVerdicts(f"w{i}", "b", "b") for i in range(6)]
                           + [OrderedVerdicts("l", "a", "a")], label_b="y")
    adjusted = adjust_pairwise([strong, weak])
    assert [r.family_size for r in adjusted] == [2, 2]
    for result in adjusted:
        assert result.significant == (result.p_adjusted < 0.05)


def test_accuracy_against_people_per_order_when_consistent_and_reconciled() -> None:
    human = {"1": "a", "2": "b", "3": "b", "4": "tie"}
    verdicts = [OrderedVerdicts("1", "a", "a"), OrderedVerdicts("2", "a", "b"),
                OrderedVerdicts("3", "b", "b"), OrderedVerdicts("4", "tie", "tie")]
    result = pairwise_agreement(human, verdicts)
    assert result.n == 4
    assert result.a_first.rate == 0.75 and result.b_first.rate == 1.0
    assert result.consistent.n == 3 and result.consistent.rate == 1.0
    assert result.reconciled.rate == 0.75  # the inconsistent item reads as a tie
    assert result.disagreements == ("2",)
