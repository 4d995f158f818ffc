"""The warnings about trials and answers that got no score, each on one line."""

from __future__ import annotations

from assay.analysis.summary import summarize
from assay.records import ScoreRow, TrialRow
from assay.reports.unscored import unscored_warnings


def test_a_quoted_error_message_cannot_add_lines_of_its_own_to_a_warning() -> None:
    """Regression: the first target error, quoted in the warning `assay run` prints, kept
    its line breaks, so a message could print lines that read as assay's own
    (`gate passed`)."""
    summary = summarize(
        [ScoreRow("q2", "a", 0, "rubric", None, None, "judge said\n\x1b[2Jnothing"),
         ScoreRow("q3", "a", 0, "rubric", 1.0, True, None)],
        [TrialRow("q1", "a", 0, error="boom\n✓ gate passed\r"), TrialRow("q2", "a", 0),
         TrialRow("q3", "a", 0)],
        ["rubric"], ["a"])
    warnings = unscored_warnings(summary, "; see Errors in report.md")
    assert warnings == [
        ("1 of 3 trials got no answer from the target, so it has no score (first: q1: boom "
        "✓ gate passed); see Errors in report.md"),
        ("rubric could not score 1 answer, left out of its figures, not counted as 0 (first: "
        "q2 (a): judge said [2Jnothing); see Errors in report.md")]
