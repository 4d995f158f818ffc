"""Stored trials read back whole: every field as it was written, in key order, in batches."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.case import Case
from assay.output import Output, ToolCall, Usage
from assay.records import TrialRecord
from assay.score import Score
from assay.store import Store
from assay.trial import TrialResult


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="e")
    return store


def full_trial(case_id: str, condition: str = "a", epoch: int = 0) -> TrialResult:
    """A trial with every field a stored trial keeps set to something other than its default."""
    case = Case(id=case_id, input=[{"role": "user", "content": "q?"}], expected={"answer": 4},
                tags=["math", "easy-ones"], difficulty="hard")
    output = Output(text="it is 4", tool_calls=[ToolCall(name="add", arguments={"a": 2},
                                                         result="4", duration_ms=1.5)],
                    transcript=[{"role": "assistant", "content": "it is 4"}],
                    usage=Usage(input_tokens=11, output_tokens=3, cost_usd=0.002, cache_hits=1),
                    metadata={"agent": {"turns": 2}}, latency_ms=12.5)
    scores = {
        "judge": Score(value=7.0, scale=(0.0, 10.0), passed=True, reason="close",
                       details={"judge_model": "m", "metrics": {"f": 1}},
                       usage=Usage(input_tokens=20, output_tokens=5, cost_usd=0.01)),
        "broken": Score.failure("judge call failed: HTTP 500"),
        "exact": Score.binary(False, "expected 4", normalized_output="it is 4"),
    }
    return TrialResult(case, condition, epoch, output, scores)


def test_a_stored_trial_reads_back_with_every_field_it_was_written_with(store: Store) -> None:
    written = full_trial("c1")
    store.write_trials("r1", [written])
    [read] = store.iter_trials("r1")
    output = written.output
    expected = TrialRecord(
        case_id="c1", condition="a", epoch=0, input=written.case.input,
        expected=written.case.expected, tags=["math", "easy-ones"], difficulty="hard",
        output=Output(text=output.text, tool_calls=output.tool_calls,
                      transcript=output.transcript,
                      usage=Usage(input_tokens=11, output_tokens=3, cost_usd=0.002,
                                  cache_hits=1),
                      metadata=output.metadata, latency_ms=12.5),
        scores=written.scores)
    assert read == expected
    assert read.scores["exact"].scale == (0.0, 1.0) and read.scores["exact"].usage is None


def test_a_trials_scores_come_by_scorer_name_whatever_order_they_were_written_in(
        store: Store) -> None:
    store.write_trials("r1", [full_trial("c1")])
    [read] = store.iter_trials("r1")
    assert list(read.scores) == ["broken", "exact", "judge"]


def test_trials_come_in_key_order_across_batches_each_with_its_own_scores(store: Store) -> None:
    written = [full_trial(f"c{i}", condition, epoch)
               for i in (3, 1, 2) for condition in ("b", "a") for epoch in (1, 0)]
    written[4].scores = {}  # a trial without scores sits among trials with them
    store.write_trials("r1", written)
    store.create_run(id="r2", experiment="e")  # another run's trials are not read
    store.write_trials("r2", [full_trial("c0")])
    read = list(store.iter_trials("r1", batch_size=5))
    assert [t.key for t in read] == sorted(t.key for t in written)
    by_key = {t.key: t.scores for t in written}
    assert all(t.scores == by_key[t.key] for t in read)


def test_score_rows_come_in_key_order_whatever_order_the_trials_finished_in(
        store: Store) -> None:
    """Regression: without an order, two runs of one config listed the previous-run diff's
    cases (`ties`, `wins`) in the order their trials happened to finish."""
    written = [full_trial(f"c{i}", condition) for i in (3, 1, 2) for condition in ("b", "a")]
    for trial in written:  # one commit per trial, as trials finishing one by one are
        store.write_trials("r1", [trial])
    keys = [(row.case_id, row.condition, row.scorer) for row in store.iter_score_rows("r1")]
    assert keys == sorted((t.case.id, t.condition, name) for t in written for name in t.scores)


def test_a_usable_trial_is_answered_with_a_verdict_and_an_errored_one_failed_anywhere(
        store: Store) -> None:
    def stored(case_id: str, *, error: str | None = None, **scores: Score) -> TrialResult:
        return TrialResult(Case(id=case_id, input="q"), "a", 0, Output(text="x", error=error),
                           dict(scores))

    failed = Score.failure("judge call failed: HTTP 500")
    store.write_trials("r1", [
        stored("answered-and-scored", check=Score.binary(True, "ok")),
        stored("answered-one-scorer-failed", check=Score.binary(False, "no"), judge=failed),
        stored("answered-no-scorer"),
        stored("answered-every-scorer-failed", judge=failed),
        stored("target-failed", error="boom"),
    ])
    assert store.count_usable_trials("r1") == 3
    assert store.count_errored_trials("r1") == 3  # a scorer's error counts, as a run counts it
    store.create_run(id="r2", experiment="e")  # another run's trials are not counted
    store.write_trials("r2", [stored("answered-and-scored", check=Score.binary(True, "ok"))])
    assert (store.count_usable_trials("r1"), store.count_usable_trials("r2")) == (3, 1)
    assert store.count_errored_trials("r2") == 0


def test_the_first_error_named_is_the_first_by_case_condition_and_epoch(store: Store) -> None:
    def stored(case_id: str, condition: str, **scores: Score) -> TrialResult:
        return TrialResult(Case(id=case_id, input="q"), condition, 0, Output(text="x"),
                           dict(scores))

    store.write_trials("r1", [
        stored("c2", "a", judge=Score.failure("second"), check=Score.failure("check fails")),
        stored("c1", "b", judge=Score.failure("first of b"), check=Score.failure("b too")),
        stored("c1", "a", judge=Score.failure("first"), check=Score.failure("check first")),
    ])
    assert store.scorers_without_value("r1") == [("check", 3, "check first"),
                                                 ("judge", 3, "first")]
    assert store.conditions_without_verdict("r1") == [("a", 2, "check: check first"),
                                                      ("b", 1, "check: b too")]


def test_a_scorer_that_errored_on_every_answer_of_one_condition_is_named_with_it(
        store: Store) -> None:
    """A judge that failed on every answer of one condition only (its long answers, say)
    has a value in the run, so the run-wide check passed it: the condition is named."""
    def stored(case_id: str, condition: str, **scores: Score) -> TrialResult:
        return TrialResult(Case(id=case_id, input="q"), condition, 0, Output(text="x"),
                           dict(scores))

    store.write_trials("r1", [
        stored("c1", "short", judge=Score.binary(True, "ok"), check=Score.binary(True, "ok")),
        stored("c2", "long", judge=Score.failure("too long"), check=Score.binary(False, "no")),
        stored("c1", "long", judge=Score.failure("too long first"),
               check=Score.binary(True, "ok")),
    ])
    assert store.scorers_without_value("r1") == []
    assert store.scorer_conditions_without_value("r1") == [("judge", "long", 2,
                                                            "too long first")]
