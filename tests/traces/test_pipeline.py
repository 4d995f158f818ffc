"""The whole analysis streams: the same figures as over exchanges held in memory."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.errors import UserError
from assay.traces.metrics import compute_metrics
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze, analyze_judged, check_outputs, guidelines_path
from assay.traces.selection import SessionFilter
from assay.traces.sessions import discover, load_session


def test_streamed_metrics_equal_metrics_over_every_exchange_in_memory(sessions_dir: Path) -> None:
    loaded = [load_session(path) for path in discover([sessions_dir])]
    held = [exchange for _, exchanges in loaded for exchange in exchanges]
    analysis = analyze([sessions_dir], TraceOptions())
    assert analysis.metrics == compute_metrics(held, sessions=len(loaded))
    assert analysis.metrics.exchanges == 95
    assert [(s.meta.path, s.questions) for s in analysis.sessions] == [
        (session.meta.path, len(exchanges)) for session, exchanges in loaded]


def _chat_session(topic: str, questions: int) -> list[dict]:
    rows: list[dict] = []
    for n in range(questions):
        rows += [{"role": "user", "content": f"{topic} {n}"},
                 {"role": "assistant", "content": f"answer about {topic}"}]
    rows.append({"role": "user", "content": f"{topic} left unanswered"})
    return rows


def test_the_judge_sees_each_answered_question_once_in_log_order(
        write_jsonl: Callable[..., Path], echo_judge: Callable[..., Any]) -> None:
    write_jsonl("logs/a.jsonl", _chat_session("leases", 3))
    folder = write_jsonl("logs/b.jsonl", _chat_session("fuel", 2)).parent
    judge = echo_judge(delay=0.02)
    analysis = asyncio.run(analyze_judged([folder], TraceOptions(), judge, "judge-1",
                                          concurrency=2))
    expected = ["leases 0", "leases 1", "leases 2", "fuel 0", "fuel 1"]
    assert sorted(judge.questions) == sorted(expected)
    assert analysis.judgements is not None
    assert (analysis.judgements.asked, analysis.metrics.answered) == (5, 5)
    assert [f.detail for f in analysis.findings] == [f"gap: {q}" for q in expected]
    assert analysis.judgements.usage.calls == 5
    assert judge.max_in_flight == 2


def test_only_the_chosen_sessions_are_judged(
        write_jsonl: Callable[..., Path], echo_judge: Callable[..., Any]) -> None:
    for day in (1, 2):
        rows = [{"type": "session", "version": 3, "id": f"s{day}",
                 "timestamp": f"2026-02-0{day}T08:00:00Z", "cwd": "/kb"},
                {"type": "message", "id": "u", "parentId": None, "timestamp":
                 f"2026-02-0{day}T08:00:01Z", "message": {"role": "user", "content": f"day {day}"}},
                {"type": "message", "id": "a", "parentId": "u", "timestamp":
                 f"2026-02-0{day}T08:00:02Z", "message": {"role": "assistant", "content": [
                     {"type": "text", "text": "yes"}]}}]
        folder = write_jsonl(f"logs/day{day}.jsonl", rows).parent
    judge = echo_judge()
    options = TraceOptions(filter=SessionFilter(last=1))
    analysis = asyncio.run(analyze_judged([folder], options, judge, "judge-1"))
    assert judge.questions == ["day 2"]
    assert [Path(s.meta.path).name for s in analysis.sessions] == ["day2.jsonl"]


def test_without_a_store_the_judge_asks_for_no_cache(
        write_jsonl: Callable[..., Path], echo_judge: Callable[..., Any]) -> None:
    """With no store the response cache would be a dict growing with every question."""
    path = write_jsonl("a.jsonl", _chat_session("leases", 2))
    judge = echo_judge()
    asyncio.run(analyze_judged([path], TraceOptions(), judge, "judge-1", use_cache=False))
    assert judge.cache_asked == [False, False]
    asyncio.run(analyze_judged([path], TraceOptions(), judge, "judge-1"))
    assert judge.cache_asked[2:] == [True, True]


def test_the_guidelines_file_is_the_one_named_else_the_one_in_the_output_folder(
        tmp_path: Path) -> None:
    named = tmp_path / "AGENTS.md"
    assert guidelines_path(tmp_path / "out", named) == named
    assert guidelines_path(tmp_path / "out") == tmp_path / "out" / "guidelines.md"


def test_unreadable_guidelines_are_refused_naming_the_option_that_chose_them(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "guidelines.md").write_bytes(b"\xff")
    with pytest.raises(UserError, match=r"^--output .*guidelines.md: not UTF-8"):
        check_outputs(out)
    named = tmp_path / "AGENTS.md"
    named.write_bytes(b"\xff")
    with pytest.raises(UserError, match=r"^--guidelines .*AGENTS.md: not UTF-8"):
        check_outputs(tmp_path / "elsewhere", named)
    (out / "guidelines.md").write_text("# ours\n", encoding="utf-8")
    check_outputs(out)  # readable: nothing to say
