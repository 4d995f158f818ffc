"""`report.md`'s "Worse than the recorded answer": what a replay found worse than then."""

from __future__ import annotations

from assay.output import Output
from assay.records import TrialRecord
from assay.replay import VERSUS
from assay.reports.recorded import MAX_LISTED, RecordedComparisons, worse_than_recorded_markdown
from assay.score import Score

RECORDED = "The lamp has a warranty of three years."


def replayed(case: str, answer: str, passed: bool | None, *, condition: str = "docs",
             error: str | None = None, versus: str | None = VERSUS) -> TrialRecord:
    details = {"label": "same" if passed else "worse", "recorded": RECORDED}
    if versus is not None:
        details["versus"] = versus
    score = Score(value=None if passed is None else float(passed), passed=passed,
                  reason="It lacks three, years." if passed is False else "", details=details,
                  error=error)
    return TrialRecord(case_id=case, condition=condition, epoch=0,
                       input="How long is the warranty?", expected=RECORDED,
                       output=Output(text=answer), scores={"vs_recorded": score})


def section(*trials: TrialRecord) -> str:
    comparisons = RecordedComparisons(1)
    for trial in trials:
        comparisons.add(trial)
    return worse_than_recorded_markdown(comparisons)


def test_each_worse_answer_is_listed_with_the_recorded_one_the_new_one_and_why() -> None:
    text = section(replayed("w:2", RECORDED, True),
                   replayed("w:2", "I don't know.", False, condition="training"))
    assert text.startswith("## Worse than the recorded answer\n")
    assert "1 of 2 replayed answers are worse than what was answered in the session." in text
    assert "### `w:2` · training · vs_recorded" in text
    assert f"- then: {RECORDED}" in text
    assert "- now: I don't know." in text
    assert "- why: It lacks three, years." in text
    assert "· docs" not in text  # the answer as good as then is not listed


def test_a_run_that_replays_nothing_has_no_section() -> None:
    assert section(replayed("w:2", "I don't know.", False, versus=None)) == ""
    assert section() == ""


def test_a_comparison_that_errored_is_neither_compared_nor_worse() -> None:
    text = section(replayed("w:2", "I don't know.", None, error="judge unreachable"),
                   replayed("w:6", "I don't know.", False))
    assert "1 of 1 replayed answers are worse" in text


def test_a_long_list_is_cut_and_says_how_many_more() -> None:
    trials = [replayed(f"q{n}", "No idea.", False) for n in range(MAX_LISTED + 3)]
    text = section(*trials)
    assert text.count("\n### ") == MAX_LISTED
    assert "... and 3 more (results.json has every comparison)" in text


def test_an_answer_that_looks_like_markdown_stays_on_its_line() -> None:
    text = section(replayed("w:2", "I don't know.\n## Injected heading\n| a | b |", False))
    assert "## Injected" not in text.replace("- now: I don't know. ## Injected", "")
    assert "- now: I don't know. ## Injected heading \\| a \\| b \\|" in text
