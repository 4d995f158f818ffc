"""User code named by a config: imported from a module or a file, and named as the config
names it when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.user_code.calls import (
    UserCodeExit,
    describe_failure,
    guarded,
    import_object,
    reference_of,
)


def test_a_function_from_a_file_is_named_as_the_config_names_it_when_it_exits(
        tmp_path: Path) -> None:
    """Regression: the trial's error named the module assay made up to import the file,
    `assay_user_agent_9221742571477784074:answer called sys.exit(3)`."""
    (tmp_path / "agent.py").write_text("import sys\n\ndef answer(case):\n    sys.exit(3)\n")
    function = import_object("agent.py:answer", tmp_path)
    assert reference_of(function) == "agent.py:answer"
    with pytest.raises(UserCodeExit) as raised:
        guarded(function)("case")
    assert str(raised.value) == "agent.py:answer called sys.exit(3)"


def test_a_function_from_a_module_keeps_its_module_name(tmp_path: Path) -> None:
    (tmp_path / "helpers_for_naming.py").write_text("def answer(case):\n    return case\n")
    function = import_object("helpers_for_naming:answer", tmp_path)
    assert reference_of(function) == "helpers_for_naming:answer"


class Unprintable(Exception):
    """An exception whose text cannot be had: its `__str__` raises."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def test_an_exception_whose_text_cannot_be_read_is_described_by_its_type() -> None:
    """Regression: a target raising an exception whose `__str__` raises ended the whole run
    with "internal error: RuntimeError: no text for you", exit 3."""
    assert describe_failure(Unprintable()).startswith("Unprintable (its text could not be "
                                                      "read: RuntimeError: no text for you)")
    with pytest.raises(UserCodeExit) as raised:
        guarded(_leaves_with_unprintable)("case")
    assert "raised UnprintableExit" in str(raised.value)


class UnprintableExit(BaseException):
    def __str__(self) -> str:
        raise RuntimeError("no text either")


def _leaves_with_unprintable(case: str) -> str:
    raise UnprintableExit
