"""`assay calibrate` measures what was planted: a judge agreeing with people 80% of the time,
and a pairwise judge naming the first answer 70% of the time, each recovered within its CI.

The judge is the fake LLM server's, reached through the real OpenAI SDK.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.analysis.judge_agreement import JudgeAgreement
from assay.analysis.pairwise_agreement import PairwiseAgreement
from assay.calibration.session import CalibrationRequest, run_calibration
from assay.store import Store
from assay.testing import FakeAnswerer, FakeJudge, FakeLLM, JudgeBiases
from tests.calibration.planted import (
    PASS_FAIL_FIELDS,
    PREFERENCE_FIELDS,
    pass_fail_labels,
    preference_labels,
    truth_of,
    write_project,
)
from tests.fake_sdks import point_sdks_at


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(str(tmp_path / "assay.db"))


def serve(monkeypatch: pytest.MonkeyPatch, biases: JudgeBiases) -> FakeLLM:
    llm = FakeLLM(judge=FakeJudge(biases), default=FakeAnswerer())
    llm.__enter__()
    point_sdks_at(llm, monkeypatch)
    return llm


def test_a_judge_planted_to_agree_80_percent_is_measured_at_80_percent(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    labels = pass_fail_labels(240, seed=1)
    config = write_project(tmp_path, labels, scorers=[{"type": "judge_score"}],
                           calibration={"labels": {"path": "labels.jsonl",
                                                   "fields": PASS_FAIL_FIELDS}})
    llm = serve(monkeypatch, JudgeBiases(labels=truth_of(labels), label_agreement=0.8, seed=4))
    try:
        result = run_calibration(CalibrationRequest(spec=config), store)
    finally:
        llm.__exit__(None, None, None)
    measures = result.measures
    assert isinstance(measures, JudgeAgreement)
    assert result.n == 240 and result.kind == "pass_fail"
    assert measures.agreement_ci.contains(0.8), measures.agreement_ci
    assert not measures.agreement_ci.contains(0.9)
    # half pass, 80% agreement: kappa = (0.8 - 0.5) / (1 - 0.5) = 0.6
    assert measures.kappa.interval is not None and measures.kappa.interval.contains(0.6)
    assert not result.passed and "below the bar of 85%" in result.shortfalls[0]
    assert result.identity.model == "openai/gpt-judge" and result.identity.prompt_hash
    [stored] = store.calibrations.list()
    assert stored.agreement == result.agreement and not stored.passed
    assert stored.prompt_hash == result.identity.prompt_hash
    assert stored.scorer == "judge_score" and stored.experiment == "calibrated"


def test_a_pairwise_judge_planted_to_prefer_the_first_answer_70_percent_is_measured_so(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    labels = preference_labels(200)
    config = write_project(tmp_path, labels, scorers=[{"type": "pairwise"}],
                           calibration={"labels": {"path": "labels.jsonl",
                                                   "fields": PREFERENCE_FIELDS},
                                        "min_agreement": None},
                           extra={"conditions": {"a": {}, "b": {}}})
    llm = serve(monkeypatch, JudgeBiases(first_position_rate=0.7, seed=5))
    try:
        result = run_calibration(CalibrationRequest(spec=config), store)
    finally:
        llm.__exit__(None, None, None)
    measures = result.measures
    assert isinstance(measures, PairwiseAgreement) and result.kind == "preference"
    positions = measures.positions
    assert positions.first_position_ci is not None
    assert positions.first_position_ci.contains(0.7), positions.first_position_ci
    assert not positions.first_position_ci.contains(0.5)
    # On merit the judge is always right; 40% of verdicts follow the position instead, so
    # each order is right 80% of the time and the pairs whose orders agree are all right.
    for order in (measures.a_first, measures.b_first):
        assert order.interval is not None and order.interval.contains(0.8)
    assert measures.consistent.rate == 1.0
    assert positions.consistency is not None and 0.45 < positions.consistency < 0.75
    assert result.passed  # no bar was set
