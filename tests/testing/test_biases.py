"""Planted judge biases come out at the planted rates, seeded and reproducible.

Each rate is checked against a 99.9% binomial (or chi-square) interval over
a few hundred requests, so a broken plant fails and a sound one practically
never does.
"""

from __future__ import annotations

import random
import statistics

import pytest
from scipy import stats

from assay.scorers.judges.formats import LabelFormat, NumberFormat
from assay.testing import FakeJudge, JudgeBiases

N = 400
SCORE_SCHEMA = NumberFormat(0, 10, 7).response_schema()
LABELS = ["correct", "partially_correct", "incorrect"]
LABEL_SCHEMA = LabelFormat(LABELS, ["correct"]).response_schema()
PAIR_SCHEMA = {"type": "object", "required": ["reason", "winner"],
               "properties": {"reason": {"type": "string"},
                              "winner": {"type": "string", "enum": ["A", "B", "tie"]}}}
REFERENCE = "Jupiter is the largest planet of the Solar System, a gas giant."
GOOD = "Jupiter, a gas giant, is the largest planet of the Solar System."
POOR = "It is a planet."


def graded(question: str, answer: str) -> str:
    return f"Question:\n{question}\n\nReference answer:\n{REFERENCE}\n\nAnswer to grade:\n{answer}"


def pairwise(question: str, first: str, second: str) -> str:
    return (f"Question:\n{question}\n\nReference answer:\n{REFERENCE}\n\n"
            f"Answer A:\n{first}\n\nAnswer B:\n{second}")


def within(count: int, n: int, p: float) -> bool:
    low, high = stats.binom.interval(0.999, n, p)
    return low <= count <= high


def test_a_judge_agrees_with_pass_fail_labels_at_the_planted_rate() -> None:
    truth = {f"Question {i}?": ("pass" if i % 2 else "fail") for i in range(N)}
    judge = FakeJudge(JudgeBiases(labels=truth, label_agreement=0.8, seed=1))
    agreed = 0
    for question, label in truth.items():
        verdict = judge.verdict(graded(question, GOOD), SCORE_SCHEMA)
        agreed += (verdict["score"] >= 7) == (label == "pass")
    assert within(agreed, N, 0.8), agreed


def test_a_label_judge_departs_from_the_true_label_evenly_over_the_others() -> None:
    truth = {f"Question {i}?": LABELS[i % 3] for i in range(3 * N)}
    judge = FakeJudge(JudgeBiases(labels=truth, label_agreement=0.7, seed=2))
    given = {question: judge.verdict(graded(question, GOOD), LABEL_SCHEMA)["label"]
             for question in truth}
    agreed = sum(given[question] == label for question, label in truth.items())
    assert within(agreed, 3 * N, 0.7), agreed
    misses = [given[q] for q, label in truth.items() if label == "correct" and given[q] != label]
    assert within(misses.count("incorrect"), len(misses), 0.5)


def test_numeric_labels_are_given_as_the_score_or_another_score_of_the_scale() -> None:
    truth = {f"Question {i}?": i % 11 for i in range(N)}
    judge = FakeJudge(JudgeBiases(labels=truth, label_agreement=0.6, seed=3))
    scores = {q: judge.verdict(graded(q, GOOD), SCORE_SCHEMA)["score"] for q in truth}
    assert within(sum(scores[q] == truth[q] for q in truth), N, 0.6)
    assert set(scores.values()) <= set(range(11))


def test_the_first_position_is_preferred_at_the_planted_rate_over_both_orders() -> None:
    judge = FakeJudge(JudgeBiases(first_position_rate=0.7, seed=4))
    firsts = 0
    for i in range(N):
        question = f"Which planet is the largest? (variant {i})"
        for first, second in ((GOOD, POOR), (POOR, GOOD)):
            firsts += judge.verdict(pairwise(question, first, second), PAIR_SCHEMA)["winner"] == "A"
    assert within(firsts, 2 * N, 0.7), firsts


def test_an_unbiased_pairwise_judge_prefers_the_better_answer_in_either_order() -> None:
    judge = FakeJudge()
    question = "Which planet is the largest?"
    assert judge.verdict(pairwise(question, GOOD, POOR), PAIR_SCHEMA)["winner"] == "A"
    assert judge.verdict(pairwise(question, POOR, GOOD), PAIR_SCHEMA)["winner"] == "B"
    assert judge.verdict(pairwise(question, GOOD, GOOD), PAIR_SCHEMA)["winner"] == "tie"


def test_score_noise_has_the_planted_spread_around_the_plausible_score() -> None:
    judge = FakeJudge(JudgeBiases(score_noise=1.5, seed=5))
    plain = FakeJudge().verdict(graded("Q?", "Jupiter is a planet."), SCORE_SCHEMA)["score"]
    assert 3 <= plain <= 7  # far enough from the ends that clipping is rare
    scores = [judge.verdict(graded(f"Q{i}?", "Jupiter is a planet."), SCORE_SCHEMA)["score"]
              for i in range(N)]
    assert all(isinstance(score, int) and 0 <= score <= 10 for score in scores)
    assert abs(statistics.fmean(scores) - plain) < 4 * 1.5 / N ** 0.5
    expected = 1.5 ** 2 + 1 / 12  # the noise, plus what rounding to whole scores adds
    low, high = (stats.chi2.ppf(q, N - 1) / (N - 1) for q in (0.0005, 0.9995))
    assert low <= statistics.variance(scores) / expected <= high


def test_a_labelled_verdict_carries_no_noise() -> None:
    judge = FakeJudge(JudgeBiases(labels={"Q?": "pass"}, score_noise=3.0))
    assert {judge.verdict(graded("Q?", POOR), SCORE_SCHEMA)["score"] for _ in range(20)} == {10}


def test_verdicts_depend_on_the_seed_and_the_request_not_on_the_order_of_arrival() -> None:
    questions = [f"Q{i}?" for i in range(50)]

    def run(seed: int, order: list[str]) -> dict[str, int]:
        judge = FakeJudge(JudgeBiases(score_noise=2.0, seed=seed))
        return {q: judge.verdict(graded(q, GOOD), SCORE_SCHEMA)["score"] for q in order}

    shuffled = questions[:]
    random.Random(0).shuffle(shuffled)
    assert run(7, questions) == run(7, shuffled)
    assert run(7, questions) != run(8, questions)


def test_asking_the_same_question_again_is_a_fresh_draw() -> None:
    judge = FakeJudge(JudgeBiases(score_noise=2.0))
    repeats = [judge.verdict(graded("Q?", GOOD), SCORE_SCHEMA)["score"] for _ in range(20)]
    assert len(set(repeats)) > 1


@pytest.mark.parametrize("setting", [{"first_position_rate": 1.5}, {"label_agreement": -0.1},
                                     {"score_noise": -1.0}])
def test_impossible_settings_are_refused(setting: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        JudgeBiases(**setting)
