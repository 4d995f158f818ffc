"""An `assay traces` analysis's page: its findings, or why it shows none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.view.page_text import page_text

NO_FINDINGS = {"citation": 0, "contradiction": 0, "wiki-gap": 0, "wasted-read": 0}


def judged_without_findings(exchanges: int, answered: int, not_judged: int) -> dict[str, Any]:
    """The summary of a judged analysis of one session file whose judge found nothing."""
    return {"metrics": {"sessions": 1, "exchanges": exchanges, "answered": answered},
            "judge_model": "openai/gpt-4.1-mini", "findings": NO_FINDINGS, "finding_list": [],
            "not_judged": not_judged, "sessions": ["s.jsonl"]}


def analysis_page(tmp_path: Path, summary: dict[str, Any], status: str = "finished") -> str:
    """The text of the viewer's page of one stored traces analysis with `summary`."""
    from assay.store import Store
    from assay.testing.viewer import serving

    url = str(tmp_path / "assay.db")
    store = Store(url)
    store.create_run(id="traces-1", experiment="sessions", kind="traces", status=status,
                     started_at="2025-03-04T09:00:00+00:00", total_trials=3, summary=summary)
    store.close()
    with serving(url) as viewer:
        return page_text(httpx.get(f"{viewer}runs/traces-1").text)


def test_a_judged_analysis_without_findings_says_so_and_not_that_it_is_old(
        tmp_path: Path) -> None:
    """An analysis whose judge found nothing read '0 citation, 0 contradiction, ...' and
    then 'This analysis stored only the counts of its findings; analyses stored by this
    version of assay keep each finding', though this version had just stored it."""
    page = analysis_page(tmp_path, judged_without_findings(2, 2, not_judged=0))
    assert "No findings: the judge found nothing wrong in the 2 answered questions." in page
    assert "stored only the counts" not in page


def test_an_analysis_stored_before_findings_were_kept_says_it_has_only_their_counts(
        tmp_path: Path) -> None:
    page = analysis_page(tmp_path, {
        "metrics": {"exchanges": 2, "answered": 2},
        "findings": {**NO_FINDINGS, "citation": 1}})
    assert "1 citation, 0 contradiction, 0 wiki-gap, 0 wasted-read finding." in page
    assert "stored only the counts of its findings" in page


def test_answers_the_judge_could_not_judge_are_counted_as_answered_questions(
        tmp_path: Path) -> None:
    """Regression: '1 exchanges could not be judged', where eval-report.md counts answered
    questions."""
    page = analysis_page(tmp_path, judged_without_findings(3, 2, not_judged=1))
    assert "1 answered question could not be judged." in page
    assert "stored only the counts" not in page


def test_an_analysis_the_judge_could_not_finish_says_how_much_it_judged(
        tmp_path: Path) -> None:
    """Regression: with 1 of 2 answered questions not judged, the page read 'the judge found
    nothing wrong in the 2 answered questions', where eval-report.md reads 'checked 1 of 2'."""
    page = analysis_page(tmp_path, judged_without_findings(3, 2, not_judged=1),
                         status="incomplete")
    assert ("No findings: the judge found nothing wrong in the 1 of 2 answered questions it "
            "could judge; 1 answered question could not be judged.") in page
    assert "assay traces analysis · incomplete" in page


def test_a_session_read_from_two_files_is_one_session_with_the_reason_given(
        tmp_path: Path) -> None:
    """The page counted session files ('2 sessions') where the analysis counted 1."""
    note = "session s1 appears in logs/a.jsonl and logs/b.jsonl: counted once (3 questions in both)"
    page = analysis_page(tmp_path, {
        "metrics": {"sessions": 1, "exchanges": 3, "answered": 3},
        "sessions": ["logs/a.jsonl", "logs/b.jsonl"], "repeated_sessions": [note]})
    assert "· 1 session ·" in page and "2 sessions" not in page
    assert "Session files read (2)" in page and note in page


def test_an_analysis_of_chosen_sessions_says_how_many_of_those_found_it_kept(
        tmp_path: Path) -> None:
    """The page read '2 sessions' alone, where the terminal and eval-report.md say the
    filters kept 2 of the 4 sessions found."""
    note = "kept 2 of 4 sessions (--since 2026-03-01)"
    page = analysis_page(tmp_path, {
        "metrics": {"sessions": 2, "exchanges": 2, "answered": 2}, "sessions": ["r.jsonl"],
        "selection": {"found": 4, "kept": 2, "filters": "--since 2026-03-01", "undated": 0,
                      "note": note}})
    assert "Kept 2 of 4 sessions (--since 2026-03-01)." in page


def test_a_finding_says_the_file_and_line_of_its_question(tmp_path: Path) -> None:
    """A finding showed the session's name alone, which leads to no file."""
    finding = {"type": "citation", "severity": "error", "detail": "no such clause",
               "recommendation": "", "exchange": "s-1a2b3c:3", "question": "How long?",
               "session": "query: leases", "asked_at": "2026-03-01T14:02:00Z",
               "file": "logs/s.jsonl", "line": 3, "where": "query: leases (logs/s.jsonl:3)"}
    summary = {**judged_without_findings(1, 1, not_judged=0), "finding_list": [finding],
               "findings": {**NO_FINDINGS, "citation": 1}}
    assert "query: leases (logs/s.jsonl:3)" in analysis_page(tmp_path, summary)
