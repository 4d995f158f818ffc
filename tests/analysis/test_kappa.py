"""Cohen's kappa, plain and weighted, against a worked example, scikit-learn and statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from assay.analysis.kappa import cohen_kappa, kappa_of_table


def test_the_textbook_two_by_two_example_gives_kappa_of_0_4() -> None:
    # Two readers, 50 applications: 20 both yes, 15 both no, 5 and 10 split.
    table = np.array([[20, 5], [10, 15]], dtype=float)
    kappa = kappa_of_table(table)
    assert kappa.value == pytest.approx(0.4)
    assert kappa.observed == pytest.approx(0.7)
    assert kappa.expected == pytest.approx(0.5)


@pytest.mark.parametrize("weighting", ["none", "linear", "quadratic"])
def test_kappa_matches_scikit_learn_on_ratings_of_a_five_point_scale(weighting: str) -> None:
    rng = np.random.default_rng(7)
    human = rng.integers(1, 6, 200)
    judge = np.clip(human + rng.integers(-1, 2, 200) * (rng.random(200) < 0.4), 1, 5)
    ours = cohen_kappa(list(zip(human.tolist(), judge.tolist())), [1, 2, 3, 4, 5],
                       weighting=weighting)  # type: ignore[arg-type]
    theirs = cohen_kappa_score(human, judge, weights=None if weighting == "none" else weighting)
    assert ours.value == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("weighting, wt", [("none", None), ("linear", "linear"),
                                           ("quadratic", "quadratic")])
def test_the_interval_uses_the_standard_error_statsmodels_reports(weighting: str,
                                                                  wt: str | None) -> None:
    table = np.array([[30, 4, 1], [6, 25, 5], [2, 7, 20]], dtype=float)
    ours = kappa_of_table(table, weighting=weighting)  # type: ignore[arg-type]
    reference = cohens_kappa(table, wt=wt) if wt else cohens_kappa(table)
    assert ours.value == pytest.approx(reference.kappa)
    assert ours.interval is not None
    assert ours.interval.half_width == pytest.approx(1.959963984540054 * reference.std_kappa)
    assert ours.interval.low < ours.value < ours.interval.high


def test_a_single_category_everywhere_leaves_kappa_undefined_and_says_why() -> None:
    kappa = cohen_kappa([(True, True)] * 10, [False, True])
    assert kappa.value is None and kappa.interval is None
    assert "one and the same category" in kappa.note


def test_kappa_is_zero_for_a_judge_that_passes_everything_on_a_mostly_passing_set() -> None:
    pairs = [(True, True)] * 90 + [(False, True)] * 10
    kappa = cohen_kappa(pairs, [False, True])
    assert kappa.value == pytest.approx(0.0)
    assert kappa.observed == pytest.approx(0.9)  # raw agreement looks fine; kappa does not


@pytest.mark.parametrize("weighting", ["none", "quadratic"])
def test_perfect_agreement_on_a_few_items_gets_no_zero_width_interval(weighting: str) -> None:
    """Four items on the diagonal gave kappa 1.00 with the interval 1.00-1.00: the
    large-sample standard error is 0 there, a certainty four items cannot give."""
    kappa = cohen_kappa([(1, 1), (2, 2), (3, 3), (1, 1)], [1, 2, 3], weighting=weighting)
    assert kappa.value == pytest.approx(1.0)
    assert kappa.interval is None
    assert "no interval" in kappa.note and "4 items" in kappa.note
