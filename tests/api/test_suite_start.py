"""How a suite starts: a new one beside a stopped one, or the stopped one resumed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.api.suite_runs import new_suite, suite_key
from assay.api.suite_start import suite_started
from assay.config import load_config
from assay.config.loading import LoadedConfig
from assay.errors import UserError
from assay.runner.options import RunOptions
from assay.store import Store


def two_configs(root: Path) -> list[tuple[Path, LoadedConfig]]:
    """a.yaml and b.yaml in `root` (the working directory), as a suite loads them."""
    configs = []
    for name in ("a", "b"):
        (root / f"{name}.yaml").write_text(
            f"name: exp-{name}\ndataset: {{path: cases.jsonl}}\n"
            "target: {type: command, command: [cat]}\nscorers: [{type: exact_match}]\n")
        configs.append((Path(f"{name}.yaml"), load_config(root / f"{name}.yaml", env={})))
    return configs


def a_suite_that_ran(store: Store, configs: list[tuple[Path, LoadedConfig]],
                     *statuses: str) -> list[str]:
    """A suite of `configs` whose runs ended with `statuses`, one per config, as stored."""
    record = new_suite(suite_key([str(path) for path, _ in configs]), configs, RunOptions(),
                       None)
    ids = []
    for (_, loaded), status in zip(configs, statuses, strict=False):
        ids.append(f"run-{loaded.name}")
        store.create_run(id=ids[-1], experiment=loaded.name, status=status,
                         config_path=str(loaded.path), config_hash=loaded.hash,
                         options={"suite": record.to_dict()})
    return ids


def test_a_new_suite_beside_a_stopped_one_carries_the_note_for_its_caller_to_print(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    configs = two_configs(tmp_path)
    a_suite_that_ran(store, configs, "completed")
    started = suite_started(store, ["a.yaml", "b.yaml"], configs, RunOptions(), None, None)
    assert started.note.startswith("note: the previous suite ")
    assert started.note.endswith(" of these configs did not finish (1 of 2 configs "
                                 "completed); this is a new suite: `assay run a.yaml b.yaml "
                                 "--resume` continues that one instead")
    assert capsys.readouterr() == ("", "")


def test_a_completed_suite_whose_summary_holds_every_run_has_nothing_to_resume(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    configs = two_configs(tmp_path)
    ids = a_suite_that_ran(store, configs, "completed", "completed")
    summary = tmp_path / "out" / "suite.json"
    summary.parent.mkdir()
    summary.write_text(json.dumps({"per_pack": {name: {"run_id": run_id} for name, run_id
                                                in zip("ab", ids, strict=True)},
                                   "failed": []}))
    with pytest.raises(UserError, match="nothing to resume: every config of suite"):
        suite_started(store, ["a.yaml", "b.yaml"], configs, RunOptions(), "latest",
                      tmp_path / "out")
    summary.write_text(json.dumps({"per_pack": {"a": {"run_id": ids[0]}}, "failed": [
        {"config": "b.yaml", "exit_code": 130, "error": "interrupted by the user"}]}))
    resumed = suite_started(store, ["a.yaml", "b.yaml"], configs, RunOptions(), "latest",
                            tmp_path / "out")  # its summary is written again
    assert resumed.resumed is not None and resumed.folder == tmp_path / "out"


def test_the_configs_of_an_experiment_are_told_of_its_run_left_unfinished_until_one_holds_a_run(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each config read its experiment's latest run as it began: a second config of an
    experiment found the first one's run of this suite, and when that one had failed, was
    told 'the previous run ... did not finish' of the suite's own run. Until a config of the
    experiment holds a run (one refused before its run began holds none), the run from
    before the suite is the one to tell of."""
    monkeypatch.chdir(tmp_path)
    configs = two_configs(tmp_path)
    (tmp_path / "c.yaml").write_text((tmp_path / "a.yaml").read_text())  # exp-a again
    configs.append((Path("c.yaml"), load_config(tmp_path / "c.yaml", env={})))
    store.create_run(id="stopped", experiment="exp-a", status="interrupted")
    started = suite_started(store, ["a.yaml", "b.yaml", "c.yaml"], configs, RunOptions(),
                            None, None)
    for _ in range(2):  # a.yaml refused before its run began, then c.yaml
        unfinished = started.unfinished_for("exp-a")
        assert unfinished is not None and unfinished.run.id == "stopped"
    assert started.unfinished_for("exp-b") is None
    started.held_run_of("exp-a")
    assert started.unfinished_for("exp-a") is None


def test_a_resumed_suite_is_not_told_of_its_own_stopped_run_as_one_left_beside_it(
        tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    configs = two_configs(tmp_path)
    a_suite_that_ran(store, configs, "interrupted")
    started = suite_started(store, ["a.yaml", "b.yaml"], configs, RunOptions(), "latest",
                            None)
    assert started.runs.unfinished("exp-a") is not None
    assert started.unfinished_for("exp-a") is None
