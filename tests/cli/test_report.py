"""`assay report RUN`: what it renders, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.store import Store

from .evalproject import assay


@pytest.mark.parametrize("fmt", ["md", "json", "junit", "html"])
def test_a_traces_analysis_is_refused_not_rendered_as_an_eval_with_no_scores(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of an analysis of 90 questions said "No scores: the run has
    no scored trial", and its JUnit file "0 tests", exit 0."""
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="traces-1", experiment="traces", kind="traces", status="finished",
                     total_trials=90)
    store.close()
    code, printed = assay(capsys, "report", "traces-1", "--store", str(tmp_path / "s.db"),
                          "--format", fmt)
    assert code == 2, printed
    assert "traces-1 is a traces analysis: its report is the eval-report.md" in printed
