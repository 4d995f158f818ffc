"""A suite killed part-way (SIGKILL, or SIGINT as Ctrl-C) and resumed with `--resume` ends as
the same suite run unbroken: the same runs' results, the same suite.json numbers, the same
exit code, no trial lost or run twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from assay.store import Store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

KILLER = '''
import json, os, pathlib, signal, time

def answer(case):
    """Sends its own process the signal kill.json asks for, once, at the case it names; or
    waits there while the file `hold` is there. Fails the second config's first case while the
    file `down` is there."""
    if pathlib.Path("down").exists() and case.id == "b1":
        raise RuntimeError("the service is down")
    plan = pathlib.Path("kill.json")
    if plan.exists() and json.loads(plan.read_text()).get("case") == case.id:
        wanted = json.loads(plan.read_text())
        plan.unlink()
        if wanted["signal"] == "hold":
            pathlib.Path("waiting").touch()
            while pathlib.Path("hold").exists():
                time.sleep(0.05)
        else:
            os.kill(os.getpid(), getattr(signal, wanted["signal"]))
            time.sleep(5)
    return "no idea" if case.id.endswith("3") else case.expected
'''

FAKE_GIT = '''#!{python}
"""git as a run asks it for its commit as it starts: at the new run kill.json names (its
`new_run`-th), sends assay the signal it asks for, between one config and the next."""
import json, os, pathlib, signal, sys, time

plan = pathlib.Path("kill.json")
if sys.argv[1:2] == ["rev-parse"] and plan.exists():
    wanted = json.loads(plan.read_text())
    calls = pathlib.Path("new-runs")
    count = int(calls.read_text()) + 1 if calls.exists() else 1
    calls.write_text(str(count))
    if wanted.get("new_run") == count:
        plan.unlink()
        os.kill(os.getppid(), getattr(signal, wanted["signal"]))
        time.sleep(2)
sys.exit(128)
'''

CONFIGS = ("a", "b", "c")


def write_suite(root: Path) -> None:
    """Three configs of four cases each (case 3 answered wrong), a suite file naming them,
    and a gate the second config fails, so the suite exits 1."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "killer.py").write_text(KILLER, encoding="utf-8")
    for name in CONFIGS:
        cases = [{"id": f"{name}{i}", "input": f"question {i}", "expected": f"answer {i}"}
                 for i in range(1, 5)]
        (root / f"{name}.jsonl").write_text(
            "".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
        gate = "gates: [{scorer: exact_match, min_pass_rate: 0.9}]\n" if name == "b" else ""
        (root / f"{name}.yaml").write_text(
            f"name: exp-{name}\ndataset: {{path: {name}.jsonl}}\n"
            "target: {type: python, function: 'killer.py:answer', threaded: false}\n"
            f"scorers: [{{type: exact_match}}]\n{gate}", encoding="utf-8")
    (root / "suite.yaml").write_text("suite: [a.yaml, b.yaml, c.yaml]\n", encoding="utf-8")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    git = bin_dir / "git"
    git.write_text(FAKE_GIT.format(python=sys.executable), encoding="utf-8")
    git.chmod(0o755)


def suite_command(root: Path, *extra: str, store: str | None = None) -> dict[str, Any]:
    """`assay run suite.yaml` in `root`, on its store (`store`, or `root`'s own SQLite file)
    and its fake git, as Popen's arguments."""
    env = {**os.environ, "ASSAY_STORE": store or str(root / "assay.db"), "COLUMNS": "200",
           "PATH": f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    return {"args": [sys.executable, "-m", "assay", "run", "suite.yaml", "-j", "1",
                     "--no-progress", "-o", "out", *extra], "cwd": root, "env": env}


def run_suite(root: Path, *extra: str, store: str | None = None
              ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(**suite_command(root, *extra, store=store), capture_output=True,
                          text=True, timeout=120, check=False)


def stored(root: Path, url: str | None = None) -> dict[str, Any]:
    """Each experiment's runs in the store at `url` (default `root`'s), and the results of
    each: trial by trial, score by score."""
    store = Store(url or str(root / "assay.db"))
    try:
        runs: dict[str, Any] = {}
        for run in store.list_runs(kind="eval", limit=None):
            trials = sorted((t.case_id, t.condition, t.epoch, t.output.text, t.output.error,
                             tuple(sorted((n, s.value, s.passed) for n, s in t.scores.items())))
                            for t in store.iter_trials(run.id))
            runs.setdefault(run.experiment, []).append((run.status, run.total_trials, trials))
        return runs
    finally:
        store.close()


def numbers(root: Path) -> dict[str, Any]:
    """suite.json without what differs between two suites' runs: their time, run ids and
    the paths the command line named their configs by."""
    document = json.loads((root / "out" / "suite.json").read_text(encoding="utf-8"))
    document.pop("timestamp")
    for pack in document["per_pack"].values():
        pack.pop("run_id")
        pack.pop("config")
    return document


@pytest.fixture(scope="module")
def unbroken(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("unbroken")
    write_suite(root)
    return root, run_suite(root).returncode


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGINT"])
@pytest.mark.parametrize("where", [{"case": "a2"}, {"new_run": 2}, {"case": "c3"}],
                         ids=["inside the first config", "between configs",
                              "inside the last config"])
def test_a_killed_suite_resumed_ends_as_the_same_suite_run_unbroken(
        tmp_path: Path, unbroken: tuple[Path, int], signal_name: str,
        where: dict[str, Any], store_url: str) -> None:
    """`assay run SUITE --resume` was refused: each stopped run had to be found and resumed
    by hand, the configs never reached run by hand, and no suite.json of the whole was
    written. On SQLite and PostgreSQL alike."""
    twin, twin_code = unbroken
    assert twin_code == 1
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({**where, "signal": signal_name}))
    killed = run_suite(tmp_path, store=store_url)
    assert killed.returncode == (-9 if signal_name == "SIGKILL" else 130), killed.stderr
    assert not (tmp_path / "kill.json").exists()
    if signal_name == "SIGINT":
        assert "interrupted; resume with: assay run suite.yaml --resume" in killed.stderr
    resumed = run_suite(tmp_path, "--resume", store=store_url)
    assert resumed.returncode == twin_code, resumed.stdout + resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert stored(tmp_path, store_url) == stored(twin)  # a completed run a config, same trials
    assert numbers(tmp_path) == numbers(twin)


def test_a_completed_suite_resumed_says_nothing_is_left_and_where_its_summary_is(
        tmp_path: Path) -> None:
    write_suite(tmp_path)
    assert run_suite(tmp_path).returncode == 1
    again = run_suite(tmp_path, "--resume")
    assert again.returncode == 2
    assert "error: nothing to resume: every config of suite " in again.stderr
    assert "its summary is out/suite.md" in again.stderr


def test_a_suite_whose_configs_changed_is_not_resumed_and_each_change_is_named(
        tmp_path: Path) -> None:
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({"case": "b2", "signal": "SIGKILL"}))
    assert run_suite(tmp_path).returncode == -9
    config = tmp_path / "c.yaml"
    config.write_text(config.read_text().replace("exact_match", "contains, value: answer"))
    (tmp_path / "d.yaml").write_text((tmp_path / "a.yaml").read_text())
    (tmp_path / "suite.yaml").write_text("suite: [b.yaml, c.yaml, d.yaml]\n")
    again = run_suite(tmp_path, "--resume")
    assert again.returncode == 2
    lines = again.stderr.splitlines()
    assert lines[0].startswith("error: cannot resume suite ")
    assert lines[0].endswith(": its configs changed since it started (resuming would mix "
                             "two suites); put them back, or run without --resume to start "
                             "a new suite:")
    assert lines[1:] == ["  d.yaml: added since the suite started",
                         "  a.yaml: in the suite when it started, not now",
                         ("  c.yaml: edited since the suite started (or a ${VAR} in it "
                          "now has another value)")]
    assert len(stored(tmp_path)["exp-b"]) == 1  # nothing ran


def test_a_second_resume_of_a_suite_being_resumed_is_refused_and_runs_nothing(
        tmp_path: Path, unbroken: tuple[Path, int]) -> None:
    """Without the suite held, a second `--resume` while the first ran would start the
    configs the first had not reached yet, and both would run them."""
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({"case": "a2", "signal": "SIGKILL"}))
    assert run_suite(tmp_path).returncode == -9
    (tmp_path / "kill.json").write_text(json.dumps({"case": "b2", "signal": "hold"}))
    (tmp_path / "hold").touch()
    first = subprocess.Popen(**suite_command(tmp_path, "--resume"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "waiting").exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
        second = run_suite(tmp_path, "--resume")
        assert second.returncode == 3, second.stderr
        assert "is being run by another assay (process " in second.stderr
        assert "wait for it to finish, or stop it and resume again" in second.stderr
    finally:
        (tmp_path / "hold").unlink()
        first.communicate(timeout=120)
    assert first.returncode == unbroken[1]
    assert stored(tmp_path) == stored(unbroken[0])
    assert numbers(tmp_path) == numbers(unbroken[0])


def test_resume_with_retry_errors_runs_again_the_failed_run_of_a_suite_and_keeps_the_others(
        tmp_path: Path) -> None:
    write_suite(tmp_path)
    config = tmp_path / "b.yaml"
    config.write_text(config.read_text() + "run: {max_errors: 1}\n")
    (tmp_path / "down").touch()
    first = run_suite(tmp_path)
    assert first.returncode == 3
    assert "resume with: assay run suite.yaml --resume (add --retry-errors" in first.stdout
    before = stored(tmp_path)
    assert [status for status, _, _ in before["exp-b"]] == ["aborted"]
    (tmp_path / "down").unlink()
    again = run_suite(tmp_path, "--resume", "--retry-errors")
    assert again.returncode == 1, again.stdout + again.stderr  # b's gate, as unbroken
    after = stored(tmp_path)
    assert after["exp-a"] == before["exp-a"] and after["exp-c"] == before["exp-c"]
    [(status, total, trials)] = after["exp-b"]
    assert status == "completed" and total == len(trials) == 4
    assert all(error is None for _, _, _, _, error, _ in trials)
    assert numbers(tmp_path)["failed"] == []


def test_a_completed_suite_resumed_with_retry_errors_names_how_to_retry_its_runs_errors(
        tmp_path: Path) -> None:
    write_suite(tmp_path)
    (tmp_path / "down").touch()
    assert run_suite(tmp_path).returncode == 1
    [(_, _, trials)] = stored(tmp_path)["exp-b"]
    again = run_suite(tmp_path, "--resume", "--retry-errors")
    assert again.returncode == 2
    run_id = json.loads((tmp_path / "out" / "suite.json").read_text()
                        )["per_pack"]["exp-b"]["run_id"]
    assert again.stderr.strip().endswith(
        "run without --resume to start a new suite (--retry-errors leaves a completed run's "
        f"errored trials as they are: `assay run b.yaml --resume {run_id} --retry-errors` "
        "runs them again)")
    assert stored(tmp_path)["exp-b"] == [("completed", 4, trials)]


def test_a_suite_resumed_from_another_folder_is_the_same_suite(
        tmp_path: Path, unbroken: tuple[Path, int]) -> None:
    """A suite started in its folder (`assay run suite.yaml`) and resumed from the folder
    above (`assay run project/suite.yaml`) names its configs by other paths: it is the same
    suite, not one whose configs were all replaced."""
    root = tmp_path / "project"
    write_suite(root)
    (root / "kill.json").write_text(json.dumps({"case": "b2", "signal": "SIGKILL"}))
    assert run_suite(root).returncode == -9
    command = suite_command(root, "--resume")
    command["args"] = [f"{root.name}/suite.yaml" if arg == "suite.yaml" else str(root / "out") if arg == "out"
                       else arg for arg in command["args"]]
    resumed = subprocess.run(**{**command, "cwd": tmp_path}, capture_output=True, text=True,
                             timeout=120, check=False)
    assert resumed.returncode == unbroken[1], resumed.stdout + resumed.stderr
    assert stored(root) == stored(unbroken[0])
    assert numbers(root) == numbers(unbroken[0])


def test_a_suite_with_no_run_recorded_names_the_stopped_runs_of_its_configs(
        tmp_path: Path) -> None:
    """A config of the suite run alone and stopped: the suite has nothing to resume, and
    said only 'run it without --resume', the stopped run beside it forgotten."""
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({"case": "b2", "signal": "SIGKILL"}))
    env = suite_command(tmp_path)["env"]
    alone = subprocess.run([sys.executable, "-m", "assay", "run", "b.yaml", "-j", "1",
                            "--no-progress"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120, check=False)
    assert alone.returncode == -9
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("exp-b")
    store.close()
    again = run_suite(tmp_path, "--resume")
    assert again.returncode == 2
    assert again.stderr.strip() == (
        "error: nothing to resume: no run of this suite is in the store (run it without "
        "--resume to start it); the latest run of a config of it did not finish, and is not "
        f"recorded as this suite's: resume it alone with `assay run b.yaml --resume {run.id}`")


def test_a_new_suite_after_one_killed_names_it_and_how_to_resume_it(tmp_path: Path) -> None:
    """A suite started again without --resume after a kill said nothing of the stopped one:
    its completed runs were run and paid for again, the resume forgotten."""
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({"case": "b2", "signal": "SIGKILL"}))
    assert run_suite(tmp_path).returncode == -9
    again = run_suite(tmp_path)
    assert again.returncode == 1
    notes = [line for line in again.stderr.splitlines() if "suite" in line]
    assert len(notes) == 1 and notes[0].startswith("note: the previous suite ")
    assert notes[0].endswith(" of these configs did not finish (1 of 3 configs completed); "
                             "this is a new suite: `assay run suite.yaml --resume` continues "
                             "that one instead")
    assert "note: the previous suite" not in run_suite(tmp_path).stderr  # the new one ended


@pytest.mark.parametrize("by", ["suite", "run"])
def test_a_suite_is_resumed_by_its_id_or_the_id_of_one_of_its_runs(
        tmp_path: Path, unbroken: tuple[Path, int], by: str) -> None:
    write_suite(tmp_path)
    (tmp_path / "kill.json").write_text(json.dumps({"case": "b2", "signal": "SIGKILL"}))
    assert run_suite(tmp_path).returncode == -9
    store = Store(str(tmp_path / "assay.db"))
    [run] = store.list_runs("exp-b")
    store.close()
    suite = (run.options or {})["suite"]["id"]
    resumed = run_suite(tmp_path, "--resume", suite if by == "suite" else run.id)
    assert resumed.returncode == unbroken[1], resumed.stdout + resumed.stderr
    assert stored(tmp_path) == stored(unbroken[0])
    unknown = run_suite(tmp_path, "--resume", "20991231-000000-000000")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == (
        "error: nothing to resume: no suite or run of it named 20991231-000000-000000 is in "
        "the store, of these configs (`assay runs` shows the runs)")
