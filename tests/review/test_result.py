"""A review as renderers take it in: values concluded once, shown by every renderer alike."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.summary import summarize
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.reports import costs as costs_module
from assay.reports.html import render_html
from assay.reports.markdown import render_markdown
from assay.reports.terminal import print_review
from assay.review.result import Review


def priced_review() -> Review:
    conditions = ["training", "pack"]
    scores = [ScoreRow(case_id=f"q{i}", condition=c, epoch=0, scorer="judge",
                       value=float(i % 2), passed=bool(i % 2), error=None)
              for c in conditions for i in range(20)]
    trials = [TrialRow(f"q{i}", c, 0, input_tokens=100, output_tokens=10, cost_usd=0.0001234)
              for c in conditions for i in range(20)]
    summary = summarize(scores, trials, ["judge"], conditions)
    run = RunRecord("run-1", "exp", "eval", "completed", "2026-01-02T00:00:00")
    usage = {"calls": 40, "by_model": {"openai/gpt-4.1-mini": {
        "calls": 40, "cache_hits": 0, "input_tokens": 4000, "output_tokens": 400,
        "cost_usd": 0.004936, "retries": 0, "failures": 0}}}
    return Review(run=run, summary=summary, comparisons=compare_conditions(
        collect_cases(scores), conditions), previous=None, gates=[], usage=usage)


def test_a_runs_costs_are_built_once_for_the_terminal_and_every_report_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    original = costs_module.RunCosts.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(costs_module.RunCosts, "__init__", counted)
    review = priced_review()
    out = io.StringIO()
    print_review(Console(file=out, width=200), review, detail="verbose")
    markdown = render_markdown(review, [])
    page = render_html(review, [])
    assert len(built) == 1
    total = review.costs.total()
    assert total is not None and total.startswith("total cost $")
    assert total in markdown and total in out.getvalue() and total in page
