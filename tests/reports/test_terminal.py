"""The terminal's lines that are not tables: the run's LLM calls."""

from __future__ import annotations

from pathlib import Path

import pytest

import assay
from assay.reports.terminal import usage_text


def test_the_calls_of_a_run_are_counted_with_the_cache_retries_and_failures() -> None:
    usage = {"calls": 120, "cache_hits": 30, "retries": 1, "failures": 2}
    assert usage_text(usage) == ("120 LLM calls answered (30 more from the cache), 1 retry, "
                                 "2 calls failed")
    assert usage_text({}) == ""


def test_a_resume_says_its_calls_are_its_own_beside_the_whole_runs_cost() -> None:
    """A resume's ledger holds only its own calls: "30 LLM calls" beside the cost of the
    whole run read as if 30 calls had cost all of it."""
    assert usage_text({"calls": 30, "resumed": True}) == "30 LLM calls answered by this resume"


def test_regression_cache_hits_and_failed_calls_are_not_read_as_part_of_the_calls() -> None:
    """The ledger counts answered calls apart from cache hits and failures: 337 answered
    calls, 34 cache hits and 39 failures read '337 LLM calls (34 answered from the cache),
    39 failed', as if 34 and 39 were among the 337."""
    text = usage_text({"calls": 337, "cache_hits": 34, "failures": 39})
    assert text == "337 LLM calls answered (34 more from the cache), 39 calls failed"


def test_regression_the_totals_cache_hits_say_how_many_are_the_targets_of_the_column() -> None:
    """The column 'cached answers' counted the targets' cached calls (0) while the total's
    '34 more from the cache' counted the judges' too: 0 beside 34 with nothing to say why."""
    usage = {"calls": 337, "cache_hits": 34}
    assert usage_text(usage, targets=4) == (
        "337 LLM calls answered (34 more from the cache, 4 of them for the targets' answers)")
    assert usage_text(usage, targets=0).endswith(
        "(34 more from the cache, none for the targets' answers)")
    assert usage_text(usage, targets=34).endswith("(34 more from the cache, all for the "
                                                 "targets' answers)")
    # a resume's ledger holds its own calls, the column the whole run's: no share is said
    assert usage_text({**usage, "resumed": True}, targets=4) == (
        "337 LLM calls answered by this resume (34 more from the cache)")


def test_errors_point_at_report_md_only_when_the_run_wrote_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`assay.evaluate(..., reports=False, verbose=True)` said "see Errors in report.md" of
    a run that wrote no report.md."""
    def answer(case: assay.Case) -> str:
        if case.input_text == "b":
            raise RuntimeError("down")
        return case.input_text

    data = [{"input": text, "expected": text} for text in "abc"]
    for reports in (False, True):
        assay.evaluate("pointer", data=data, task=answer, scorers=["exact_match"],
                       store=str(tmp_path / "assay.db"), reports=reports,
                       output=tmp_path / "out", verbose=True)
        out = capsys.readouterr().out
        assert "1 of 3 trials got no answer from the target" in out
        assert ("see Errors in report.md" in out) == reports
        assert (tmp_path / "out" / "report.md").exists() == reports

