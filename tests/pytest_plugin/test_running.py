"""`run_eval` (behind the `assay_eval` fixture): a config path that is not a readable file is
a UserError naming it, as on the command line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.pytest_plugin.running import run_eval


@pytest.mark.parametrize(("name", "says"), [
    ("missing.yaml", "config file not found"),
    ("folder", "is a directory, not a file"),
    ("x" * 300 + ".yaml", "cannot open config file"),
])
def test_a_config_path_that_is_no_readable_file_is_a_user_error(
        tmp_path: Path, name: str, says: str) -> None:
    """Regression: a name too long for the file system raised OSError from Path.is_file."""
    (tmp_path / "folder").mkdir()
    with pytest.raises(UserError, match=says):
        run_eval(name, {}, base_dir=tmp_path, store=str(tmp_path / "assay.db"), gates=[])


def test_gates_given_as_one_string_are_refused_not_read_letter_by_letter(
        tmp_path: Path) -> None:
    arguments = {"experiment": "gates", "data": [{"input": "a", "expected": "a"}],
                 "task": "x:y", "scorers": ["exact_match"], "gates": "exact_match"}
    with pytest.raises(UserError, match="gates must be a list"):  # was a ValueError of dict()
        run_eval(None, arguments, base_dir=tmp_path, store=str(tmp_path / "assay.db"),
                 gates=[])


@pytest.mark.parametrize("config", ["assay.yaml", None])
def test_in_an_async_test_either_form_says_how_to_run_the_eval_there(
        tmp_path: Path, config: str | None) -> None:
    """`assay.evaluate` arguments were refused as `assay.evaluate()` calls, naming neither the
    fixture nor `assert_eval`; a config path was told to use `evaluate_async`, which takes none."""
    (tmp_path / "assay.yaml").write_text("name: x\n", encoding="utf-8")
    arguments = {} if config else {"experiment": "x", "data": [{"input": "a"}], "task": "x:y",
                                   "scorers": ["exact_match"]}

    async def in_an_async_test() -> None:
        run_eval(config, arguments, base_dir=tmp_path, store=str(tmp_path / "assay.db"),
                 gates=[])

    with pytest.raises(UserError, match=r"^assay_eval cannot block .* make the test a plain"):
        asyncio.run(in_an_async_test())
