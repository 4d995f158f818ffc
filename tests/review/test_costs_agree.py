"""A run's costs read alike in every rendering, and never as $0 where a price was missing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.summary import summarize
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.review.result import Review
from assay.testing import FakeJudge, FakeLLM
from tests.review.renderings import assert_every_rendering_shows, assert_no_rendering_shows


def unpriced_judge_review() -> Review:
    """Two conditions judged by a model without a price; the second condition's judge
    replies all came from the cache (as when both answered alike)."""
    conditions = ["plain", "terse"]
    scores = [ScoreRow(f"q{i}", c, 0, "judge", 8.0, True, None, (0.0, 10.0),
                       input_tokens=0 if c == "terse" or i else 200,
                       output_tokens=0 if c == "terse" or i else 20,
                       cost_usd=0.0 if c == "terse" or i else None)
              for c in conditions for i in range(4)]
    trials = [TrialRow(f"q{i}", c, 0, input_tokens=7, output_tokens=1, cost_usd=0.0001)
              for c in conditions for i in range(4)]
    summary = summarize(scores, trials, ["judge"], conditions)
    usage = {"calls": 9, "unpriced_calls": 1, "by_model": {
        "openai/gpt-4.1-mini": {"calls": 8, "cache_hits": 0, "input_tokens": 56,
                                "output_tokens": 8, "cost_usd": 0.0008, "retries": 0,
                                "failures": 0},
        "openai/judge-model": {"calls": 1, "cache_hits": 7, "input_tokens": 200,
                               "output_tokens": 20, "cost_usd": 0.0, "unpriced_calls": 1,
                               "retries": 0, "failures": 0}}}
    run = RunRecord("run-1", "exp", "eval", "completed", "2026-01-02T00:00:00")
    return Review(run=run, summary=summary, comparisons=compare_conditions(
        collect_cases(scores), conditions), previous=None, gates=[], usage=usage)


def test_a_judge_without_a_price_reads_unknown_in_every_rendering_never_0() -> None:
    review = unpriced_judge_review()
    shown = assert_every_rendering_shows(
        review, "total cost unknown (target $0.0008, judges unknown",
        only=["terminal", "report.md", "report.html"])
    assert '"judge_cost_usd": null' in shown["results.json"]
    assert "unknown" in shown["assay view"]
    assert_no_rendering_shows(review, "judges $0.0000")


def test_a_condition_whose_judge_cost_is_unknown_gets_no_cost_bar_in_report_html() -> None:
    """The bar of 'target and judges' drew the target's cost alone, the full length of the
    largest condition's, beside 'unknown' in the judge cost column."""
    from assay.reports.html import render_html

    page = render_html(unpriced_judge_review(), [])
    cost = page[page.index('<section id="cost">'):]
    plain, terse = (cost[cost.index(f'data-condition="{c}"'):] for c in ("plain", "terse"))
    plain_row, terse_row = (row[:row.index("</tr>")] for row in (plain, terse))
    assert plain_row.count('class="meter mini') == 1  # latency only
    assert terse_row.count('class="meter mini') == 2  # latency and cost


SAME_ANSWER = "def answer(case, style):\n    return 'The answer is ' + case.expected\n"


def test_verdicts_one_condition_paid_for_and_another_shared_read_as_shared_not_free(
        tmp_path: Path) -> None:
    """Regression: two conditions answering alike ask the judge the same requests, paid once
    by the first to ask; the other condition's judge cost read $0.0000 with nothing beside
    it, as if it were the cheaper one. Every rendering counts its verdicts taken from the
    cache beside that cost, and says what they are; the run pays for each verdict once.

    Regression: which condition asks first, and pays, is a matter of timing, and the cost of
    the verdicts of the one that did not was shown nowhere. Every rendering now gives it
    beside them as `judge cost shared`, the price they were paid at, not counted again."""
    from assay.review.finish import review_stored
    from assay.store import Store

    (tmp_path / "agent.py").write_text(SAME_ANSWER)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(
        {"id": f"c{i}", "input": f"question {i}?", "expected": f"a{i}"}) + "\n"
        for i in range(4)))
    (tmp_path / "assay.yaml").write_text(yaml.safe_dump({
        "name": "shared", "dataset": {"path": "cases.jsonl"},
        "target": {"type": "python", "function": "agent:answer"},
        "conditions": {"one": {"args": {"style": "one"}}, "two": {"args": {"style": "two"}}},
        "judge": {"model": "openai/gpt-4.1-mini"},
        "scorers": [{"type": "judge_score", "threshold": 7}], "run": {"concurrency": 1}}))
    with FakeLLM(judge=FakeJudge()) as llm:
        run = subprocess.run(
            [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress", "-o", "out"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "ASSAY_STORE": str(tmp_path / "assay.db"), "COLUMNS": "200",
                 "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "test-key"})
        judged = llm.received
    assert run.returncode == 0, run.stderr
    assert judged == 4  # each verdict paid for once
    conditions = {c["condition"]: c for c in json.loads(
        (tmp_path / "out" / "results.json").read_text())["stats"]["conditions"]}
    assert (conditions["one"]["judge_cache_hits"], conditions["two"]["judge_cache_hits"]) == (0, 4)
    assert conditions["one"]["judge_cost_usd"] > 0 and conditions["two"]["judge_cost_usd"] == 0
    assert conditions["two"]["judge_shared_cost_usd"] == conditions["one"]["judge_cost_usd"]
    assert conditions["one"]["judge_shared_cost_usd"] is None
    paid = f"${conditions['one']['judge_cost_usd']:.4f}"
    assert re.search(rf"one +unknown +- +{re.escape(paid)} +0 +- ", run.stdout), run.stdout
    assert re.search(rf"two +unknown +- +\$0\.0000 +4 +{re.escape(paid)} ", run.stdout), \
        run.stdout
    assert f"total cost {paid} (judges {paid})" in run.stdout  # paid for once
    store = Store(str(tmp_path / "assay.db"))
    [stored] = store.list_runs("shared")
    review = review_stored(store, stored)
    store.close()
    assert_every_rendering_shows(review, "judge calls cached", "judge cost shared",
                                 "paid for once by the first to ask",
                                 only=["terminal", "report.md", "report.html", "assay view"])
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| two | 4 | 0 |" in report
    assert f"| $0.0000 | 4 | {paid} |" in report
