"""`import assay`: the public names, and only those, as a type checker sees them."""

from __future__ import annotations

from pathlib import Path

from tests.type_checked import mypy_errors


def test_a_misspelt_public_name_is_a_type_error_not_only_an_import_error(
        tmp_path: Path) -> None:
    """The lazy `__getattr__` that imports the public names on first use was seen by type
    checkers too, as returning Any for every name: `from assay import evalute` passed
    `mypy --strict` and failed when run."""
    errors = mypy_errors(tmp_path, "from assay import EvalResult, evaluate, evalute\n"
                                   "import assay\n\nassay.Scorre\n", "assay")
    assert errors == [
        'Module "assay" has no attribute "evalute"; maybe "evaluate"?  [attr-defined]',
        'Module has no attribute "Scorre"; maybe "Score" or "Scorer"?  [attr-defined]']


def test_what_a_result_holds_can_be_named_in_a_users_annotations(tmp_path: Path) -> None:
    """`EvalResult`'s summary, gates, run and trials had types a program could not import
    from `assay`, so a function taking a result's summary could not say so."""
    script = (
        "import assay\n"
        "from assay import (ConditionStats, CostBudgetSpent, GateResult, RunRecord,\n"
        "                   RunSummary, ScoreStats, TrialRecord)\n\n"
        "def read(result: assay.EvalResult) -> None:\n"
        "    summary: RunSummary = result.summary\n"
        "    scores: list[ScoreStats] = summary.scores\n"
        "    conditions: list[ConditionStats] = summary.conditions\n"
        "    gates: list[GateResult] = result.gates\n"
        "    run: RunRecord = result.run\n"
        "    trials: list[TrialRecord] = list(result.trials())\n"
        "    print(scores, conditions, gates, run, trials, CostBudgetSpent)\n")
    assert mypy_errors(tmp_path, script, "assay") == []
    import assay

    for name in ("ConditionStats", "CostBudgetSpent", "GateResult", "RunRecord",
                 "RunSummary", "ScoreStats", "TrialRecord"):
        assert getattr(assay, name).__name__ == name
