"""`vs_recorded`: each new answer judged against the one recorded in the session.

The registered scorer asks over the wire (both SDKs) and the fake judge
answers; a new answer that says what the recorded one said passes, one that
misses it is worse and fails, and every verdict carries the recorded answer
for the report.
"""

from __future__ import annotations

import asyncio

import pytest

from assay.case import Case
from assay.replay import VERSUS
from assay.score import Score
from assay.testing import FakeJudge, FakeLLM
from tests.testing.conftest import PROTOCOLS, judge

RECORDED = ("To pair the lamp, open the Lumen app, tap Add device and hold the touch button "
            "for five seconds until the ring light blinks white.")
CASE = Case(id="pairing:2", input="How do I pair the lamp with the Lumen app?",
            expected=RECORDED, reference=RECORDED)


def compared(case: Case, answers: list[str], model: str) -> list[Score]:
    async def scenario() -> list[Score]:
        async with FakeLLM(judge=FakeJudge()) as llm:
            return [await judge(llm, case, answer, "vs_recorded", model) for answer in answers]

    return asyncio.run(scenario())


@pytest.mark.parametrize("model", PROTOCOLS)
def test_an_answer_as_good_as_the_recorded_one_passes_and_a_worse_one_fails(model: str) -> None:
    reworded = ("Open the Lumen app and tap Add device, then hold the lamp's touch button for "
                "five seconds until the ring light blinks white: the lamp is paired.")
    partial = "Open the Lumen app."
    same, less, none = compared(CASE, [reworded, partial, "I don't know."], model)
    assert [s.error for s in (same, less, none)] == [None, None, None]
    assert same.details["label"] == "same" and same.passed is True
    assert less.details["label"] == "worse" and less.passed is False
    assert none.details["label"] == "worse" and none.passed is False
    assert "lacks" in less.reason and "device" in less.reason  # names what it lost


def test_every_verdict_says_it_compares_with_the_recorded_answer_and_keeps_it() -> None:
    [score] = compared(CASE, ["I don't know."], PROTOCOLS[0])
    assert score.details["versus"] == VERSUS
    assert score.details["recorded"] == RECORDED


def test_a_case_without_a_recorded_answer_is_a_scorer_error_not_a_worse_answer() -> None:
    bare = Case(id="q1", input="How do I pair the lamp?", expected=RECORDED)
    [score] = compared(bare, ["Open the app."], PROTOCOLS[1])
    assert score.passed is None and score.value is None
    assert score.error is not None
    assert "case q1 has no recorded answer to compare with: its `reference` is empty" in score.error


def test_a_case_without_a_recorded_answer_is_not_sent_to_traces_export_for_it() -> None:
    """Regression: the error said "`assay traces export` writes it", yet the export writes an
    empty `reference` for a question the session never answered (--include-unanswered)."""
    unanswered = Case(id="q1", input="How do I pair the lamp?", expected="", reference="")
    [score] = compared(unanswered, ["Open the app."], PROTOCOLS[1])
    assert score.error is not None and "traces export" not in score.error
    assert "never answered" in score.error and "write the answer" in score.error
