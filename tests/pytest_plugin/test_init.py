"""`assay.pytest_plugin`: the names a test imports, and only those, as a type checker sees them."""

from __future__ import annotations

from pathlib import Path

from tests.type_checked import mypy_errors


def test_a_typed_test_names_the_fixture_and_a_misspelt_name_is_a_type_error(
        tmp_path: Path) -> None:
    """`EvalRunner`, the fixture's type, could not be imported from the package; and the
    lazy `__getattr__` read as returning Any for every name, so `mypy --strict` passed an
    import of it (or of `assert_evals`) that failed when the test ran."""
    script = ("from assay.pytest_plugin import EvalFailed, EvalRunner, assert_eval, "
              "assert_evals\n\n\n"
              "def test_bot(assay_eval: EvalRunner) -> None:\n"
              "    assert_eval(assay_eval('assay.yaml'))\n")
    errors = mypy_errors(tmp_path, script, "assay.pytest_plugin")
    assert errors == [('Module "assay.pytest_plugin" has no attribute "assert_evals"; maybe '
                       '"assert_eval"?  [attr-defined]')]
    from assay.pytest_plugin import EvalRunner
    from assay.pytest_plugin.plugin import EvalRunner as defined

    assert EvalRunner is defined
