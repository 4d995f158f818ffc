"""The report's session table: what was skipped, summarised without holding every bad line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.formats.base import MALFORMED_KEPT
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report


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
    assert "| chat.jsonl | openai-chat | 1 | line 2: invalid JSON" in report
    assert f"and {MALFORMED_KEPT + 7} more malformed" in report
