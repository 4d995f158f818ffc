"""`assay runs` and `assay history` in a narrow CI log: whole run ids, and runs that stopped silently."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from assay.case import Case
from assay.cli.runs import headline
from assay.output import Output
from assay.store import Store, schema
from assay.trial import TrialResult

from .evalproject import assay, write_project


def ago(**delta: float) -> str:
    return (datetime.now(UTC) - timedelta(**delta)).isoformat(timespec="microseconds")


def add_run(store: Store, run_id: str, *, started: str, status: str = "running",
            trials: int = 0) -> None:
    store.create_run(id=run_id, experiment="agent", status=status, started_at=started,
                     total_trials=10)
    if trials:
        store.write_trials(run_id, [TrialResult(Case(id=f"c{i}", input="q"), "default", 0,
                                                Output(text="a")) for i in range(trials)])


def test_run_ids_are_never_cut_at_80_columns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    store = str(tmp_path / "s.db")
    conditions = {"training-baseline": {"rate": 0.5}, "knowledge-pack": {"rate": 0.8}}
    for _ in range(2):
        config = write_project(tmp_path, conditions, cases=20,
                               name="knowledge-pack-go-expert-evaluation")
        code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                        "--output", str(tmp_path / "out"))
        assert code == 0
    ids = [run.id for run in Store(store).list_runs()]
    assert len(ids) == 2 and all(len(i) >= 20 for i in ids)
    code, listed = assay(capsys, "runs", "--store", store)
    assert code == 0
    assert all(run_id in listed for run_id in ids), listed
    assert "…" not in listed  # no cell cut: a table too wide is a list of lines
    code, history = assay(capsys, "history", "--store", store)
    assert code == 0
    assert all(run_id in history for run_id in ids), history


def test_a_running_run_without_progress_shows_as_running_with_a_resume_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = str(tmp_path / "s.db")
    store = Store(path)
    add_run(store, "20260101-000000-dead00", started=ago(minutes=42))  # killed: no trial
    add_run(store, "20260101-000000-busy00", started=ago(hours=3), trials=2)  # trials just now
    add_run(store, "20260101-000000-new000", started=ago(minutes=1))  # started a minute ago
    add_run(store, "20260101-000000-done00", started=ago(days=2), status="completed")
    store.close()
    code, text = assay(capsys, "runs", "--store", path)
    assert code == 0
    assert "running?" in text
    assert ("(no progress for 42m: killed? resume with --resume 20260101-000000-dead00)"
            in text)
    assert text.count("running?") == 2  # the table's cell and the hint, for the dead run only
    assert "--resume 20260101-000000-busy00" not in text
    code, text = assay(capsys, "runs", "--store", path, "--json")
    stale = {run["id"]: run["stale"] for run in json.loads(text)}
    assert stale == {"20260101-000000-dead00": True, "20260101-000000-busy00": False,
                     "20260101-000000-new000": False, "20260101-000000-done00": False}
    store = Store(path)
    assert store.get_run("20260101-000000-dead00").status == "running"  # a view, never a write
    store.close()


def test_a_run_that_did_not_complete_shows_how_many_of_its_trials_are_stored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an interrupted run with 2 of its 10 trials stored read `10`."""
    monkeypatch.setenv("COLUMNS", "200")
    path = str(tmp_path / "s.db")
    store = Store(path)
    add_run(store, "20260101-000000-half00", started=ago(hours=1), status="interrupted",
            trials=2)
    add_run(store, "20260101-000000-done00", started=ago(days=2), status="completed",
            trials=10)
    store.close()
    code, text = assay(capsys, "runs", "--store", path)
    assert code == 0
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if "│" in line}
    assert "2 of 10" in rows["20260101-000000-half00"]
    assert "of" not in rows["20260101-000000-done00"].split("│")[5]
    code, text = assay(capsys, "runs", "--store", path, "--json")  # it had no trial counts
    listed = {run["id"]: (run["trials"], run["trials_stored"]) for run in json.loads(text)}
    assert listed == {"20260101-000000-half00": (10, 2), "20260101-000000-done00": (10, 10)}


@pytest.mark.parametrize("command", [["runs"], ["history"], ["report", "latest"],
                                     ["compare"], ["export", "latest"], ["rejudge", "latest"],
                                     ["calibrate", "--list"]])
def test_a_store_path_with_a_typo_is_an_error_and_nothing_is_created(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay runs --store team.bd` made `team.bd` (and its folders) and said
    "no runs stored yet", exit 0, as if the team had never run an eval."""
    missing = tmp_path / "no" / "such" / "team.bd"
    code, printed = assay(capsys, *command, "--store", str(missing))
    assert code == 2 and f"no store at {missing}" in printed, printed
    assert not (tmp_path / "no").exists()



@pytest.mark.parametrize("command", [["runs"], ["history"], ["report", "latest"],
                                     ["compare"], ["export", "latest"], ["rejudge", "latest"],
                                     ["calibrate", "--list"]])
def test_an_empty_file_given_as_the_store_is_an_error_and_stays_empty(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay runs --store empty.db` over a zero-byte file wrote the store's
    tables into it and said "no runs stored yet", exit 0: a read command wrote."""
    empty = tmp_path / "empty.db"
    empty.touch()
    code, printed = assay(capsys, *command, "--store", str(empty))
    assert code == 2, printed
    assert f"the store {empty} is an empty file, not a store" in printed
    assert empty.stat().st_size == 0


@pytest.mark.parametrize("command", [["runs"], ["history"], ["report", "latest"],
                                     ["compare"], ["export", "latest"], ["rejudge", "latest"],
                                     ["calibrate", "--list"]])
def test_a_file_that_is_not_a_database_is_a_store_that_could_not_be_read(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every read command says the same of it, exit 3, and leaves it as it was."""
    notes = tmp_path / "notes.db"
    notes.write_text("not a database\n")
    code, printed = assay(capsys, *command, "--store", str(notes))
    assert code == 3, printed
    assert f"the store {notes} is not a readable SQLite database" in printed
    assert notes.read_text() == "not a database\n"

def test_runs_of_an_experiment_with_none_is_a_usage_error_as_in_history(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay runs typo` said "no runs stored yet", exit 0, beside a store full
    of runs (`assay history typo` said exit 2, no runs of experiment 'typo')."""
    store = Store(str(tmp_path / "s.db"))
    add_run(store, "r1", started=ago(minutes=1), status="completed")
    store.close()
    for command in ("runs", "history"):
        code, printed = assay(capsys, command, "agnet", "--store", str(tmp_path / "s.db"))
        assert code == 2 and "no runs of experiment 'agnet' in the store" in printed, printed


def test_a_finished_traces_analysis_is_not_listed_as_a_run_stopped_before_its_first_trial(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: an analysis of 90 questions (which stores no trials) read "0 of 90"."""
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="traces-1", experiment="traces", kind="traces", status="finished",
                     total_trials=90)
    store.close()
    code, printed = assay(capsys, "runs", "--store", str(tmp_path / "s.db"))
    assert code == 0 and "0 of 90" not in printed and " 90 " in printed, printed


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_a_usage_error_not_every_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str) -> None:
    """Regression: `assay runs -n 0` (and `-n -1`) listed every stored run."""
    store = Store(str(tmp_path / "s.db"))
    for index in range(3):
        add_run(store, f"r{index}", started=ago(minutes=index), status="completed")
    store.close()
    code, text = assay(capsys, "runs", "-n", limit, "--store", str(tmp_path / "s.db"))
    assert code == 2 and "--limit" in text
    assert "r0" not in text


def killed_and_live_runs(tmp_path: Path, *, status: str, started: str) -> str:
    """A store with two runs of this status held by a process on another machine: `kill00`'s
    stopped beating two minutes ago (killed), `live00`'s beat five seconds ago."""
    path = str(tmp_path / "s.db")
    store = Store(path)
    for run_id, beat in (("20260101-000000-kill00", ago(minutes=2)),
                         ("20260101-000000-live00", ago(seconds=5))):
        add_run(store, run_id, started=started, status=status)
        with store.engine.begin() as conn:
            conn.execute(schema.run_locks.insert().values(
                run_id=run_id, owner=run_id, pid=1, host="another-machine", pid_scope="x",
                taken_at=ago(minutes=3), heartbeat_at=beat))
    store.close()
    return path


@pytest.mark.parametrize(("status", "minutes_ago"), [("running", 3), ("reviewing", 120)])
def test_a_run_whose_lock_holder_is_gone_shows_at_once_with_a_question_mark_and_a_hint(
        status: str, minutes_ago: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After kill -9 a run read `running` for ten minutes, though its lock, left behind,
    already said its process had stopped beating; killed while the review wrote its report
    files, it read `reviewing` for good, with no word that its process was gone nor how to
    finish it. A run whose process still beats is left alone."""
    monkeypatch.setenv("COLUMNS", "200")
    path = killed_and_live_runs(tmp_path, status=status, started=ago(minutes=minutes_ago))
    code, text = assay(capsys, "runs", "--store", path)
    assert code == 0
    assert (f"{status}? 20260101-000000-kill00 (the process that ran it is gone: killed? "
            "resume with --resume 20260101-000000-kill00)") in text
    assert text.count(f"{status}?") == 2  # the table's cell and the hint, for the dead run
    assert "--resume 20260101-000000-live00" not in text
    code, text = assay(capsys, "runs", "--store", path, "--json")
    stale = {run["id"]: run["stale"] for run in json.loads(text)}
    assert stale == {"20260101-000000-kill00": True, "20260101-000000-live00": False}


def test_a_headline_mean_short_of_the_top_of_its_scale_never_reads_as_the_top() -> None:
    """Regression: a mean judge score of 9.996 out of 10 read `10` in `assay runs`."""
    summary = {"scores": [{"scorer": "judge", "condition": "a", "pass_rate": None,
                           "mean": 9.996, "scale": [0.0, 10.0]},
                          {"scorer": "judge", "condition": "b", "pass_rate": None,
                           "mean": 7.5, "scale": [0.0, 10.0]}]}
    assert headline(summary) == "judge: a 9.996 · b 7.50"


def test_a_headline_mean_without_its_scale_rounds_a_tie_away_from_zero_as_history_does(
) -> None:
    """A run stored without a scale: its mean of 0.5625 read `0.562` here, `0.563` in
    `assay history`."""
    summary = {"scores": [{"scorer": "judge", "condition": "a", "pass_rate": None,
                           "mean": 0.5625}]}
    assert headline(summary) == "judge: a 0.563"


def test_a_headline_says_how_many_trials_of_a_condition_errored() -> None:
    """Regression: a run where 3 of 15 trials of docs errored read `docs 100%` in `assay runs`,
    a clean run's figure (it is over the 12 scored), and a condition whose every trial
    errored was left out of the headline."""
    summary = {"scores": [{"scorer": "contains", "condition": "memory", "pass_rate": 0.2,
                           "errors": 0},
                          {"scorer": "contains", "condition": "docs", "pass_rate": 1.0,
                           "errors": 3},
                          {"scorer": "contains", "condition": "web", "pass_rate": None,
                           "mean": None, "errors": 15}]}
    assert headline(summary) == ("contains: memory 20% · docs 100% (3 errored trials) · "
                                 "web - (15 errored trials)")


def test_a_headline_says_its_errors_are_trials_beside_a_rate_over_cases() -> None:
    """Regression: `good 94% (4 errored)` of a run of 7 cases and 3 epochs read as 4 of its 7
    cases errored beside a rate of 94%; it was 4 of its 21 trials (one case every epoch, one
    case once), as report.md's 'errored trials' column says."""
    summary = {"scores": [{"scorer": "contains", "condition": "good", "pass_rate": 17 / 18,
                           "errors": 4},
                          {"scorer": "contains", "condition": "bad", "pass_rate": 0.3,
                           "errors": 1}]}
    assert headline(summary) == ("contains: good 94% (4 errored trials) · "
                                 "bad 30% (1 errored trial)")


def test_at_40_columns_every_run_is_listed_whole_with_its_headline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: in a narrow terminal the table cut the ids ('20261123-191030-ef0…') and
    dropped the experiment, start, trials and headline columns without a word."""
    monkeypatch.setenv("COLUMNS", "40")
    store = Store(str(tmp_path / "s.db"))
    add_run(store, "20260101-120000-abcdef", started=ago(hours=1), status="completed")
    store.update_run("20260101-120000-abcdef", summary={"scores": [
        {"scorer": "contains", "condition": "docs", "pass_rate": 0.8}]})
    store.close()
    code, listed = assay(capsys, "runs", "--store", str(tmp_path / "s.db"))
    assert code == 0
    assert ("20260101-120000-abcdef: experiment agent, status completed" in listed
            and "trials 10, headline contains: docs 80%" in listed), listed


def test_a_rejudge_run_is_listed_as_a_rejudge_beside_the_eval_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its headline is a judge's verdicts on an earlier run's answers: unmarked, it read as
    another run of the target beside the eval runs."""
    monkeypatch.setenv("COLUMNS", "200")
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    add_run(store, "20260101-000000-aaaaaa", started=ago(minutes=2), status="completed")
    store.create_run(id="20260101-000100-bbbbbb", experiment="agent", kind="rejudge",
                     status="completed", started_at=ago(minutes=1), total_trials=10)
    store.close()
    code, listed = assay(capsys, "runs", "--store", str(tmp_path / "s.db"))
    assert code == 0
    lines = {line.split()[1]: line for line in listed.splitlines() if "20260101" in line}
    assert "agent (rejudge)" in lines["20260101-000100-bbbbbb"]
    assert "(rejudge)" not in lines["20260101-000000-aaaaaa"]


def test_history_marks_a_run_that_has_probably_stopped_as_assay_runs_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After kill -9 `assay runs` read `running?` and `assay history` `running` for the same
    run, on the same store."""
    monkeypatch.setenv("COLUMNS", "200")
    path = str(tmp_path / "s.db")
    store = Store(path)
    add_run(store, "20260101-000000-dead00", started=ago(minutes=30))
    add_run(store, "20260101-000000-busy00", started=ago(minutes=1), trials=2)
    store.close()
    code, text = assay(capsys, "history", "agent", "--store", path)
    assert code == 0
    statuses = {line.split()[0]: line.split()[3] for line in text.splitlines()
                if line.strip().startswith("20260101")}
    assert statuses == {"20260101-000000-dead00": "running?",
                        "20260101-000000-busy00": "running"}
    code, text = assay(capsys, "history", "agent", "--store", path, "--json")
    [history] = json.loads(text)
    assert {run["id"]: (run["status"], run["stale"]) for run in history["runs"]} == {
        "20260101-000000-dead00": ("running", True), "20260101-000000-busy00": ("running", False)}
