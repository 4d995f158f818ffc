"""`assay report RUN`: what it renders, and what it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.case import Case
from assay.output import Output
from assay.records import RunRecord
from assay.store import Store, schema
from assay.store.stalled_runs import Stalled
from assay.trial import TrialResult

from .evalproject import assay, assay_apart, report_and_largest_write, results, write_project


@pytest.mark.parametrize("fmt", ["md", "json", "junit", "html"])
def test_a_traces_analysis_is_refused_not_rendered_as_an_eval_with_no_scores(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of an analysis of 90 questions said "No scores: the run has
    no scored trial", and its JUnit file "0 tests", exit 0."""
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="traces-1", experiment="traces", kind="traces", status="finished",
                     total_trials=90)
    store.close()
    code, printed = assay(capsys, "report", "traces-1", "--store", str(tmp_path / "s.db"),
                          "--format", fmt)
    assert code == 2, printed
    assert "traces-1 is a traces analysis: its report is the eval-report.md" in printed


@pytest.mark.parametrize("command", [("report",), ("compare",), ("export", "-o", "out")])
def test_after_a_traces_analysis_the_default_run_is_the_latest_eval_run(
        command: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report`, `compare` and `export` after `assay traces` refused ('run
    traces-... is a traces analysis'), exit 2, with the eval runs they meant stored."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"a": {"rate": 1.0}, "b": {"rate": 0.5}}, cases=6)
    for _ in range(2):
        assert assay(capsys, "run", str(config), "--no-progress")[0] in (0, 1)
    store = Store(str(tmp_path / ".assay" / "assay.db"))
    store.create_run(id="traces-1", experiment="traces", kind="traces", status="finished")
    store.close()
    code, printed = assay(capsys, *command)
    assert code == 0, printed
    assert "traces-1" not in printed


def _killed_run(path: Path, config: dict[str, object]) -> str:
    """A store holding run r1, killed with kill -9 after 3 of its 10 trials: marked running,
    its lock left by a process gone from this machine. Its store's URL."""
    store = Store(str(path / "s.db"))
    store.create_run(id="r1", experiment="e", status="running", total_trials=10,
                     config=config)
    store.write_trials("r1", [TrialResult(Case(id=f"c{i}", input="q"), "a", 0,
                                          Output(text="x")) for i in range(3)])
    with store.engine.begin() as conn:
        conn.execute(schema.run_locks.insert().values(
            run_id="r1", owner="gone", pid=1, host="another-machine", pid_scope="x",
            taken_at="2026-01-01T00:00:00+00:00", heartbeat_at="2026-01-01T00:00:00+00:00"))
    store.close()
    return str(path / "s.db")


def test_a_killed_run_is_reported_as_what_it_stored_with_why_it_stopped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of a run killed with kill -9 read '- run: `r1` (running)'
    and its numbers as if a run were under way, where `assay runs` said `running?` and how
    to resume it."""
    _killed_run(tmp_path, {"name": "e"})
    code, printed = assay(capsys, "report", "r1", "--store", str(tmp_path / "s.db"),
                          "--format", "json")
    assert code == 0, printed
    assert ("note: run r1 is not completed (marked running, but the process that ran it is "
            "gone: killed? resume with --resume r1); this report shows the 3 of 10 trials "
            "stored so far") in printed


@pytest.mark.parametrize("fmt", ["md", "junit"])
def test_a_killed_runs_report_never_says_the_run_is_running(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of a run killed with kill -9 failed its gate with 'not
    passed: the run is running, judged on the 3 of 10 trials that ran', and its JUnit ended
    'the run is running (3 of 10 trials ran)', where `assay runs` said `running?`: nothing
    runs it, and the report did not say how to resume it."""
    store = _killed_run(tmp_path, {"name": "e", "scorers": [{"type": "exact"}], "gates": [
        {"scorer": "exact", "min_pass_rate": 0.5}]})
    code, printed = assay(capsys, "report", "r1", "--store", store, "--format", fmt)
    assert code == 0, printed
    said = ("marked running, but the process that ran it is gone: killed? resume with "
            "--resume r1")
    if fmt == "md":
        assert f"not passed: judged on the 3 of 10 trials that ran, and the run is {said}" \
            in printed
    else:
        assert f'<error message="the run is {said} (3 of 10 trials ran)"' in printed
    assert "the run is running" not in printed


def test_a_killed_runs_junit_report_reads_whether_its_process_is_gone_once_per_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The run's lock and last trial were read for its status by the note, by its review
    and again by the JUnit writer; the review's reading (`Review.status_said`) now serves
    the JUnit ending too."""
    from assay.store import stalled_runs as stalled

    store = _killed_run(tmp_path, {"name": "e", "scorers": [{"type": "exact"}]})
    reads: list[str] = []
    real = stalled.stalled_runs

    def counted(store: Store, runs: list[RunRecord]) -> dict[str, Stalled]:
        reads.extend(run.id for run in runs)
        return real(store, runs)

    monkeypatch.setattr(stalled, "stalled_runs", counted)
    code, printed = assay(capsys, "report", "r1", "--store", store, "--format", "junit")
    assert code == 0, printed
    assert "the run is marked running, but the process that ran it is gone" in printed
    assert reads == ["r1", "r1"]  # the note printed first, then the review


def test_an_interrupted_rejudge_is_reported_with_its_own_resume_and_without_the_gates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of a rejudge stopped by Ctrl-C said 'resume with: assay run
    assay.yaml --resume RJ', which refuses a rejudge, and failed it by the gates of the run
    it judged again ('gates: FAIL (0 of 2 passed)', one on a scorer it does not judge 'no
    results for this condition'), where a rejudge that completes is judged by none."""
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="rj1", experiment="e", kind="rejudge", status="interrupted",
                     total_trials=10, config_path="assay.yaml", config={
                         "name": "e", "scorers": [{"type": "exact"}, {"type": "judge_score"}],
                         "gates": [{"scorer": "exact", "min_pass_rate": 0.5},
                                   {"scorer": "judge_score", "min_mean": 5}]})
    store.write_trials("rj1", [TrialResult(Case(id=f"c{i}", input="q"), "a", 0,
                                           Output(text="x")) for i in range(3)])
    store.close()
    for fmt in ("md", "junit"):
        code, printed = assay(capsys, "report", "rj1", "--store", str(tmp_path / "s.db"),
                              "--format", fmt)
        assert code == 0, printed
        assert "resume with: assay rejudge --resume rj1" in printed
        assert "assay run" not in printed and "gates" not in printed.lower(), printed


def test_a_file_name_that_is_not_utf8_is_echoed_as_the_terminal_shows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report -o NAME`, NAME with a byte that is not UTF-8, said
    'wrote r\\udcff.md', Python's escape of the byte, not the name."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    write_project(tmp_path, {"v1": {"rate": 0.5}}, cases=3)
    assert assay(capsys, "run", "assay.yaml", "--no-progress")[0] == 0
    name = os.fsdecode(b"r\xff.md")
    code, _out, err = assay_apart(capsys, "report", "latest", "-o", name)
    assert code == 0, err
    assert err.splitlines() == ["wrote r\ufffd.md"]
    assert os.path.exists(os.fsencode(tmp_path) + b"/r\xff.md")


def _slowed(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> None:
    """`module.name` made to take 0.3 s, as a big run's reading does, before it answers."""
    import importlib
    import time

    owner = importlib.import_module(module)
    original = getattr(owner, name)

    def slow(*args: object, **kwargs: object) -> object:
        time.sleep(0.3)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, slow)


@pytest.mark.parametrize("command", [("report", "-o", "-"), ("compare", "--json")])
def test_a_slow_read_of_a_big_run_says_on_stderr_that_it_is_working(
        command: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` of a 500,000-trial run was silent for 50 s, and `assay
    compare` of two for 22 s, as if hung. The notice stays out of stdout, the report."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"a": {"rate": 1.0}, "b": {"rate": 0.5}}, cases=6)
    for _ in range(2):
        assert assay(capsys, "run", str(config), "--no-progress")[0] in (0, 1)
    [latest, before] = [run.id for run in Store(".assay/assay.db").list_runs()]
    monkeypatch.setenv("ASSAY_PROGRESS_SECONDS", "0.05")
    _slowed(monkeypatch, "assay.review.finish", "review_stored")
    _slowed(monkeypatch, "assay.review.comparing", "diff_stored_runs")

    code, out, err = assay_apart(capsys, *command)
    assert code == 0, err
    notice = (f"run {latest}: reviewing 12 trials (summary, comparisons, the previous run's "
              "diff, the md report)" if command[0] == "report" else
              f"runs {before} and {latest}: comparing 24 trials (per metric and per case)")
    doing = command[0] == "report" and "reviewing" or "comparing"
    assert err.splitlines()[0] == notice
    assert f"still {doing}, 0s so far" in err and doing not in out

    code, out, err = assay_apart(capsys, *command, "--no-progress")
    assert code == 0 and doing not in err


def test_a_slow_export_of_a_big_run_says_on_stderr_that_it_is_working(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay export` of a 500,000-trial run was silent for 52 s."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"a": {"rate": 1.0}, "b": {"rate": 0.5}}, cases=6)
    assert assay(capsys, "run", str(config), "--no-progress")[0] in (0, 1)
    [run] = Store(".assay/assay.db").list_runs()
    monkeypatch.setenv("ASSAY_PROGRESS_SECONDS", "0.05")
    _slowed(monkeypatch, "assay.export.writing", "export_eee")

    code, out, err = assay_apart(capsys, "export", "-o", "out")
    assert code == 0, err
    assert err.splitlines()[0] == (f"run {run.id}: exporting 12 trials (aggregate and instance "
                                   "files, each checked against its schema)")
    assert "still exporting, 0s so far" in err and "exporting" not in out
    code, out, err = assay_apart(capsys, "export", "-o", "out", "--no-progress")
    assert code == 0 and "exporting" not in err


def test_an_html_report_is_written_as_it_is_made_not_held_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the page was built as one string before a byte was written, so `assay
    report -f html` of a 500,000-trial run peaked at 1 GB."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"a": {"rate": 1.0}, "b": {"rate": 0.5}}, cases=200)
    assert assay(capsys, "run", str(config), "--no-progress")[0] in (0, 1)
    page, largest = report_and_largest_write(monkeypatch, "html")
    assert "</html>" in page and largest < len(page) / 2


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_report_reads_the_run_in_one_pass_and_the_run_before_it_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        fmt: str) -> None:
    """Regression: `assay report` of a 500,000-trial run read it four times over (its rows
    for the summary, again for the comparisons, its judged scores twice, its whole trials
    for the report) and took 46 s; report.md and results.json now take all of it from
    the one pass over its trials that they need anyway."""
    from tests.store.counted_reads import count_run_reads, reads_of

    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"plain": {"rate": 0.5}, "tools": {"rate": 0.8}})
    ids = []
    for index in range(2):
        code, _ = assay(capsys, "run", str(config), "--store", str(tmp_path / "s.db"),
                        "--output", str(tmp_path / f"out{index}"), "--no-progress")
        assert code == 0
        ids.append(results(tmp_path / f"out{index}")["run"]["id"])
    reads = count_run_reads(monkeypatch)
    code, _ = assay(capsys, "report", "--store", str(tmp_path / "s.db"), "-f", fmt,
                    "-o", str(tmp_path / f"report.{fmt}"))
    assert code == 0
    assert reads_of(reads, ids[1]) == {"iter_trials": 1}
    assert reads_of(reads, ids[0]) == {"iter_case_values": 1, "failed_trial_keys": 1,
                                       "judge_identities": 1}
