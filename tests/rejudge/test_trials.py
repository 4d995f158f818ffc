"""A rejudge whose judges keep failing stops like a run does (exit 3, aborted), counting only
the answers it judged, and a rejudge spends nothing on the target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.case import Case
from assay.output import Output
from assay.rejudge.trials import JudgeBudget, JudgeTally
from assay.score import Score
from assay.testing import FakeLLM
from assay.trial import TrialResult
from tests.cli.evalproject import assay
from tests.rejudge.rejudge_project import CASES, judged, runs, write_config

__all__ = ["judged"]


def trial(case: str, *, answer_error: str | None = None,
          judge_error: str | None = None) -> TrialResult:
    scores = {} if answer_error else {"judge_score": Score.failure(judge_error) if judge_error
                                      else Score(value=1.0, passed=True)}
    return TrialResult(case=Case(id=case, input="q"), condition="default", epoch=1,
                       output=Output(text="a", error=answer_error), scores=scores)


def test_a_trial_without_an_answer_is_no_judge_failure_and_does_not_break_a_streak() -> None:
    tally, budget = JudgeTally(), JudgeBudget(max_consecutive_errors=3)
    for result in (trial("a", judge_error="HTTP 400"), trial("b", answer_error="broke"),
                   trial("c", judge_error="HTTP 400")):
        tally.count(result, budget)
    assert (tally.judged, tally.unjudged, tally.stats.consecutive_errors) == (2, 2, 2)
    assert tally.stats.stopped_reason is None
    assert tally.nothing_judged() is not None and "(2 of 2)" in str(tally.nothing_judged())
    tally.count(trial("d", judge_error="HTTP 400"), budget)
    assert "the judges failed on the last 3 answers" in str(tally.stats.stopped_reason)


def test_one_verdict_means_something_was_judged_and_resets_the_streak() -> None:
    tally, budget = JudgeTally(), JudgeBudget(max_errors=3)
    for result in (trial("a", judge_error="x"), trial("b"), trial("c", judge_error="x")):
        tally.count(result, budget)
    assert tally.nothing_judged() is None and tally.stats.consecutive_errors == 1
    tally.count(trial("d", judge_error="x"), budget)
    assert "error budget reached: the judges failed on 3 answers" in str(
        tally.stats.stopped_reason)


def test_a_judge_refusing_every_request_aborts_the_rejudge_with_exit_3(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: it exited 0, `completed`, with "No scores: every trial ended in an error"
    beside "1 of 10 trials ended in an error"."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.fault_rates["bad_request"] = 1.0
    code, out = assay(capsys, "rejudge", "--no-progress", "-k", "1")
    assert code == 3, out
    rejudged = runs(tmp_path)[0]
    assert rejudged.kind == "rejudge" and rejudged.status == "aborted"
    answered = CASES - 1  # the broken case had no answer to judge
    assert f"error: the judges failed on every answer ({answered} of {answered})" in out
    assert "HTTP 400" in out and f"resume with: assay rejudge --resume {rejudged.id}" in out
    assert "No scores" not in out and "completed" not in out


def test_an_unreachable_judge_aborts_the_rejudge_with_exit_3(
        judged: tuple[Path, FakeLLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, providers={"openai": {"max_retries": 0}})
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    code, out = assay(capsys, "rejudge", "--no-progress", "-k", "1")
    assert code == 3 and "connection refused" in out, out
    assert runs(tmp_path)[0].status == "aborted"


def test_a_rejudge_reports_what_its_judges_spent_and_no_target_cost(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the rejudge showed the original run's target cost as its own."""
    config, _ = judged
    code, out = assay(capsys, "run", str(config), "--no-progress")
    assert code == 0 and "target $0.0900" in out  # nine answers at $0.01
    code, out = assay(capsys, "rejudge", "--no-progress", "-k", "1", "-o", "again")
    assert code == 0, out
    assert "target $" not in out and "total cost" in out
    results = json.loads((tmp_path / "again" / "results.json").read_text())
    [condition] = results["stats"]["conditions"]
    assert condition["cost_usd"] is None and condition["input_tokens"] is None
    assert condition["judge_input_tokens"] > 0
