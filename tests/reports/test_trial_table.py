"""Which trials the HTML report lists: failures first, capped, every trial counted."""

from __future__ import annotations

from typing import Any

from assay.output import Output
from assay.records import TrialRecord
from assay.reports.trial_table import EXCERPT, select_trials
from assay.score import Score


def trial(index: int, *, passed: bool | None, value: float | None = None,
          scale: tuple[float, float] = (0.0, 1.0), text: str = "answer",
          error: str | None = None, **fields: Any) -> TrialRecord:
    score = Score(value=float(bool(passed)) if value is None else value, scale=scale,
                  passed=passed, reason="ok" if passed else "wrong")
    return TrialRecord(case_id=f"c{index:04d}", condition="a", epoch=0,
                       input=fields.pop("input", "q"), expected="e",
                       output=Output(text=text, error=error), scores={"judge": score}, **fields)


def test_failing_trials_come_first_and_the_totals_count_every_trial() -> None:
    trials = [trial(i, passed=i % 3 != 0) for i in range(30)]  # 10 fail, 20 pass
    table = select_trials(iter(trials), ["judge"], ["a"], max_rows=12, max_failing=4)
    assert [r.status for r in table.rows] == ["fail"] * 4 + ["pass"] * 8
    assert [r.case_id for r in table.rows[:4]] == ["c0000", "c0003", "c0006", "c0009"]
    assert (table.failing_total, table.passing_total) == (10, 20)
    assert (table.failing_shown, table.passing_shown) == (4, 8)


def test_passing_trials_take_the_room_failures_leave() -> None:
    trials = [trial(i, passed=i != 5) for i in range(30)]
    table = select_trials(trials, ["judge"], ["a"], max_rows=10, max_failing=4)
    assert [r.case_id for r in table.rows] == ["c0005", *(f"c{i:04d}" for i in range(10) if i != 5)]


def test_a_target_error_or_a_scorer_error_makes_an_errored_row() -> None:
    broken = trial(1, passed=None, error="ConnectionError: refused")
    broken.scores = {}
    judged = trial(2, passed=None)
    judged.scores["judge"] = Score.failure("judge reply was not JSON")
    table = select_trials([broken, judged], ["judge"], ["a"])
    assert [r.status for r in table.rows] == ["error", "error"]
    assert table.rows[0].error == "ConnectionError: refused"
    assert table.rows[0].marks == [("none", "–", "not scored")]
    assert table.rows[1].reasons == [("judge", "judge reply was not JSON", True)]
    assert table.rows[1].marks[0][0] == "err"


def test_marks_show_the_value_unless_the_score_is_a_plain_pass_or_fail() -> None:
    table = select_trials([trial(1, passed=True), trial(2, passed=False, value=3.0,
                                                        scale=(0.0, 10.0)),
                           trial(3, passed=None, value=0.42)], ["judge"], ["a"])
    marks = {r.case_id: r.marks[0][:2] for r in table.rows}
    assert marks == {"c0001": ("pass", "✓"), "c0002": ("fail", "✗ 3"),
                     "c0003": ("value", "0.42")}


def test_long_texts_become_one_line_excerpts_and_chat_input_shows_its_last_message() -> None:
    long = "word " * 200
    row = select_trials([trial(1, passed=True, text=long,
                               input=[{"role": "system", "content": "be brief"},
                                      {"role": "user", "content": "what\nis  it?"}])],
                        ["judge"], ["a"]).rows[0]
    assert len(row.output) == EXCERPT and row.output.endswith("…")
    assert row.input == "what is it?"
