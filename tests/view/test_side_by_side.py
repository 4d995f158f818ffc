"""Cases side by side: a row per case, a cell per side, and a mark per scorer that reads at
a glance (pass, fail, passes of the epochs, a value, or error)."""

from __future__ import annotations

from assay.records import ScoreRow, TrialPreview
from assay.view.side_by_side import Side, arrange

SIDES = [Side("R", "base", "base"), Side("R", "new", "new")]


def _preview(case_id: str, condition: str, epoch: int = 0, *, passed: bool | None = True,
             value: float | None = 1.0, error: str | None = None) -> TrialPreview:
    scores = {} if error else {"check": ScoreRow(case_id, condition, epoch, "check",
                                                 value, passed, None)}
    return TrialPreview("R", case_id, condition, epoch, input="q", input_cut=False,
                        expected="a", expected_cut=False, output="a", output_cut=False, error=error, scores=scores)


def test_a_case_whose_verdict_differs_between_sides_is_flipped() -> None:
    rows = arrange(["c1", "c2"], SIDES, [
        _preview("c1", "base"), _preview("c1", "new", passed=False, value=0.0),
        _preview("c2", "base"), _preview("c2", "new")], ["check"])
    assert [(r.case_id, r.flipped) for r in rows] == [("c1", True), ("c2", False)]
    assert [c.marks["check"].text for c in rows[0].cells] == ["pass", "fail"]


def test_epochs_show_as_passes_out_of_the_epochs() -> None:
    rows = arrange(["c1"], SIDES, [
        _preview("c1", "base", 0), _preview("c1", "base", 1, passed=False, value=0.0),
        _preview("c1", "new", 0), _preview("c1", "new", 1)], ["check"])
    base, new = rows[0].cells
    assert (base.marks["check"].text, base.marks["check"].tone) == ("1/2", "mixed")
    assert (new.marks["check"].text, new.marks["check"].tone) == ("2/2", "pass")
    assert rows[0].flipped


def test_a_failed_trial_is_an_error_mark_not_a_fail() -> None:
    rows = arrange(["c1"], SIDES, [_preview("c1", "base"),
                                   _preview("c1", "new", error="TimeoutError")], ["check"])
    assert rows[0].cells[1].marks["check"].tone == "error"
    assert rows[0].errored and not rows[0].flipped


def test_a_scorer_without_verdicts_shows_its_value_and_a_missing_side_is_empty() -> None:
    rows = arrange(["c1"], SIDES, [_preview("c1", "base", passed=None, value=0.75)],
                   ["check"])
    assert rows[0].cells[0].marks["check"].text == "0.750"
    assert rows[0].cells[1].trials == [] and rows[0].cells[1].marks == {}


def test_a_scorer_the_side_never_ran_has_no_mark_rather_than_an_error() -> None:
    """A rejudge run keeps only its judged scorers: compared with the run it judged, its
    cells read 'contains error' and every case was flagged errored, though nothing failed."""
    rejudged = TrialPreview("R", "c1", "new", 0, input="q", input_cut=False, expected="a",
                            expected_cut=False, output="a", output_cut=False, error=None,
                            scores={"judge": ScoreRow("c1", "new", 0, "judge", 1.0, True, None)})
    rows = arrange(["c1"], SIDES, [_preview("c1", "base"), rejudged], ["check", "judge"])
    new = rows[0].cells[1]
    assert "check" not in new.marks
    assert new.marks["judge"].text == "pass"
    assert not rows[0].errored and not rows[0].flipped


def test_a_value_is_shown_as_the_score_table_shows_a_mean_never_on_an_end_it_is_not_at() -> None:
    """Regression: a case whose two epochs scored 1.0 and 0.999 read `1` on the cases page,
    the top of its scale, where it had not scored it."""
    rows = arrange(["c1"], SIDES, [_preview("c1", "base", 0, passed=None, value=1.0),
                                   _preview("c1", "base", 1, passed=None, value=0.999)],
                   ["check"])
    assert rows[0].cells[0].marks["check"].text == "0.9995"
