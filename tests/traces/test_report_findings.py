"""What a person reads in eval-report.md: findings by their question, sessions as people count them."""

from __future__ import annotations

import json
from pathlib import Path

from assay.traces.exchanges import Exchange, SessionMeta
from assay.traces.findings import Asked, Finding, Judgement
from assay.traces.judging import Judgements
from assay.traces.metrics import compute_metrics
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report
from assay.traces.result import TraceAnalysis
from assay.traces.sessions import load_session


def test_a_finding_shows_its_question_session_and_time_not_an_exchange_id() -> None:
    """Regression: findings were listed by ids like `…-770abc:13`."""
    question = "How do I rotate the signing keys\nwithout downtime? " + "Details. " * 40
    exchange = Exchange(SessionMeta("/logs/abc.jsonl", name="key rotation"), index=1, line=13,
                        question=question, answer="Use two keys.",
                        started="2026-03-01T14:02:33Z")
    judgements = Judgements("judge-1")
    judgements.add(Judgement(exchange.id, [Finding(
        "contradiction", "error", "says 1 key", "quote the file", exchange.id,
        Asked.of(exchange))]))
    judgements.add(Judgement("other:9", error="judge call failed: timeout",
                             asked=Asked("Why is the build red?", "ci.jsonl", None)))
    analysis = TraceAnalysis([], compute_metrics([exchange], sessions=1),
                             judgements=judgements)
    report = render_report(analysis)
    [row] = [line for line in report.splitlines() if "says 1 key" in line]
    cells = [cell.strip() for cell in row.strip("|").split(" | ")]
    assert cells[0].startswith("How do I rotate the signing keys without downtime? Details.")
    assert cells[0].endswith("…") and len(cells[0]) <= 100
    assert cells[1] == "key rotation (/logs/abc.jsonl:13), 2026-03-01 14:02"
    assert exchange.id not in report
    assert "- Why is the build red? (ci.jsonl): judge call failed: timeout" in report


def test_a_finding_of_a_named_session_leads_to_the_file_and_line_to_open(
        tmp_path: Path) -> None:
    """Regression: a finding of a pi session with a name was cited by its name alone
    ('query: leases, 2026-03-01 14:02'), which no part of the report tied to a file: the
    sessions table lists files and ids, not names."""
    log = tmp_path / "logs" / "s.jsonl"
    log.parent.mkdir()
    log.write_text("\n".join(json.dumps(row) for row in [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-03-01T14:00:00Z"},
        {"type": "session_info", "id": "n0", "parentId": None, "name": "query: leases"},
        {"type": "message", "id": "m1", "parentId": "n0", "timestamp": "2026-03-01T14:02:00Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "How long?"}]}},
        {"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-03-01T14:02:09Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Ten years."}]}},
    ]) + "\n", encoding="utf-8")
    [exchange] = list(load_session(log)[1])
    judgements = Judgements("judge-1")
    judgements.add(Judgement(exchange.id, [Finding("citation", "error", "no such clause", "",
                                                   exchange.id, Asked.of(exchange))]))
    judgements.add(Judgement(exchange.id, error="judge call failed: timeout",
                             asked=Asked.of(exchange)))
    report = render_report(TraceAnalysis([], compute_metrics([exchange], sessions=1),
                                         judgements=judgements))
    where = f"query: leases ({log}:3), 2026-03-01 14:02"
    assert f"| {where} | citation |" in report.replace("\\", "")
    assert f"- How long? ({where}): judge call failed" in report.replace("\\", "")
    assert judgements.findings[0].to_dict()["where"] == f"query: leases ({log}:3)"


def _claude_line(session: str, text: str, *, sidechain: bool, role: str = "user") -> str:
    message = {"role": role, "content": text if role == "user" else
               [{"type": "text", "text": text}]}
    if role == "assistant":
        message.update(id=f"msg-{text}", model="claude-x", usage={"input_tokens": 1,
                                                                  "output_tokens": 1})
    return json.dumps({"type": role, "sessionId": session, "isSidechain": sidechain,
                       "uuid": text, "timestamp": "2026-03-01T10:00:00Z",
                       "message": message}) + "\n"


def test_subagent_files_are_counted_with_their_parent_session(tmp_path: Path) -> None:
    """Regression: one Claude Code session with a subagent was reported as several sessions."""
    parent = "0b1c2d3e-0000-4000-8000-000000000001"
    (tmp_path / f"{parent}.jsonl").write_text(
        _claude_line(parent, "What does the parser do?", sidechain=False)
        + _claude_line(parent, "It reads lines.", sidechain=False, role="assistant"))
    subagents = tmp_path / parent / "subagents"
    subagents.mkdir(parents=True)
    for n in (1, 2):
        (subagents / f"agent-a{n}.jsonl").write_text(
            _claude_line(parent, f"Look at the parser {n}", sidechain=True)
            + _claude_line(parent, f"Found it {n}", sidechain=True, role="assistant"))
    analysis = analyze([tmp_path], TraceOptions())
    assert analysis.metrics.sessions == 1 and len(analysis.sessions) == 1
    assert analysis.subagent_files == 2
    assert analysis.metrics.exchanges == 1
    assert "1 session, 1 question (1 answered); 2 subagent files counted with the session" \
        in render_report(analysis)


def test_a_subagent_file_without_its_parent_is_read_as_a_session(tmp_path: Path) -> None:
    parent = "0b1c2d3e-0000-4000-8000-000000000002"
    (tmp_path / "agent-a1.jsonl").write_text(
        _claude_line(parent, "Look at the parser", sidechain=True)
        + _claude_line(parent, "Found it", sidechain=True, role="assistant"))
    analysis = analyze([tmp_path], TraceOptions())
    assert len(analysis.sessions) == 1 and analysis.subagent_files == 0
