"""A session met in two files counts once; a file holding several sessions has a row for each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report


def _pi(session: str, questions: range) -> list[dict]:
    """A pi session whose questions are numbered as `questions` (each read a file and cost)."""
    rows: list[dict] = [{"type": "session", "version": 3, "id": session,
                         "timestamp": "2026-02-01T08:00:00Z", "cwd": "/kb"}]
    for n in questions:
        at = f"2026-02-01T08:{n:02}:00Z"
        rows += [
            {"type": "message", "timestamp": at,
             "message": {"role": "user", "content": f"{session} question {n}"}},
            {"type": "message", "timestamp": at, "message": {
                "role": "assistant", "model": "m", "content": [
                    {"type": "toolCall", "id": f"c{n}", "name": "read",
                     "arguments": {"path": f"docs/{n}.md"}}],
                "usage": {"input": 10, "output": 5, "cost": {"total": 0.01}}}},
            {"type": "message", "timestamp": at, "message": {
                "role": "toolResult", "toolCallId": f"c{n}", "toolName": "read",
                "content": [{"type": "text", "text": "body"}]}},
            {"type": "message", "timestamp": at, "message": {
                "role": "assistant", "model": "m", "content": [
                    {"type": "text", "text": f"see {n}.md"}],
                "usage": {"input": 10, "output": 5, "cost": {"total": 0.01}}}}]
    return rows


def test_a_log_copied_twice_into_the_folder_is_counted_once_and_said(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: both copies were counted, questions, tool calls and cost doubled."""
    write_jsonl("logs/a.jsonl", _pi("s1", range(3)))
    folder = write_jsonl("logs/b.jsonl", _pi("s1", range(3))).parent
    analysis = analyze([folder], TraceOptions())
    m = analysis.metrics
    assert (m.sessions, m.exchanges, m.tool_calls) == (1, 3, 3)
    assert m.cost_usd is not None and round(m.cost_usd, 4) == 0.06
    assert [(s.questions, s.repeated) for s in analysis.sessions] == [(3, 0), (0, 3)]
    report = render_report(analysis)
    assert "1 session, 3 questions (3 answered)." in report
    assert (f"- session s1 appears in {folder / 'a.jsonl'} and {folder / 'b.jsonl'}: counted "
            "once (3 questions in both)") in report


def test_a_rotated_log_that_repeats_the_last_session_counts_its_new_questions_only(
        write_jsonl: Callable[..., Path]) -> None:
    """The older file holds sessions s1 and s2 (questions 0-2); the newer one repeats s2
    and goes on with questions 3-4: s2 is one session of five questions."""
    write_jsonl("logs/1.jsonl", _pi("s1", range(2)) + _pi("s2", range(3)))
    folder = write_jsonl("logs/2.jsonl", _pi("s2", range(5))).parent
    analysis = analyze([folder], TraceOptions())
    assert (analysis.metrics.sessions, analysis.metrics.exchanges) == (2, 7)
    assert [(Path(s.meta.path).name, s.meta.id, s.questions) for s in analysis.sessions] == [
        ("1.jsonl", "s1", 2), ("1.jsonl", "s2", 3), ("2.jsonl", "s2", 2)]
    report = render_report(analysis)
    assert "| 1.jsonl | s1 | pi | 2 | none |" in report
    assert "| 1.jsonl | s2 | pi | 3 | as above (same file) |" in report
    assert "counted once (3 questions in both)" in report


def test_a_claude_code_file_that_goes_on_with_another_session_has_a_row_for_each(
        write_jsonl: Callable[..., Path]) -> None:
    rows = []
    for session, question in (("aaa", "first"), ("bbb", "second")):
        rows += [{"type": "user", "sessionId": session, "timestamp": "2026-02-01T08:00:00Z",
                  "uuid": f"u-{session}", "message": {"role": "user", "content": question}},
                 {"type": "assistant", "sessionId": session, "timestamp": "2026-02-01T08:00:01Z",
                  "uuid": f"a-{session}", "message": {
                      "id": f"m-{session}", "role": "assistant", "model": "claude",
                      "content": [{"type": "text", "text": "answer"}]}}]
    log = write_jsonl("cc.jsonl", rows)
    analysis = analyze([log], TraceOptions())
    assert [(s.meta.id, s.questions) for s in analysis.sessions] == [("aaa", 1), ("bbb", 1)]
    assert analysis.metrics.sessions == 2
    assert "| cc.jsonl | bbb | claude-code | 1 | as above (same file) |" in render_report(analysis)


def test_chat_logs_without_a_session_id_are_each_a_session(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    write_jsonl("logs/a.jsonl", rows)
    folder = write_jsonl("logs/b.jsonl", rows).parent
    analysis = analyze([folder], TraceOptions())
    assert (analysis.metrics.sessions, analysis.metrics.exchanges) == (2, 2)
    assert "| a.jsonl | - | openai-chat | 1 | none |" in render_report(analysis)
