"""What a suite's runs keep of it, and the key `--resume` finds the suite by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.api.suite_runs import ExperimentRuns, SuiteRecord, find_suite, suite_key, suite_of
from assay.errors import UserError
from assay.records import RunRecord
from assay.store import Store
from tests.api.test_suite_start import two_configs


def test_the_same_suite_named_from_another_folder_has_the_same_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "suite.yaml").write_text("suite: [a.yaml]\n")
    monkeypatch.chdir(tmp_path / "evals")
    here = suite_key(["suite.yaml", "*.yaml"])
    monkeypatch.chdir(tmp_path)
    assert suite_key(["evals/suite.yaml", "evals/*.yaml"]) == here
    assert suite_key(["./evals/suite.yaml", "evals/./*.yaml"]) == here


def test_a_suite_record_kept_with_a_run_reads_back_as_it_was_kept() -> None:
    record = SuiteRecord(id="20261124-170224-741cad", key=["/p/suite.yaml"],
                         configs=[{"path": "a.yaml", "config_path": "/p/a.yaml",
                                   "config_hash": "abc", "experiment": "exp-a"}],
                         options={"sample": 3, "epochs": None, "conditions": None},
                         output="out")
    run = RunRecord(id="r", experiment="exp-a", kind="eval", status="interrupted",
                    started_at="2026-11-24T17:02:24", options={"sample": 3,
                                                               "suite": record.to_dict()})
    assert SuiteRecord.of(run) == record
    assert record.files == ["/p/a.yaml"]


@pytest.mark.parametrize("options", [None, {}, {"sample": 3}, {"suite": "x"}, {"suite": {}}])
def test_a_run_of_no_suite_has_no_suite_record(options: dict[str, object] | None) -> None:
    run = RunRecord(id="r", experiment="e", kind="eval", status="completed",
                    started_at="2026-11-24T17:02:24", options=options)
    assert SuiteRecord.of(run) is None


def test_of_two_suites_started_in_one_second_the_one_whose_runs_started_last_is_newest() -> None:
    """Regression: suite ids begin with the second a suite started, and `max` of two ids of
    one second compared their random tails: a killed suite, then the same command at once,
    was taken for the newer half the time, and the new suite warned of itself as stopped."""
    from assay.api.suite_runs import _chosen

    def suite(sid: str, started: str) -> tuple[SuiteRecord, list[RunRecord]]:
        record = SuiteRecord(id=sid, key=["/p/suite.yaml"], configs=[], options={}, output=None)
        return record, [RunRecord(id=f"run-{sid}", experiment="e", kind="eval",
                                  status="completed", started_at=started)]

    killed = suite("20261124-174609-fc8a4c", "2026-11-24T17:46:09.120000+00:00")
    again = suite("20261124-174609-0a1b2c", "2026-11-24T17:46:09.870000+00:00")
    found = {killed[0].id: killed[0], again[0].id: again[0]}
    runs = {killed[0].id: killed[1], again[0].id: again[1]}
    assert _chosen(found, runs, None) == again[0].id


def test_the_start_of_a_suite_reads_each_experiments_runs_from_the_store_once(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new suite looked for its stopped suite, built the 'resume them alone' hint of a
    `--resume` (and threw it away), then read the runs again for each config's note of its
    unfinished run: every look reads from one reading of each experiment's runs."""
    configs = two_configs(tmp_path)
    store.create_run(id="stopped", experiment="exp-a", status="interrupted",
                     config_path=str(configs[0][1].path))
    read: list[str] = []
    list_runs = store.list_runs

    def counted(experiment: str, **kwargs: Any) -> list[RunRecord]:
        read.append(experiment)
        return list_runs(experiment, **kwargs)

    monkeypatch.setattr(store, "list_runs", counted)
    runs = ExperimentRuns(store)
    assert suite_of(runs, suite_key(["a.yaml", "b.yaml"]), configs, None) is None
    with pytest.raises(UserError, match="resume it alone with `assay run a.yaml --resume "
                                        "stopped`"):
        find_suite(runs, suite_key(["a.yaml", "b.yaml"]), configs, None)
    unfinished = runs.unfinished("exp-a")
    assert unfinished is not None and unfinished.run.id == "stopped"
    assert runs.unfinished("exp-b") is None
    assert read == ["exp-a", "exp-b"]
