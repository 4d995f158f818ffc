"""Two runs compared: flips per case, and every reason two runs cannot be compared."""

from __future__ import annotations

from assay.analysis.conditions import collect_cases
from assay.analysis.run_diff import RunRef, comparability, diff_runs, scorer_changes

from .test_conditions import row

A = RunRef("run-a", "exp", "2026-01-01T00:00:00", "hash-1")
B = RunRef("run-b", "exp", "2026-01-02T00:00:00", "hash-1")


def test_newly_failing_and_newly_passing_cases_are_named() -> None:
    before = collect_cases([row(f"q{i}", "pack", 8, True) for i in range(6)]
                           + [row("q6", "pack", 3, False)])
    after = collect_cases([row(f"q{i}", "pack", 8 if i > 1 else 3, i > 1) for i in range(6)]
                          + [row("q6", "pack", 9, True)])
    diff = diff_runs(before, after, run_a=A, run_b=B)
    [entry] = diff.entries
    assert entry.comparison.label_a == "run-a@pack"
    document = diff.to_dict()["comparisons"][0]
    assert document["condition"] == "pack"
    assert document["newly_failing"] == ["q0", "q1"] and document["newly_passing"] == ["q6"]
    assert diff.comparable and diff.to_dict()["run_a"]["id"] == "run-a"


def test_scorers_and_conditions_in_one_run_only_are_noted_not_compared() -> None:
    before = collect_cases([row("q1", "pack", 8, True), row("q1", "old", 8, True),
                            row("q1", "pack", 1, True, scorer="gone", scale=(0, 1))])
    after = collect_cases([row("q1", "pack", 8, True), row("q1", "new", 8, True)])
    diff = diff_runs(before, after, run_a=A, run_b=B)
    assert [e.comparison.label_b for e in diff.entries] == ["run-b@pack"]
    assert sorted(diff.notes) == sorted(["scorer gone only in run run-a",
                                         "judge: condition new only in run run-b",
                                         "judge: condition old only in run run-a"])


def judged(model: str, prompt: str) -> dict[str, set[tuple[str | None, str | None]]]:
    return {"judge": {(model, prompt)}}


def test_the_same_dataset_and_judge_are_comparable() -> None:
    judges = judged("openai/gpt-4.1", "abc")
    assert comparability(A, B, judges, judges) == []


def test_a_different_dataset_judge_model_or_prompt_is_named() -> None:
    other = RunRef("run-b", "exp", "2026-01-02T00:00:00", "hash-2")
    problems = comparability(A, other, judged("openai/gpt-4.1", "abc"),
                             judged("anthropic/claude", "def"))
    assert len(problems) == 3
    assert problems[0].startswith("different dataset: sha256 hash-1 in run run-a, hash-2")
    assert "judge: different judge model: openai/gpt-4.1 in run run-a" in problems[1]
    assert "judge: different judge prompt: hash abc in run run-a, def in run run-b" == problems[2]


def test_a_diff_prints_as_what_it_compared_and_found_not_as_every_field() -> None:
    # and one comparison as one: it printed '1 comparisons'
    # issue case: `result.previous` printed as a raw dump of every nested dataclass
    cases = collect_cases([row(f"q{i}", "pack", 8, True) for i in range(4)])
    diff = diff_runs(cases, cases, run_a=A, run_b=B)
    assert repr(diff) == "<RunDiff run run-a -> run-b: 1 comparison, 0 significant>"


def test_a_scorer_defined_differently_under_the_same_name_is_named() -> None:
    contains = {"type": "contains", "value": "{{ expected }}"}
    regex = {"type": "regex", "pattern": "^zzz$"}
    assert scorer_changes({"quality": contains}, {"quality": contains}, A, B) == []
    assert scorer_changes({"quality": contains}, {"other": regex}, A, B) == []
    [problem] = scorer_changes({"quality": contains}, {"quality": regex}, A, B)
    assert problem == ("quality: defined differently: type 'contains' in run run-a, 'regex' in "
                       "run run-b; pattern - in run run-a, '^zzz$' in run run-b; value "
                       "'{{ expected }}' in run run-a, - in run run-b")


def test_judge_models_that_differ_only_past_24_characters_are_named_in_full() -> None:
    """They read 'anthropic/claude-opus-4- in run run-a, anthropic/claude-sonnet- in run
    run-b', and two versions of one model as the same name."""
    [problem] = comparability(A, B, judged("anthropic/claude-opus-4-5", "abc"),
                              judged("anthropic/claude-opus-4-1", "abc"))
    assert problem == ("judge: different judge model: anthropic/claude-opus-4-5 in run run-a, "
                       "anthropic/claude-opus-4-1 in run run-b")


def test_a_judge_prompt_is_named_by_the_first_digits_of_its_hash() -> None:
    [problem] = comparability(A, B, judged("openai/gpt-4.1", "a" * 64),
                              judged("openai/gpt-4.1", "b" * 64))
    assert problem == (f"judge: different judge prompt: hash {'a' * 12} in run run-a, "
                       f"{'b' * 12} in run run-b")


def test_a_run_with_no_scores_is_noted_as_such_not_as_a_run_without_the_scorer() -> None:
    """Regression: against a run stopped before its first trial, the note read 'scorer
    judge only in run run-b', as if run A's config had no such scorer."""
    after = collect_cases([row("q1", "pack", 8, True)])
    diff = diff_runs({}, after, run_a=A, run_b=B)
    assert diff.notes == ["scorer judge: run run-a has no scores to compare with"]
    assert diff_runs(after, {}, run_a=A, run_b=B).notes == [
        "scorer judge: run run-b has no scores to compare with"]


def test_two_runs_whose_values_lie_on_different_scales_are_bounded_by_both() -> None:
    """A run graded on 0..10 and the next on 0..1 under one name: the differences are
    bounded by the scale holding both runs' values, never by the later run's alone (which
    put the interval of a -6.7 change at -1..)."""
    on_ten = collect_cases([row(f"q{i}", "pack", 7.0 + i % 3 / 10) for i in range(8)])
    on_one = collect_cases([row(f"q{i}", "pack", 0.5 + i / 100, scale=(0, 1))
                            for i in range(8)])
    [entry] = diff_runs(on_ten, on_one, run_a=A, run_b=B).entries
    c = entry.comparison
    assert c.delta_mean < -6
    assert c.ci_mean.low < c.delta_mean < c.ci_mean.high
