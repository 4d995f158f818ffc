"""Judging while reading: a few calls at a time, verdicts in log order, a bounded queue."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from assay.errors import RunFailed
from assay.traces.exchanges import Exchange
from assay.traces.findings import Finding, Judgement
from assay.traces.judging import (
    FAILURES_IN_A_ROW,
    WINDOW_PER_CALL,
    Judgements,
    StreamingJudge,
    judge_all,
)


def _exchanges(make_exchange: Callable[..., Exchange], count: int) -> list[Exchange]:
    return [make_exchange(question=f"q{n}", answer=f"a{n}", line=n) for n in range(count)]


def test_verdicts_keep_log_order_when_calls_finish_out_of_order(
        make_exchange: Callable[..., Exchange], echo_judge: Callable[..., Any]) -> None:
    judge = echo_judge(delay=0.05)
    exchanges = _exchanges(make_exchange, 12)
    judgements = asyncio.run(judge_all(judge, "m", exchanges, concurrency=3))
    assert judge.finished != judge.questions, "calls should finish out of order"
    assert [j.exchange_id for j in judgements] == [e.id for e in exchanges]
    assert [j.findings[0].detail for j in judgements] == [f"gap: q{n}" for n in range(12)]
    assert judge.max_in_flight == 3


def test_reading_runs_ahead_of_the_judge_by_a_bounded_window(
        make_exchange: Callable[..., Exchange], echo_judge: Callable[..., Any]) -> None:
    judge = echo_judge(delay=0.02)
    folded: list[Judgement] = []
    ahead: list[int] = []

    async def go() -> None:
        async with StreamingJudge(judge, "m", folded.append, concurrency=2) as judging:
            for produced, exchange in enumerate(_exchanges(make_exchange, 40), 1):
                await judging.submit(exchange)
                ahead.append(produced - len(folded))

    asyncio.run(go())
    assert len(folded) == 40
    assert max(ahead) == 2 * WINDOW_PER_CALL, "the queue fills to its window and no further"


def test_leaving_early_cancels_the_calls_in_flight(
        make_exchange: Callable[..., Exchange], echo_judge: Callable[..., Any]) -> None:
    judge = echo_judge(delay=10.0)
    folded: list[Judgement] = []

    async def go() -> None:
        async with StreamingJudge(judge, "m", folded.append, concurrency=2) as judging:
            for exchange in _exchanges(make_exchange, 3):
                await judging.submit(exchange)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(go())
    assert judge.cancelled == 2 and folded == []


def test_verdicts_count_findings_and_errors_apart() -> None:
    verdicts = Judgements("judge-1")
    verdicts.add(Judgement("s:1", [Finding("citation", "error", "wrong clause", "quote it")]))
    verdicts.add(Judgement("s:5", []))
    verdicts.add(Judgement("s:9", error="judge call failed: timeout"))
    assert (verdicts.asked, verdicts.judged) == (3, 2)
    assert [f.detail for f in verdicts.findings] == ["wrong clause"]
    assert [j.exchange_id for j in verdicts.errors] == ["s:9"]


def test_a_judge_that_fails_on_question_after_question_stops_the_analysis() -> None:
    """Regression: with the judge's server down, every question was still sent, each with
    its retries: 72 questions took about a minute before 'the judge failed on every
    question', and a few thousand would have taken hours."""
    verdicts = Judgements("judge-1")
    for n in range(FAILURES_IN_A_ROW - 1):
        verdicts.add(Judgement(f"s:{n}", error="judge call failed: refused"))
    verdicts.add(Judgement("s:ok", []))  # a judgement in between starts the count again
    for n in range(FAILURES_IN_A_ROW - 1):
        verdicts.add(Judgement(f"t:{n}", error="judge call failed: refused"))
    with pytest.raises(RunFailed, match=f"the judge failed on {FAILURES_IN_A_ROW} questions "
                       "in a row, so the analysis stopped.*latest error: judge call failed: "
                       "refused"):
        verdicts.add(Judgement("t:last", error="judge call failed: refused"))
