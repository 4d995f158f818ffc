"""User code named by a config: imported from a module or a file, and named as the config
names it when it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import UserError
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


def test_two_projects_with_a_module_of_the_same_name_each_get_their_own(tmp_path: Path) -> None:
    """Regression: a second config in the same process (a pytest session, a notebook) whose
    `agent:answer` lived in its own folder ran the first project's `agent.py`, unsaid."""
    for project, reply in (("one", "first"), ("two", "second")):
        (tmp_path / project / "agent_of_a_project").mkdir(parents=True)
        (tmp_path / project / "agent_of_a_project" / "__init__.py").write_text(
            f"def answer(case):\n    return {reply!r}\n")
    first = import_object("agent_of_a_project:answer", tmp_path / "one")
    second = import_object("agent_of_a_project:answer", tmp_path / "two")
    assert (first("q"), second("q")) == ("first", "second")
    assert import_object("agent_of_a_project:answer", tmp_path / "two") is second  # cached


@pytest.mark.parametrize(("reference", "module"), [("broken_import:answer", "broken_import.py"),
                                                  ("lib/agent.py:answer", "lib/agent.py")])
def test_an_import_that_fails_in_user_code_names_the_file_and_line(
        tmp_path: Path, reference: str, module: str) -> None:
    """Regression: 'cannot import function 'agent:answer': ModuleNotFoundError: No module named
    'nonexistent'' said neither which file of the user's nor which line asked for it."""
    (tmp_path / "lib").mkdir()
    (tmp_path / module).write_text("import json\n\nimport nonexistent_for_assay\n\n"
                                   "def answer(case):\n    return 'a'\n")
    with pytest.raises(UserError) as raised:
        import_object(reference, tmp_path)
    assert str(raised.value) == (
        f"cannot import function '{reference}': ModuleNotFoundError: No module named "
        f"'nonexistent_for_assay' ({module}, line 3)")


def test_an_import_error_raised_in_a_library_names_the_users_line_that_called_it(
        tmp_path: Path) -> None:
    (tmp_path / "calls_a_library.py").write_text(
        "import json\n\nSETTINGS = json.loads('{not json')\n")
    with pytest.raises(UserError) as raised:
        import_object("calls_a_library:answer", tmp_path)
    assert str(raised.value).endswith("(calls_a_library.py, line 3)")


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


def test_a_runs_error_met_while_it_stops_after_a_second_ctrl_c_is_no_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    """A second Ctrl-C while the PostgreSQL store did not answer printed 'unhandled
    exception during asyncio.run() shutdown' and the StoreError's whole traceback above
    the one line assay says of it: the run's task met it committing on the way out."""
    import asyncio

    from assay.errors import StoreError
    from assay.user_code.calls import run_loop

    async def run() -> None:
        async def second_ctrl_c() -> None:
            raise KeyboardInterrupt

        pressed = asyncio.create_task(second_ctrl_c())
        try:
            await asyncio.sleep(10)
        finally:
            del pressed
            raise StoreError("the store postgresql://db stopped answering")

    with pytest.raises(KeyboardInterrupt):
        run_loop(run())
    assert not [r for r in caplog.records if r.exc_info], caplog.text
