"""A judge's agreement with itself across repeated asks of one answer."""

from __future__ import annotations

import math

import pytest

from assay.analysis.judge_consistency import Repeats, judge_consistency


def test_flip_rate_pair_disagreement_and_pooled_sd() -> None:
    answers = [
        Repeats("a", (8.0, 8.0, 8.0), (True, True, True)),
        Repeats("b", (6.0, 7.0, 8.0), (False, True, True)),   # unstable
        Repeats("c", (2.0, 2.0, 3.0), (False, False, False)),
        Repeats("d", (7.0, None, 5.0), (True, None, False)),  # one ask failed; unstable
    ]
    result = judge_consistency("judge_score", answers)
    assert result.items == 4 and result.repeats == 3
    assert result.flips == 2 and result.unstable == ("b", "d")
    assert result.flip_rate == 0.5
    assert result.pair_disagreement == pytest.approx((0 + 2 + 0 + 1) / (3 + 3 + 3 + 1))
    squares = 0 + 2 + (2 / 3) + 2  # squared deviations from each answer's mean
    assert result.score_sd == pytest.approx(math.sqrt(squares / (2 + 2 + 2 + 1)))
    assert result.score_alpha is not None and 0 < result.score_alpha.value < 1


def test_a_judge_that_never_changes_its_mind_has_alpha_one() -> None:
    answers = [Repeats(str(i), (float(i % 5),) * 3, (i % 5 >= 3,) * 3) for i in range(20)]
    result = judge_consistency("s", answers)
    assert result.flips == 0 and result.score_sd == 0.0
    assert result.score_alpha is not None and result.score_alpha.value == pytest.approx(1.0)
    assert result.verdict_alpha is not None and result.verdict_alpha.value == pytest.approx(1.0)
