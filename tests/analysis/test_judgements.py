"""What the judges' scores add up to beyond the score table: unstable verdicts, repeats."""

from __future__ import annotations

from assay.analysis.judgements import read_judgements
from assay.score import Score


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
