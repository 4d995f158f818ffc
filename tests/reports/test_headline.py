"""The one-sentence verdict: which condition is better, whether that is real, in plain words.

It must agree with the comparison it is read from: "better" or "worse" only
when the comparison is significant, and it quotes the same interval the
comparison line prints.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from assay.analysis.conditions import collect_cases, compare_conditions
from assay.analysis.run_diff import RunRef, diff_runs
from assay.analysis.summary import summarize
from assay.analysis.verdict import shown_effect
from assay.records import RunRecord, ScoreRow, TrialRow
from assay.reports.comparisons import ci_label
from assay.reports.formatting import fmt_mean, fmt_pass_rate
from assay.reports.headline import (
    conditions_headline,
    diff_headline,
    review_headline,
    summary_headline,
)
from assay.review.result import Review

A = RunRef("run-a", "exp", "2026-01-01T00:00:00", "hash-1")
B = RunRef("run-b", "exp", "2026-01-02T00:00:00", "hash-1")


def rows(condition: str, passing: int, n: int = 60, *, scorer: str = "judge",
         offset: int = 0) -> list[ScoreRow]:
    """`n` cases of which the first `passing` (counted from `offset`, wrapping) pass."""
    return [ScoreRow(case_id=f"q{i}", condition=condition, epoch=0, scorer=scorer,
                     value=float((i - offset) % n < passing),
                     passed=(i - offset) % n < passing, error=None)
            for i in range(n)]


def compare(*conditions: tuple[str, int], scorers: tuple[str, ...] = ("judge",)):
    cases = collect_cases([r for scorer in scorers for name, passing in conditions
                           for r in rows(name, passing, scorer=scorer)])
    return compare_conditions(cases, [name for name, _ in conditions])


def test_a_real_gain_names_the_better_condition_and_quotes_its_interval() -> None:
    comps = compare(("training", 20), ("pack", 40))
    found = conditions_headline(comps)
    assert found is not None and found.outcome == "better"
    c = comps.entries[0].comparison
    _, _, delta, interval = shown_effect(c)[:4]
    assert found.text == (f"'pack' is better than 'training' on judge, and the difference is "
                          f"real: pass rate 33.33% → 66.67%, {delta} ({ci_label(c)} {interval}).")


def test_a_real_drop_says_worse_and_real() -> None:
    found = conditions_headline(compare(("training", 40), ("pack", 20)))
    assert found is not None and found.outcome == "worse"
    assert found.text.startswith("'pack' is worse than 'training' on judge, and the drop is real:")


def test_a_small_difference_is_within_noise_and_never_called_better() -> None:
    found = conditions_headline(compare(("training", 30), ("pack", 32)))
    assert found is not None and found.outcome == "within noise"
    assert found.text.startswith("'pack' is not clearly better than 'training' on judge:")
    assert found.text.endswith("is within noise.")
    assert " is better" not in found.text


def test_equal_conditions_score_the_same() -> None:
    found = conditions_headline(compare(("training", 30), ("pack", 30)))
    assert found is not None
    assert found.text.startswith("'pack' and 'training' score the same on judge:")


def test_the_sentence_agrees_with_the_comparison_on_random_runs() -> None:
    rng = random.Random(7)
    for _ in range(40):
        base, other, n = rng.randint(0, 40), rng.randint(0, 40), 40
        cases = collect_cases(rows("base", base, n) + rows("cand", other, n,
                                                          offset=rng.randint(0, n)))
        comps = compare_conditions(cases, ["base", "cand"])
        found = conditions_headline(comps)
        assert found is not None
        c = comps.entries[0].comparison
        assert (found.outcome in ("better", "worse")) == c.significant, found.text
        assert ("real" in found.text) == c.significant
        _, _, _, interval = shown_effect(c)[:4]
        assert f"{ci_label(c)} {interval}" in found.text
        if found.outcome == "better":
            assert c.headline.interval.low > 0
        if found.outcome == "worse":
            assert c.headline.interval.high < 0


def test_with_several_candidates_the_largest_real_gain_leads_and_the_rest_are_counted() -> None:
    comps = compare(("training", 20), ("small", 22), ("pack", 45), ("worse", 2))
    found = conditions_headline(comps)
    assert found is not None and found.outcome == "better"
    assert found.text.startswith("'pack' is better than 'training'")
    assert found.text.endswith("; of the 2 other comparisons, 1 is a real drop and 1 is "
                               "within noise.")


def test_when_no_candidate_is_real_the_sentence_says_so() -> None:
    found = conditions_headline(compare(("training", 30), ("a", 32), ("b", 27)))
    assert found is not None and found.outcome == "within noise"
    assert found.text.startswith("No condition is clearly better or worse than 'training' on "
                                 "judge: the largest difference, 'b' with pass rate 50.0% → 45.0%")


def test_other_scorers_are_counted_in_the_tail() -> None:
    found = conditions_headline(compare(("training", 20), ("pack", 40),
                                        scorers=("judge", "exact")))
    assert found is not None
    assert "on judge" in found.text and "on exact" not in found.text  # the first scorer leads
    assert found.text.endswith("; the other comparison is a real gain.")


def test_when_no_candidate_is_real_the_tail_says_its_comparisons_are_on_other_scorers(
        ) -> None:
    """Regression: "No condition is clearly better or worse than 'baseline' on contains: ...;
    of the 2 other comparisons, 2 are within noise" (mcp-context example): the two were on
    tool_calls, and read as two more comparisons on contains."""
    comps = compare(("training", 30), ("a", 32), ("b", 27), scorers=("judge", "exact"))
    found = conditions_headline(comps)
    assert found is not None and found.outcome == "within noise"
    assert len(comps.entries) == 4
    assert found.text.endswith("; of the 2 comparisons on other scorers, 2 are within noise.")
    one = conditions_headline(compare(("training", 30), ("a", 32), ("b", 27),
                                      scorers=("judge",)))
    assert one is not None and "comparison" not in one.text.split(";", 1)[-1]


def test_one_condition_has_no_condition_headline() -> None:
    assert conditions_headline(compare(("only", 20))) is None


def diff(before: int, after: int, *, conditions: tuple[str, ...] = ("pack",), problems=()):
    cases_a = collect_cases([r for c in conditions for r in rows(c, before)])
    cases_b = collect_cases([r for c in conditions for r in rows(c, after)])
    return diff_runs(cases_a, cases_b, run_a=A, run_b=B, problems=list(problems))


def test_a_run_diff_reads_as_run_b_against_run_a() -> None:
    found = diff_headline(diff(20, 40))
    assert found.outcome == "better"
    assert found.text.startswith("Run run-b is better than run run-a on judge, and the change "
                                 "is real: pass rate 33.33% → 66.67%")


def test_a_run_diff_names_the_condition_when_there_are_several() -> None:
    found = diff_headline(diff(40, 20, conditions=("pack", "plain")),
                          this="this run", other="the previous run (run-a)")
    assert found.outcome == "worse"
    assert found.text.startswith("This run is worse than the previous run (run-a) on judge "
                                 "under 'pack', and the drop is real")
    assert found.text.endswith("; the other comparison is a real drop.")


def test_runs_that_cannot_be_compared_get_no_verdict() -> None:
    found = diff_headline(diff(20, 40, problems=("different dataset: sha256 a, b",
                                                 "judge: different judge model")))
    assert found.outcome == "not comparable" and found.comparison is None
    assert found.text == ("Run run-b cannot be compared with run run-a: different dataset: "
                          "sha256 a, b (and 1 more reason).")
    assert "better" not in found.text and "worse" not in found.text


def test_a_single_condition_run_states_its_score_with_its_interval() -> None:
    summary = summarize(rows("default", 45), [TrialRow(f"q{i}", "default", 0)
                                              for i in range(60)], ["judge"], ["default"])
    found = summary_headline(summary)
    assert found.outcome == "no comparison"
    stats = summary.scores[0]
    assert stats.pass_rate_ci is not None
    assert found.text == ("One condition ('default') and no earlier run, so nothing to "
                          f"compare yet: judge has pass rate 75.0% (95% CI "
                          f"{stats.pass_rate_ci.low:.1%}..{stats.pass_rate_ci.high:.1%}, n=60).")
    assert f"[{stats.pass_rate_ci.low:.1%}–{stats.pass_rate_ci.high:.1%}]" in fmt_pass_rate(stats)


def test_a_single_condition_score_reads_as_the_score_tables_row() -> None:
    """Regression: a mean of 0.9997 over 3,000 cases read 'graded has mean 1.000 (95% CI
    0.999..1.000, n=3000)' above a score table giving it as '0.9997 [0.999–1.000]'."""
    scored = [ScoreRow(f"q{i}", "default", 0, "graded", 0.5 if i < 2 else 1.0, None, None)
              for i in range(3000)]
    summary = summarize(scored, [TrialRow(f"q{i}", "default", 0) for i in range(3000)])
    stats = summary.scores[0]
    text = summary_headline(summary).text
    low, high = fmt_mean(stats).removeprefix("0.9997 [").removesuffix("]").split("–")
    assert text.endswith(f"graded has mean 0.9997 (95% CI {low}..{high}, n=3,000).")


def test_a_single_condition_score_names_the_errored_trials_it_leaves_out() -> None:
    """`assay run -q` of a run where 9 of 33 trials errored opened with 'pass rate 100.0%'
    and no word of the 9 beside it."""
    scored = [ScoreRow(f"q{i}", "default", 0, "judge", 1.0, True, None) for i in range(24)]
    errored = [ScoreRow(f"q{i}", "default", 0, "judge", None, None, "boom")
               for i in range(24, 33)]
    summary = summarize(scored + errored, [TrialRow(f"q{i}", "default", 0) for i in range(33)])
    text = summary_headline(summary).text
    assert text.startswith("One condition ('default') and no earlier run, so nothing to "
                           "compare yet: judge has pass rate 100.0% (95% CI ")
    assert text.endswith(", n=24; 9 errored trials left out).")


def test_a_run_where_every_trial_errored_says_so() -> None:
    errored = [ScoreRow(f"q{i}", "default", 0, "judge", None, None, "boom") for i in range(3)]
    summary = summarize(errored, [TrialRow(f"q{i}", "default", 0) for i in range(3)])
    assert summary_headline(summary).text == "No scores: every trial ended in an error."


def test_no_scores_with_one_unanswered_trial_does_not_say_every_trial_errored() -> None:
    """Regression: "every trial ended in an error" sat beside "1 of 4 trials ended in an
    error": only the scorers failed on the three answered trials."""
    errored = [ScoreRow(f"q{i}", "default", 0, "judge", None, None, "HTTP 400")
               for i in range(1, 4)]
    trials = [TrialRow("q0", "default", 0, error="broke"),
              *(TrialRow(f"q{i}", "default", 0) for i in range(1, 4))]
    summary = summarize(errored, trials)
    assert summary_headline(summary).text == "No scores: every scorer errored on every answer."


@pytest.mark.parametrize("name", ["<script>", "a'b", "[bold]x[/bold]"])
def test_names_are_kept_as_plain_text_for_each_renderer_to_escape(name: str) -> None:
    found = conditions_headline(compare(("training", 20), (name, 40)))
    assert found is not None and f"'{name}'" in found.text


def review(conditions: tuple[str, ...], *, previous=None) -> Review:
    score_rows = [r for c in conditions for r in rows(c, 20 + 20 * (c != conditions[0]))]
    trials = [TrialRow(f"q{i}", c, 0) for c in conditions for i in range(60)]
    summary = summarize(score_rows, trials, ["judge"], list(conditions))
    comps = compare_conditions(collect_cases(score_rows), list(conditions))
    run = RunRecord("run-b", "exp", "eval", "completed", "2026-01-02T00:00:00")
    return Review(run=run, summary=summary, comparisons=comps, previous=previous, gates=[])


def test_a_review_leads_with_its_conditions_then_the_previous_run_then_its_score() -> None:
    assert review_headline(review(("training", "pack"), previous=diff(40, 20))).text.startswith(
        "'pack' is better than 'training'")
    since = review_headline(review(("pack",), previous=diff(40, 20)))
    assert since.outcome == "worse"
    assert since.text.startswith("This run is worse than the previous run (run-a) on judge")
    assert review_headline(review(("pack",))).text.startswith("One condition ('pack')")


def test_a_previous_run_sharing_no_metric_is_never_called_no_earlier_run() -> None:
    """Regression: a one-condition run over another dataset than the previous run, with no
    case id in common, opened with 'One condition ('pack') and no earlier run, so nothing
    to compare yet', two lines above 'NOT COMPARABLE: different dataset ... in run ...'
    and 'vs previous run ...: no metric in common'."""
    other_cases = collect_cases([ScoreRow(f"other{i}", "pack", 0, "judge", 1.0, True, None)
                                 for i in range(60)])
    cases = collect_cases(rows("pack", 20))
    refused = diff_runs(other_cases, cases, run_a=A, run_b=B,
                        problems=["different dataset: sha256 a in run run-a, b in run run-b"])
    found = review_headline(review(("pack",), previous=refused))
    assert found.outcome == "not comparable"
    assert found.text == ("This run cannot be compared with the previous run (run-a): "
                          "different dataset: sha256 a in run run-a, b in run run-b.")
    unmatched = review_headline(review(("pack",), previous=diff_runs(
        other_cases, cases, run_a=A, run_b=B)))
    assert unmatched.outcome == "no comparison"
    assert unmatched.text.startswith(
        "One condition ('pack') and no metric in common with the previous run (run-a), so "
        "nothing to compare: judge has pass rate 33.3%")
    assert "no earlier run" not in unmatched.text


def test_regression_the_headline_says_its_rates_are_over_the_cases_both_answered(
        tmp_path: Path) -> None:
    """Cases that errored under one condition are left out of the paired comparison: the
    sentence read 'pass rate 85.7% → 85.7%' beside a score table whose baseline read
    88.9%, with nothing to say the two were over different cases."""
    import assay

    data = [{"id": f"c{i}", "input": "x", "expected": "x"} for i in range(6)]

    def answer(case: assay.Case, condition: assay.Condition) -> str:
        if condition.name == "new" and case.id in ("c0", "c1"):
            raise RuntimeError("down")
        return "x" if case.id != "c5" else "y"

    assay.evaluate("excluded", data=data, task=answer, scorers=["exact_match"],
                   conditions={"base": {}, "new": {}}, store=tmp_path / "assay.db",
                   output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "pass rate 75.0% → 75.0% over the 4 cases scored on both sides, +0.0pp" in text
    assert "| exact_match | base | 6 |" in text  # the table's baseline: 83.3% over 6


def test_regression_cases_whose_judge_failed_are_not_called_unanswered() -> None:
    """A case both conditions answered, whose judge failed on every epoch of one, is left
    out: the sentence said 'over the 14 cases both answered' where 15 were answered."""
    from assay.analysis.conditions import ConditionComparisons, finish_family
    from assay.analysis.paired import compare_paired

    a = {f"q{i}": i < 2 for i in range(6)}
    b = {f"q{i}": None if i == 5 else i < 5 for i in range(6)}  # q5: the judge failed
    c = compare_paired(a, b, kind="pass_fail", label_a="base", label_b="pack", scorer="judge")
    found = conditions_headline(ConditionComparisons(entries=finish_family([c]), skipped=[],
                                                     alpha=0.05, baseline="base"))
    assert found is not None and "over the 5 cases scored on both sides" in found.text
    assert "answered" not in found.text


def test_a_run_of_two_conditions_none_could_be_compared_never_reads_as_one_condition() -> None:
    """Regression: a judge that errored on every answer of 'cand' and a check that errored
    on every answer of 'base' left no comparison to make; the sentence over the score
    table of both conditions read 'One condition ('base') and no earlier run, so nothing
    to compare yet'."""
    def scored(scorer: str, condition: str, error: str | None) -> list[ScoreRow]:
        return [ScoreRow(case_id=f"q{i}", condition=condition, epoch=0, scorer=scorer,
                         value=None if error else 1.0, passed=None if error else True,
                         error=error) for i in range(4)]

    cases = collect_cases(scored("judge", "base", None) + scored("judge", "cand", "timeout")
                          + scored("check", "base", "raised") + scored("check", "cand", None))
    found = conditions_headline(compare_conditions(cases, ["base", "cand"]))
    assert found is not None and found.outcome == "no comparison"
    assert found.text == (
        "No condition could be compared with 'base': judge: cand vs base: no case has a "
        "usable result on both sides (4 cases in base, 4 in cand: 4 errored in cand) "
        "(and 1 more comparison not made).")


def test_a_single_condition_score_with_verdicts_on_some_answers_only_reads_as_its_mean() -> None:
    """A 0-10 scorer that returns False for an empty answer (one of 10) opened with 'judge
    has pass rate 0.0% (95% CI 0%..79%, n=10)': the rate of the one verdict, beside the
    count of every case, where its comparisons read it on its mean."""
    graded = [ScoreRow(f"q{i}", "default", 0, "judge", 8.0, None, None, (0.0, 10.0))
              for i in range(9)]
    empty = [ScoreRow("q9", "default", 0, "judge", 0.0, False, None)]
    summary = summarize(graded + empty, [TrialRow(f"q{i}", "default", 0) for i in range(10)])
    text = summary_headline(summary).text
    assert text.startswith("One condition ('default') and no earlier run, so nothing to "
                           "compare yet: judge has mean 7.20 (95% CI ")
    assert text.endswith(", n=10).")
