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
