"""The Knowledge Packs block of results.json: avg, accuracy, n and the score arrays agree."""

from __future__ import annotations

import math

from assay.analysis.summary import summarize
from assay.knowledge_packs.summary import knowledge_packs_summary
from assay.records import ScoreRow, TrialRow


def judged(values: dict[str, list[float | None]]) -> tuple[list[ScoreRow], list[TrialRow]]:
    """0-10 judge scores per case and epoch (None: the judge failed), passing at 7."""
    scores = [ScoreRow(case_id=case, condition="pack", epoch=epoch, scorer="judge",
                       value=value, passed=None if value is None else value >= 7,
                       error="unparsed" if value is None else None, scale=(0.0, 10.0))
              for case, epochs in values.items() for epoch, value in enumerate(epochs)]
    return scores, [TrialRow(case_id=r.case_id, condition=r.condition, epoch=r.epoch)
                    for r in scores]


def test_with_epochs_the_scores_are_one_per_case_and_sum_to_avg_times_n() -> None:
    """Regression: with two epochs the array held every trial's score beside an n of
    cases, so the seed's avg = sum(scores) / n read twice the avg printed."""
    scores, trials = judged({"q1": [9, 7], "q2": [4, None], "q3": [10, 6]})
    block = knowledge_packs_summary(summarize(scores, trials, per_case=True))["judge"]
    pack = block["conditions"]["pack"]
    assert block["scores"]["pack"] == [8.0, 4.0, 8.0]
    assert pack["n"] == 3 and math.isclose(sum(block["scores"]["pack"]) / pack["n"], pack["avg"])
    assert math.isclose(pack["accuracy"], (1 + 0 + 0.5) / 3 * 100)  # each case's share


def test_with_one_epoch_the_scores_are_the_trials_in_order() -> None:
    scores, trials = judged({"q1": [9], "q2": [4], "q3": [None]})
    block = knowledge_packs_summary(summarize(scores, trials))["judge"]
    assert block["scores"]["pack"] == [9.0, 4.0]
    assert block["conditions"]["pack"]["n"] == 2 and block["conditions"]["pack"]["errors"] == 1
