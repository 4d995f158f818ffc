"""The report's session table: what was skipped, summarised without holding every bad line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.exchanges import Exchange
from assay.traces.findings import Finding, Judgement
from assay.traces.formats.base import MALFORMED_KEPT
from assay.traces.judging import Judgements
from assay.traces.metrics import compute_metrics
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report
from assay.traces.result import TraceAnalysis


def test_many_malformed_lines_are_counted_and_the_first_few_shown(
        write_jsonl: Callable[..., Path]) -> None:
    bad = [f"{{broken {n}" for n in range(MALFORMED_KEPT + 10)]
    rows = [{"role": "user", "content": "q"}, *bad, {"role": "assistant", "content": "a"}]
    path = write_jsonl("chat.jsonl", rows)
    analysis = analyze([path], TraceOptions())
    [session] = analysis.sessions
    assert session.meta.stats is not None
    assert session.meta.stats.malformed_count == MALFORMED_KEPT + 10
    assert len(session.meta.stats.malformed) == MALFORMED_KEPT
    report = render_report(analysis)
    assert "| chat.jsonl | - | openai-chat | 1 | line 2: invalid JSON" in report
    assert f"and {MALFORMED_KEPT + 7} more malformed" in report


def test_a_cost_that_leaves_out_responses_without_one_says_so(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: the fixture sessions' cost read '$30.3302' as the whole cost, though the
    three Claude Code sessions among them (22 model responses) logged no cost at all."""
    rows = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": "a", "cost_usd": 0.25},
            {"role": "user", "content": "q2"},
            {"role": "assistant", "content": "b"},
            {"role": "assistant", "content": "c"}]
    analysis = analyze([write_jsonl("chat.jsonl", rows)], TraceOptions())
    assert analysis.metrics.unpriced_turns == 2
    report = render_report(analysis)
    assert "| cost | $0.2500, not counting 2 model responses that logged no cost |" in report
    assert analysis.metrics.to_dict()["unpriced_turns"] == 2


def test_a_cost_no_response_logged_is_unknown(write_jsonl: Callable[..., Path]) -> None:
    rows = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    report = render_report(analyze([write_jsonl("chat.jsonl", rows)], TraceOptions()))
    assert "| cost | unknown (no model response logged a cost) |" in report


def test_a_line_whose_tool_call_is_kept_is_not_reported_as_skipped(
        write_jsonl: Callable[..., Path]) -> None:
    """Regression: a tool call whose arguments are not JSON is kept (counted, its arguments
    kept as text), yet its line was listed under the report's 'lines skipped'."""
    rows = [{"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{not json"}}]},
            {"role": "assistant", "content": "a"}]
    analysis = analyze([write_jsonl("chat.jsonl", rows)], TraceOptions())
    assert analysis.metrics.tool_calls == 1
    report = render_report(analysis)
    assert "| file | session | format | questions | line problems |" in report
    assert ("| chat.jsonl | - | openai-chat | 1 | line 2: tool call 'read_file': arguments not "
            "JSON, kept as text |") in report


def test_counts_of_one_read_in_the_singular(make_exchange: Callable[..., Exchange]) -> None:
    """Regression: one session with one question read '1 sessions, 1 questions', the judge
    'checked 1 of 1 answered questions' and '1 citation or contradiction problems'."""
    exchange = make_exchange(question="What does the parser do?", answer="It trims.")
    judgements = Judgements("openai/judge-1")
    judgements.add(Judgement(exchange.id, [Finding("citation", "error", "cites section 9",
                                                   "cite what the file says")]))
    metrics = compute_metrics([exchange], sessions=1)
    metrics.cost_usd, metrics.unpriced_turns = 0.5, 1
    report = render_report(TraceAnalysis([], metrics, judgements=judgements,
                                         subagent_files=1))
    assert ("1 session, 1 question (1 answered); 1 subagent file counted with the session "
            "that started it.") in report
    assert "checked 1 of 1 answered question." in report
    assert "1 citation or contradiction problem in 1 of 1 answer judged." in report
    assert "not counting 1 model response that logged no cost" in report


def test_a_file_not_read_is_named_by_its_whole_path_however_long(
        tmp_path: Path, write_jsonl: Callable[..., Path]) -> None:
    """Regression: a path past 120 characters was cut with '…' in 'not read:', naming no
    file anyone could find (and a test of it failed where pytest's folder names ran long)."""
    deep = tmp_path.joinpath(*[f"folder-{i:02d}-of-a-long-tree" for i in range(8)])
    deep.mkdir(parents=True)
    odd = deep / "notes.jsonl"
    odd.write_text('{"neither": "a chat nor a session"}\n', encoding="utf-8")
    chat = write_jsonl("chat.jsonl", [{"role": "user", "content": "q"},
                                      {"role": "assistant", "content": "a"}])
    report = render_report(analyze([chat, odd], TraceOptions()))
    assert len(str(odd)) > 200
    assert f"- not read: {odd}" in report.replace("\\", "")


def test_thousands_of_malformed_lines_are_counted_with_their_thousands_separated(
        write_jsonl: Callable[..., Path]) -> None:
    """It read '1,003 malformed lines (...; and 1000 more malformed)' on the terminal."""
    rows = [{"role": "user", "content": "q"}, *(["{broken"] * 1003),
            {"role": "assistant", "content": "a"}]
    report = render_report(analyze([write_jsonl("chat.jsonl", rows)], TraceOptions()))
    assert "and 1,000 more malformed |" in report


def test_citation_problems_say_how_many_of_the_answers_judged_hold_them(
        make_exchange: Callable[..., Exchange]) -> None:
    """'3 citation or contradiction problems.' said nothing of how many answers they were in,
    nor of how many answers were judged."""
    exchanges = [make_exchange(question=f"q{n}", line=n) for n in range(4)]
    judgements = Judgements("openai/judge-1")
    problems = [Finding("citation", "error", "cites section 9", "x", exchanges[0].id),
                Finding("contradiction", "error", "says 3, file says 4", "x", exchanges[0].id)]
    judgements.add(Judgement(exchanges[0].id, problems))
    judgements.add(Judgement(exchanges[1].id, [Finding("citation", "warning", "no such clause",
                                                       "x", exchanges[1].id)]))
    for exchange in exchanges[2:]:
        judgements.add(Judgement(exchange.id, []))
    report = render_report(TraceAnalysis([], compute_metrics(exchanges, sessions=1),
                                         judgements=judgements))
    assert "3 citation or contradiction problems in 2 of 4 answers judged." in report
