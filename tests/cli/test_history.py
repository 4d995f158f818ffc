"""`assay history`: an experiment's runs over time, eval and traces alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.store import Store

from .evalproject import assay, write_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


def test_history_lists_runs_oldest_first_with_metrics_and_a_trend(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(project / "s.db")
    rates = (0.3, 0.6, 0.9)
    for rate in rates:
        config = write_project(project, {"agent": {"rate": rate}}, cases=20)
        assert assay(capsys, "run", str(config), "--store", store, "--no-progress")[0] == 0
    code, text = assay(capsys, "history", "coin", "--store", store, "--json")
    assert code == 0
    [history] = json.loads(text)
    series = [r["metrics"]["exact_match@agent"] for r in history["runs"]]
    assert len(series) == 3 and series[0] < series[-1]
    assert history["trend"]["exact_match@agent"] == ("up" if series[2] > series[1] else "flat")
    code, text = assay(capsys, "history", "--store", store)
    assert code == 0 and "coin · 3 runs, oldest first" in text and "exact_match@agent" in text
    assert any(bar in text for bar in "▁▂▃▄▅▆▇█")


def test_history_shows_a_traces_run_with_the_summary_it_has(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(str(project / "s.db"))
    for index, rate in enumerate((0.25, 0.5)):
        store.create_run(id=f"traces-{index}", experiment="kb-sessions", kind="traces",
                         status="finished", started_at=f"2026-01-0{index + 1}T00:00:00+00:00",
                         summary={"metrics": {"wiki_hit_rate": rate, "wasted_reads": 4 - index}})
    store.close()
    code, text = assay(capsys, "history", "kb-sessions", "--store", str(project / "s.db"))
    assert code == 0
    assert "kb-sessions (traces) · 2 runs" in text
    assert "wiki_hit_rate" in text and "0.5" in text and "↑" in text and "↓" in text


def test_a_rejudge_s_experiment_as_runs_and_history_print_it_is_accepted_back(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: assay runs printed 'planets (rejudge)'; assay history 'planets (rejudge)'
    # answered "no runs of experiment 'planets (rejudge)'", exit 2
    store = Store(str(project / "s.db"))
    for index, kind in enumerate(("eval", "rejudge")):
        store.create_run(id=f"run-{index}", experiment="planets", kind=kind, status="completed",
                         started_at=f"2026-01-0{index + 1}T00:00:00+00:00")
    store.close()
    code, text = assay(capsys, "history", "planets (rejudge)", "--store", str(project / "s.db"))
    assert code == 0 and "planets (rejudge) · 1 run" in text and "run-1" in text
    assert "run-0" not in text
    code, text = assay(capsys, "runs", "planets (rejudge)", "--store", str(project / "s.db"))
    assert code == 0 and "run-1" in text and "run-0" not in text
    code, text = assay(capsys, "history", "planets (traces)", "--store", str(project / "s.db"))
    assert code == 2 and "no runs of experiment 'planets (traces)'" in text


def test_history_of_an_unknown_experiment_is_a_usage_error(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Store(str(project / "s.db")).close()  # a store with no run of it
    code, text = assay(capsys, "history", "nope", "--store", str(project / "s.db"))
    assert code == 2 and "no runs of experiment 'nope'" in text


def test_metric_filter_applies_to_every_run_in_json_too(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `history -m wiki --json` listed only the wiki metrics at the top, but each
    run still carried every metric."""
    store = Store(str(project / "s.db"))
    store.create_run(id="traces-0", experiment="kb", kind="traces", status="finished",
                     summary={"metrics": {"wiki_hit_rate": 0.5, "wasted_reads": 4}})
    store.close()
    code, text = assay(capsys, "history", "kb", "-m", "wiki", "--json",
                       "--store", str(project / "s.db"))
    assert code == 0
    [history] = json.loads(text)
    assert history["metrics"] == ["wiki_hit_rate"]
    assert [run["metrics"] for run in history["runs"]] == [{"wiki_hit_rate": 0.5}]


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_a_usage_error_not_every_run_or_all_but_the_oldest(
        project: Path, capsys: pytest.CaptureFixture[str], limit: str) -> None:
    """Regression: `-n 0` listed every run (a slice from -0) and `-n -1` all but the oldest."""
    store = Store(str(project / "s.db"))
    for index in range(3):
        store.create_run(id=f"traces-{index}", experiment="kb", kind="traces",
                         status="finished", started_at=f"2026-01-0{index + 1}T00:00:00+00:00",
                         summary={"metrics": {"wasted_reads": index}})
    store.close()
    code, text = assay(capsys, "history", "kb", "-n", limit, "--store", str(project / "s.db"))
    assert code == 2 and "--limit" in text
    assert "traces-" not in text


def test_a_metric_filter_that_matches_nothing_names_the_metrics_there_are(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It used to print the runs under an empty table and exit 0."""
    store = str(project / "s.db")
    config = write_project(project, {"agent": {"rate": 0.5}}, cases=10)
    assert assay(capsys, "run", str(config), "--store", store, "--no-progress")[0] == 0
    code, text = assay(capsys, "history", "coin", "--store", store, "-m", "nope")
    assert code == 2
    assert "no metric matches 'nope': the metrics are exact_match@agent" in text
    code, text = assay(capsys, "history", "coin", "--store", store, "-m", "agent")
    assert code == 0 and "exact_match@agent" in text


def test_a_run_that_completes_while_history_reads_is_not_shown_stalled(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """History read the run as running, then its lock (released as the run completed) at
    another moment, and showed the run 'running?', probably killed, though it completed."""
    from tests.store.written_between_reads import between_reads

    url = str(project / "s.db")
    writer = Store(url)
    writer.create_run(id="r1", experiment="coin", status="running",
                      started_at="2026-01-01T00:00:00+00:00")
    lock = writer.run_lock()
    lock.acquire("r1")

    def complete() -> None:
        writer.update_run("r1", status="completed", finished_at="2026-01-01T01:00:00+00:00")
        lock.release()

    with between_reads(writer, complete, reading="FROM runs"):
        code, text = assay(capsys, "history", "coin", "--store", url, "--json")
    writer.close()
    assert code == 0
    [point] = json.loads(text)[0]["runs"]
    assert (point["status"], point["stale"]) == ("running", False)
