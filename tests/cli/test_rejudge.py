"""`assay rejudge` on the command line: progress as `assay run` shows it, and Ctrl-C says how to
continue the rejudge it stopped."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from assay.store import Store
from assay.testing import FakeLLM
from tests.cli.evalproject import assay
from tests.rejudge.rejudge_project import CASES, judged, runs
from tests.terminal import interrupt_when, signalled_while

__all__ = ["judged"]


def test_progress_lines_are_shown_unless_no_progress_is_given(
        judged: tuple[Path, FakeLLM], capsys: pytest.CaptureFixture[str]) -> None:
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    code, out = assay(capsys, "rejudge", "latest", "-k", "1")
    assert code == 0 and f"planets (rejudge): {CASES}/{CASES} trials" in out, out
    code, out = assay(capsys, "rejudge", "latest~1", "-k", "1", "--no-progress")
    assert code == 0, out
    assert "(rejudge):" not in out and "results:" in out


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_says_how_to_resume_the_rejudge_and_the_resume_finishes_it(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    llm.latency = 0.1
    command = [sys.executable, "-m", "assay", "rejudge", "-k", "1", "-j", "1", "--no-progress"]
    store = Store(str(tmp_path / "assay.db"))

    def verdicts_stored() -> bool:
        latest = store.list_runs(kind="rejudge", limit=1)
        return bool(latest) and store.count_trials(latest[0].id)[0] >= 2

    code, stderr = interrupt_when(command, verdicts_stored, cwd=tmp_path, env=dict(os.environ))
    assert code == 130, stderr
    stopped = runs(tmp_path)[0]
    assert stopped.kind == "rejudge" and stopped.status == "interrupted"
    assert f"interrupted; resume with: assay rejudge --resume {stopped.id}" in stderr
    assert "Traceback" not in stderr
    llm.latency = 0.0
    code, out = assay(capsys, "rejudge", "--resume", "--no-progress")
    assert code == 0, out
    assert store.count_trials(stopped.id) == (CASES, 1)  # the broken case keeps its error
    resumed = store.get_run(stopped.id)
    assert resumed is not None and resumed.status == "completed"
    store.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("send", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_finished_rejudge_is_printed_exits_0_not_130(
        judged: tuple[Path, FakeLLM], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        send: str) -> None:
    """Ctrl-C or SIGTERM while the review of a rejudge was printed said 'interrupted' and
    exited 130, though the rejudge was complete and stored."""
    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    result = signalled_while("assay.reports.terminal.print_review",
                             ["assay", "rejudge", "-k", "1", "--no-progress"], send, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "interrupted" not in result.stderr and "Traceback" not in result.stderr
    assert runs(tmp_path)[0].status == "completed"


def test_a_signal_after_the_rejudge_is_stored_completed_says_so_and_exits_0(
        judged: tuple[Path, FakeLLM], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: Ctrl-C after the rejudge run was stored `completed`, before its exit code
    was fixed (as the event loop closed), said 'interrupted' and exited 130, though every
    verdict and file was written and nothing was left to resume."""
    from assay.rejudge import session

    config, _ = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    finished = session.rejudge

    def then_interrupted(*args: object, **kwargs: object) -> object:
        finished(*args, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(session, "rejudge", then_interrupted)
    code, out = assay(capsys, "rejudge", "-k", "1", "--no-progress")
    rejudged = runs(tmp_path)[0]
    assert rejudged.kind == "rejudge" and rejudged.status == "completed"
    assert code == 0, out
    assert (f"interrupted after rejudge run {rejudged.id} completed: every verdict and file is "
            f"written (`assay report {rejudged.id}` shows it)") in out, out


def test_a_failed_rejudge_names_its_own_run_to_resume_not_another_processs(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two rejudges of one experiment on one store: the failed one's 'resume with' named the
    experiment's latest rejudge run, which was the other's."""
    config, llm = judged
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    store = Store(str(tmp_path / "assay.db"))
    [judged_run] = store.list_runs(kind="eval")
    store.create_run(id="theirs", experiment="planets", kind="rejudge", status="aborted",
                     started_at="2999-01-01T00:00:00+00:00")  # the newest rejudge run
    llm.fault_rates["bad_request"] = 1.0
    code, out = assay(capsys, "rejudge", judged_run.id, "--no-progress", "-k", "1")
    [mine] = [run for run in store.list_runs(kind="rejudge") if run.id != "theirs"]
    store.close()
    assert code == 3, out
    assert f"resume with: assay rejudge --resume {mine.id}" in out
    assert "theirs" not in out


def test_a_failed_rejudge_on_a_store_named_on_the_command_line_says_how_to_resume_it_there(
        judged: tuple[Path, FakeLLM], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint left out --store, and the command it gave read the default store."""
    config, llm = judged
    monkeypatch.delenv("ASSAY_STORE")
    assert assay(capsys, "run", str(config), "--store", "team.db", "--no-progress")[0] == 0
    llm.fault_rates["bad_request"] = 1.0
    code, out = assay(capsys, "rejudge", "--store", "team.db", "--no-progress", "-k", "1")
    store = Store(str(tmp_path / "team.db"))
    [mine] = store.list_runs(kind="rejudge")
    store.close()
    assert code == 3, out
    assert f"resume with: assay rejudge --resume {mine.id} --store team.db" in out
