"""What the judges' scores add up to beyond the score table: unstable verdicts, repeats."""

from __future__ import annotations

import asyncio

from assay.analysis.judgements import read_judgements
from assay.score import Score
from assay.scorers.judges.pairwise import PairwiseJudge
from tests.scorers.judges.judge_fakes import ScriptedProvider, case, make_judge


def _repeated(passes: list[bool]) -> Score:
    return Score(value=float(sum(passes)) / len(passes), passed=passes[0],
                 details={"judge_model": "m", "unstable": len(set(passes)) > 1,
                          "judgements": [{"value": float(p), "passed": p} for p in passes]})


def test_regression_unstable_trials_name_their_epoch_from_one_as_every_report_does() -> None:
    """They read `c1` for the first epoch and `c1#1` for the second."""
    scores = [(("c1", "a", 0), "judge", _repeated([True, False])),
              (("c1", "a", 1), "judge", _repeated([False, True])),
              (("c2", "a", 0), "judge", _repeated([True, True]))]
    findings = read_judgements(scores, epochs=2)
    assert findings.unstable[0].cases == ("c1 (epoch 1 of 2)", "c1 (epoch 2 of 2)")
    (consistency,) = findings.consistency
    assert consistency.unstable == ("c1 · a · epoch 1 of 2", "c1 · a · epoch 2 of 2")


def test_a_run_of_one_epoch_names_its_trials_by_case_alone() -> None:
    findings = read_judgements([(("c1", "a", 0), "judge", _repeated([True, False]))], epochs=1)
    assert findings.unstable[0].cases == ("c1",)


def _pair_verdict(replies: list[str], *, repeats: int) -> Score:
    """A pairwise judge's score of one pair, as the scorer stores it, from scripted replies
    (the first order's asks take the first replies)."""
    judge = make_judge("pairwise", ScriptedProvider(replies), repeats=repeats, parse_retries=0)
    assert isinstance(judge, PairwiseJudge)
    return asyncio.run(judge.judge_pair(case(), "answer a", "answer b", against="base"))


def test_an_errored_pairwise_verdict_is_no_repeated_judgement_of_one_answer() -> None:
    """Its judgements are the two orders (each asked `repeats` times), not asks of one
    question: read as repeats they put a 'pairwise: answers 0, asks 2' row in the judge's
    self-consistency and a 'pairwise · b: epochs 0, asks 0' row in the variance split."""
    neither = _pair_verdict(["no choice"], repeats=1)
    first_order_only = _pair_verdict(["A", "A", "A", "no choice"], repeats=3)
    assert neither.error and first_order_only.error
    scores = [(("c1", "b", 0), "pairwise", neither),
              (("c2", "b", 0), "pairwise", first_order_only),
              (("c1", "b", 0), "judge", _repeated([True, False]))]
    findings = read_judgements(scores, pair_baselines={"pairwise": "a"}, conditions=["a", "b"],
                               epochs=1)
    assert [c.scorer for c in findings.consistency] == ["judge"]
    assert [scorer for scorer, _ in findings.variance] == ["judge"]
    (pairs,) = findings.pairwise
    assert (pairs.n, pairs.errored) == (0, 2)


def test_a_rubric_s_metrics_are_listed_in_the_rubric_s_order_not_alphabetically() -> None:
    """The default rubric reads factual adherence, completeness, helpfulness, as the judge
    is asked; the report listed completeness first."""
    metrics = {"factual_adherence": 4.0, "completeness": 3.0, "helpfulness": 5.0}
    scores = [((case_id, condition, 0), "rubric",
               Score(value=4.0, scale=(1.0, 5.0), passed=False,
                     details={"judge_model": "m", "metrics": metrics,
                              "unverified_claims": []}))
              for condition in ("training", "pack") for case_id in ("c1", "c2")]
    findings = read_judgements(scores, conditions=["training", "pack"])
    assert [(m.condition, m.metric) for m in findings.metrics] == [
        ("training", "factual_adherence"), ("training", "completeness"),
        ("training", "helpfulness"), ("pack", "factual_adherence"), ("pack", "completeness"),
        ("pack", "helpfulness")]
