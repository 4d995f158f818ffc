"""Ctrl-C and SIGTERM from the first instant of `assay` to the last: 130 while it works, the
command's own exit code once it is known, never a traceback or a death by the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.cli.run import Running, after_ctrl_c
from assay.store import Store
from tests.terminal import as_at_a_terminal, interrupt_when

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

INTERRUPTED_IMPORTING = """
import sys

class CtrlCWhileImporting:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, CtrlCWhileImporting())
sys.argv = ["assay", "run", "assay.yaml"]
from assay.cli import main
main()
"""


@pytest.mark.parametrize("module", ["click", "assay.redaction", "assay.cli.run"])
def test_ctrl_c_while_assay_starts_up_exits_130_without_a_traceback(
        tmp_path: Path, module: str) -> None:
    """Ctrl-C in the first tenth of a second (click and the command being imported, before
    the handler of `main`) printed a KeyboardInterrupt traceback and Python ended by
    SIGINT."""
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORTING.format(module=module)], cwd=tmp_path,
        capture_output=True, text=True, timeout=60, preexec_fn=as_at_a_terminal)
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == "interrupted"


def test_importing_the_command_line_imports_nothing_before_main_handles_ctrl_c() -> None:
    """What `assay` imports before `main` runs is imported unguarded: only the standard
    library's smallest modules, not click or typing."""
    code = ("import sys; before = set(sys.modules); import assay.cli; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60, check=True)
    imported = set(result.stdout.split())
    assert {"assay", "assay.cli"} <= imported
    assert not imported & {"click", "typing", "assay.errors", "assay.cli.termination"}


SLOW_TO_SHUT_DOWN = """
import atexit, pathlib, time


def _shutting_down():
    pathlib.Path("shutting-down").touch()
    time.sleep(3)


atexit.register(_shutting_down)


def answer(case):
    return case.expected
"""


@pytest.mark.parametrize("send", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_after_the_run_completed_exits_0_not_by_the_signal(
        tmp_path: Path, send: signal.Signals) -> None:
    """SIGTERM while assay shut down after a completed run ended it by the signal (143 in a
    shell), Ctrl-C in a KeyboardInterrupt traceback: the run was stored `completed`."""
    (tmp_path / "agent.py").write_text(SLOW_TO_SHUT_DOWN)
    (tmp_path / "cases.jsonl").write_text(json.dumps({"id": "c1", "input": "q",
                                                      "expected": "y"}) + "\n")
    (tmp_path / "assay.yaml").write_text(
        "name: ending\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\nscorers: [{type: exact_match}]\n")
    env = {**os.environ, "ASSAY_STORE": str(tmp_path / "s.db"), "COLUMNS": "160"}
    started = time.monotonic()
    code, stderr = interrupt_when(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
        lambda: (tmp_path / "shutting-down").exists(), cwd=tmp_path, env=env, send=send)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "interrupted" not in stderr
    assert time.monotonic() - started < 30  # it ended at the signal, not after the sleep


def _gated_run(store: Store, run_id: str, *, passed: bool, status: str = "completed") -> None:
    gate = {"gate": "exact_match pass rate >= 0.5", "passed": passed, "detail": ""}
    store.create_run(id=run_id, experiment="ending", status=status, finished_at="2026-01-01")
    store.update_run(run_id, review={"gates": [gate]})


@pytest.mark.parametrize(("passed", "code"), [(True, 0), (False, 1)])
def test_ctrl_c_after_this_commands_run_completed_exits_with_its_verdict(
        tmp_path: Path, passed: bool, code: int) -> None:
    """Ctrl-C while the results were printed (the run stored `completed`) said
    'interrupted' and exited 130."""
    store = Store(str(tmp_path / "s.db"))
    _gated_run(store, "earlier", passed=True)
    running = Running(Path("assay.yaml"), store)
    assert after_ctrl_c(store, running) == ("interrupted", 130)  # nothing of this command's yet
    running.hold("mine")  # as the runner does, before the run's row is made
    _gated_run(store, "mine", passed=passed, status="running")
    assert after_ctrl_c(store, running) == ("interrupted", 130)
    store.update_run("mine", status="completed")
    assert after_ctrl_c(store, running) == (
        ("interrupted after run mine completed: every trial and file is written "
        "(`assay report mine` shows it)"), code)
    assert after_ctrl_c(store, running, suite=True) == ("interrupted", 130)
    store.close()


def test_a_run_of_the_experiment_another_process_completed_is_not_this_commands(
        tmp_path: Path) -> None:
    """It was read as this command's run (the experiment's latest): Ctrl-C exited with
    its verdict, 0, and named no run of this command's to resume."""
    store = Store(str(tmp_path / "s.db"))
    running = Running(Path("assay.yaml"), store)
    running.hold("mine")
    _gated_run(store, "mine", passed=True, status="interrupted")
    _gated_run(store, "theirs", passed=True)
    assert after_ctrl_c(store, running) == (
        "interrupted; resume with: assay run assay.yaml --resume mine", 130)
    store.close()


def test_a_completed_run_this_command_only_resumed_to_write_its_files_is_not_completed_anew(
        tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.db"))
    _gated_run(store, "repaired", passed=True)
    running = Running(Path("assay.yaml"), store)
    running.hold("repaired")
    assert after_ctrl_c(store, running) == ("interrupted", 130)
    store.close()


def test_ctrl_c_while_the_store_does_not_answer_is_still_an_interruption_naming_the_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C twice while a PostgreSQL store did not answer ended in 'error: the store ...
    stopped answering', exit 3, with no word of the run to resume: saying what was
    interrupted asked the store again."""
    from assay.errors import StoreError

    store = Store(str(tmp_path / "s.db"))
    running = Running(Path("assay.yaml"), store)
    running.hold("mine")

    asked: list[str] = []

    def silent(run_id: str) -> None:
        asked.append(run_id)
        raise StoreError("the store postgresql://db stopped answering (no answer to a "
                         "statement before assay was stopped)")

    monkeypatch.setattr(store, "get_run", silent)
    assert after_ctrl_c(store, running) == (
        ("interrupted; the store postgresql://db stopped answering (no answer to a statement "
        "before assay was stopped), so the run is not marked interrupted; once the store "
        "works again, resume with: assay run assay.yaml --resume mine"), 130)
    assert asked == ["mine"]  # asked once: each question of a store that does not answer waits
    store.close()
