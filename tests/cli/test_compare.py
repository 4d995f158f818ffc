"""Runs compared over time: `assay compare`, the compare-to-previous after every run, regression gates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

if TYPE_CHECKING:
    from assay.store import Store

from .evalproject import assay, assay_apart, results, write_project, write_stopping_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], root: Path, rate: float, *extra: str,
        stream: str = "", gates: list | None = None) -> tuple[int, str, dict]:
    config = write_project(root, {"agent": {"rate": rate, "stream": stream}},
                           extra={"gates": gates} if gates else None)
    code, text = assay(capsys, "run", str(config), "--store", str(root / "s.db"),
                       "--output", str(root / "out"), "--no-progress", *extra)
    return code, text, results(root / "out")


def test_every_run_compares_itself_with_the_previous_run_case_by_case(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text, first = run(capsys, project, 0.8)
    assert code == 0 and first["previous_run"] is None
    assert "nothing to compare with yet" in text
    code, text, second = run(capsys, project, 0.5)
    assert code == 0  # no gate asked for: a regression is reported, not enforced
    diff = second["previous_run"]
    assert diff["run_a"]["id"] == first["run"]["id"] and diff["comparable"] is True
    [metric] = diff["comparisons"]
    assert metric["condition"] == "agent" and metric["significant"] is True
    before = {t["case_id"] for t in first["trials"] if t["scores"]["exact_match"]["passed"]}
    after = {t["case_id"] for t in second["trials"] if t["scores"]["exact_match"]["passed"]}
    assert set(metric["newly_failing"]) == before - after and metric["newly_failing"]
    assert metric["newly_passing"] == []
    assert metric["delta_pp"] == pytest.approx((len(after) - len(before)) * 100 / 100)
    assert f"newly failing exact_match@agent ({len(before - after)})" in text
    report = (project / "out" / "report.md").read_text()
    assert f"Compared with the previous run `{first['run']['id']}`" in report
    assert all(f"`{case}`" in report for case in before - after)


def test_compare_shows_per_case_regressions_between_any_two_runs(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, weak = run(capsys, project, 0.5)
    _, _, strong = run(capsys, project, 0.8)
    store = str(project / "s.db")
    code, text, _ = assay_apart(capsys, "compare", "--store", store, "--json")
    assert code == 0
    diff = json.loads(text)
    assert (diff["run_a"]["id"], diff["run_b"]["id"]) == (weak["run"]["id"], strong["run"]["id"])
    assert diff["comparisons"][0]["newly_failing"] == []
    assert len(diff["comparisons"][0]["newly_passing"]) > 0
    code, text = assay(capsys, "compare", strong["run"]["id"][:20], weak["run"]["id"],
                       "--store", store)
    assert code == 0
    newly_failing = diff["comparisons"][0]["newly_passing"]
    assert f"newly failing exact_match@agent ({len(newly_failing)})" in text
    assert newly_failing[0] in text and "significant" in text
    _, _, again = run(capsys, project, 0.8)
    code, text = assay(capsys, "compare", strong["run"]["id"], again["run"]["id"], "--store",
                       store, "--json")
    same = json.loads(text)["comparisons"][0]
    assert same["delta_pp"] == 0 and same["newly_failing"] == same["newly_passing"] == []


def test_compare_refuses_runs_over_different_datasets_unless_forced(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, project, 0.8)
    lines = (project / "questions.jsonl").read_text().splitlines()
    (project / "questions.jsonl").write_text("\n".join(lines[:90]) + "\n")
    run(capsys, project, 0.8)
    store = str(project / "s.db")
    code, text = assay(capsys, "compare", "--store", store)
    assert code == 2
    assert "not comparable" in text and "different dataset" in text
    code, text = assay(capsys, "compare", "--store", store, "--force")
    assert code == 0 and "NOT COMPARABLE" in text and "different dataset" in text
    assert "10 only in" in text or "n=90" in text


def test_compare_of_runs_with_no_metric_in_common_exits_2_and_says_why(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs of one dataset that scored different conditions share no metric: nothing is
    compared, and a script reading the exit code must not take that for a comparison."""
    store = str(project / "s.db")
    for condition in ("docs", "memory"):
        config = write_project(project, {condition: {"rate": 0.8}})
        assay(capsys, "run", str(config), "--store", store, "--no-progress")
    for extra in ((), ("--json",)):
        code, out, err = assay_apart(capsys, "compare", "--store", store, *extra)
        assert code == 2 and out == ""
        assert "no metric in common, so nothing was compared" in err
        assert "exact_match: condition memory only in run" in err
        assert "exact_match: condition docs only in run" in err


def test_fail_on_regression_exits_1_on_a_planted_regression(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, project, 0.8)
    code, text, data = run(capsys, project, 0.5, "--fail-on-regression",
                           "--junit", str(project / "junit.xml"))
    assert code == 1
    [gate] = [g for g in data["gates"] if g["gate"].startswith("regression")]
    assert gate["passed"] is False and "significant" in gate["detail"]
    assert "FAIL gate regression exact_match@agent" in text
    assert 'name="regression exact_match@agent pass rate (max drop 0pp, significant only)"' in (project / "junit.xml").read_text()


def test_fail_on_regression_fails_when_cases_that_answered_before_now_error(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: 9 of 10 trials errored, the paired test kept the one case both runs
    # answered, printed +0.0pp "within noise" and the gate passed with exit 0
    run(capsys, project, 1.0)
    config = write_project(project, {"agent": {"rate": 1.0, "broken": 9}})
    code, text = assay(capsys, "run", str(config), "--store", str(project / "s.db"),
                       "--output", str(project / "out"), "--no-progress",
                       "--fail-on-regression")
    assert code == 1
    [gate] = [g for g in results(project / "out")["gates"] if g["gate"].startswith("regression")]
    assert gate["passed"] is False
    assert "9 cases errored in this run" in gate["detail"] and "q001" in gate["detail"]
    assert "FAIL gate regression exact_match@agent" in text
    assert "exact_match@agent: left out, errored in" in text and "(9): q001" in text
    report = (project / "out" / "report.md").read_text()
    assert "No case changed its result" not in report and "`q009`" in report
    page = (project / "out" / "report.html").read_text()
    assert "q009" in page and "No case changed its result" not in page


def test_fail_on_regression_fails_when_a_condition_that_answered_before_now_errors_on_most(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: (nearly) every trial of one condition errored, its comparison had no case
    # to pair and was left out of the gate, which passed on the other condition: exit 0
    (project / "questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{i:03d}", "input": f"question {i}", "expected": f"answer-{i}"})
        + "\n" for i in range(1, 11)), encoding="utf-8")
    store = ("--store", str(project / "s.db"), "--output", str(project / "out"), "--no-progress")
    config = write_project(project, {"agent": {"rate": 1.0}, "pack": {"rate": 1.0}})
    assay(capsys, "run", str(config), *store)
    # (every trial of it: the run stops, exit 3, see tests/cli/test_run_command.py)
    config = write_project(project, {"agent": {"rate": 1.0}, "pack": {"rate": 1.0, "broken": 9}})
    code, text = assay(capsys, "run", str(config), *store, "--fail-on-regression")
    assert code == 1
    gates = {g["gate"]: g for g in results(project / "out")["gates"]}
    pack = gates["regression exact_match@pack pass rate"]
    assert pack["passed"] is False
    assert "9 cases errored in this run and count as a regression: q001" in pack["detail"]
    assert gates["regression exact_match@agent pass rate"]["passed"] is True
    assert "FAIL gate regression exact_match@pack pass rate" in text
    assert "exact_match@pack: left out, errored in " in text  # which run errored, not
    assert "@pack (9): q001" in text  # '9 excluded'


def test_fail_on_regression_exits_0_on_noise(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, project, 0.7, stream="one")
    code, _, data = run(capsys, project, 0.7, "--fail-on-regression", stream="two")
    assert code == 0
    [gate] = [g for g in data["gates"] if g["gate"].startswith("regression")]
    assert gate["passed"] is True and "within noise" in gate["detail"]
    diff = data["previous_run"]["comparisons"][0]
    assert diff["newly_failing"] and diff["newly_passing"]  # cases moved both ways


def test_the_first_run_passes_a_regression_gate_and_says_why(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, data = run(capsys, project, 0.5, "--fail-on-regression")
    assert code == 0
    assert data["gates"] == [{"gate": "regression", "passed": True,
                              "detail": "no earlier completed run to compare with",
                              "rule": "max drop 0pp, significant only"}]


def test_a_config_regression_gate_against_a_named_baseline_run(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, good = run(capsys, project, 0.9)
    run(capsys, project, 0.6)  # the previous run for the next one is already weak
    gate = {"regression": {"scorer": "exact_match", "max_drop_pp": 5, "significant": True,
                           "baseline": good["run"]["id"]}}
    code, _, data = run(capsys, project, 0.6, gates=[gate])
    assert code == 1
    [result] = data["gates"]
    assert good["run"]["id"] in result["detail"] and result["passed"] is False
    lenient = {"regression": {**gate["regression"], "max_drop_pp": 50}}
    code, _, data = run(capsys, project, 0.6, gates=[lenient])
    assert code == 0 and data["gates"][0]["passed"] is True


def test_a_regression_gate_with_an_unknown_baseline_run_is_a_usage_error(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"agent": {"rate": 0.5}},
                           extra={"gates": [{"regression": {"baseline": "nope"}}]})
    code, text = assay(capsys, "run", str(config), "--store", str(project / "s.db"),
                       "--no-progress")
    assert code == 2 and "no run 'nope'" in text


def test_a_misspelt_regression_gate_key_is_reported_with_its_line(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"agent": {"rate": 0.5}},
                           extra={"gates": [{"regression": {"max_drop": 5}}]})
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    line = next(i for i, l in enumerate(config.read_text().splitlines(), 1) if "max_drop" in l)
    assert f"assay.yaml:{line}" in text and "unknown key 'max_drop'" in text
    assert yaml.safe_load(config.read_text())["gates"]


def test_a_scorer_changed_under_the_same_name_is_not_read_as_the_agent_regressing(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a scorer `quality` changed from contains to a stricter regex read as
    "worse than the previous run, and the drop is real", and --fail-on-regression
    blamed the agent for the new yardstick."""
    def scored(spec: dict[str, object]) -> tuple[int, str]:
        config = write_project(project, {"agent": {"rate": 0.8}},
                               extra={"scorers": [{"name": "quality", **spec}]})
        return assay(capsys, "run", str(config), "--store", str(project / "s.db"),
                     "--no-progress", "--fail-on-regression")

    assert scored({"type": "contains", "value": "{{ expected }}"})[0] == 0
    # the same check with a default spelled out is the same yardstick
    code, text = scored({"type": "contains", "value": "{{ expected }}", "mode": "any"})
    assert code == 0 and "NOT COMPARABLE" not in text, text
    code, text = scored({"type": "regex", "pattern": "^never$"})
    assert code == 1 and "NOT COMPARABLE: quality: defined differently: type" in text, text
    assert "the drop is real" not in text
    code, text = assay(capsys, "compare", "--store", str(project / "s.db"))
    assert code == 2 and "quality: defined differently" in text


def test_regression_comparing_a_run_that_stopped_part_way_says_it_did(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`assay compare` of a run aborted after 8 of 20 trials with a complete one read like
    any comparison: nothing said that run A holds only the cases it reached."""
    config = write_stopping_project(project, cases=20, answered=6, max_errors=2)
    store = str(project / "s.db")
    code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress")
    assert code == 3
    config = write_stopping_project(project, cases=20, answered=20, max_errors=2)
    code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress")
    assert code == 0
    code, text = assay(capsys, "compare", "latest~1", "latest", "--store", store)
    assert code == 0, text
    assert "note: run " in text and "8 of its 20 trials ran, and it is aborted" in text, text
    code, text = assay(capsys, "compare", "latest~1", "latest", "--store", store, "--json")
    [note] = json.loads(text)["notes"]
    assert note.endswith("is compared on the cases it reached: 8 of its 20 trials ran, and it "
                         "is aborted")


def test_runs_with_other_epoch_counts_are_compared_with_a_note_saying_so(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 3-epoch run against a 1-epoch one pairs each case's mean of 3 with a single answer;
    nothing said so."""
    run(capsys, project, 0.8, "--epochs", "3")
    _, text, second = run(capsys, project, 0.8)
    first_id = second["previous_run"]["run_a"]["id"]
    note = (f"run {first_id} has 3 epochs per case and run {second['run']['id']} 1 epoch: "
            "each case is compared on the mean of its epochs")
    assert any(line.startswith(note) for line in second["previous_run"]["notes"])
    assert note in text
    code, text = assay(capsys, "compare", "--store", str(project / "s.db"))
    assert code == 0 and note in text
    run(capsys, project, 0.8)
    code, text, _ = assay_apart(capsys, "compare", "--store", str(project / "s.db"), "--json")
    assert json.loads(text)["notes"] == []  # same epochs: no note


def test_the_help_names_the_level_of_each_interval_compare_prints(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the help promised 'the delta from A to B with its 95% CI', while a diff
    of several metrics prints each interval at its Holm step (99.4% CI for nine)."""
    code, out = assay(capsys, "compare", "--help")
    text = " ".join(out.split())
    assert code == 0
    assert "with its 95% CI" not in text
    assert "with its CI (95%, or the level of its Holm step" in text


def test_compare_of_a_run_being_written_counts_its_trials_at_one_moment(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Compare read run B's cases, then its trial count, each at another moment of the run
    being written: 'run B is running: 9 of its 10 trials ran' over 4 cases compared."""
    from itertools import count

    from assay.store import Store
    from tests.store.test_store import trial
    from tests.store.written_between_reads import between_reads

    url = str(project / "s.db")
    writer = done_and_running(Store(url))
    added = count(3)
    with between_reads(writer, lambda: writer.write_trials("B", [trial(f"c{next(added)}")])):
        code, text = assay(capsys, "compare", "A", "B", "--store", url, "--json")
    writer.close()
    assert code == 0
    diff = json.loads(text[text.index("{"):])
    [entry] = diff["comparisons"]
    assert f"{entry['n']} of its 10 trials ran, and it is running" in " ".join(diff["notes"])


def test_compare_reads_each_run_once_and_only_its_scores_values(
        project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: comparing two 250,000-case runs read each one's score rows with its
    trials' tags and a row of every trial (to find the failed ones) where the scores'
    values and the failed trials' keys would do, about half its 20 s."""
    from tests.store.counted_reads import count_run_reads, reads_of

    _, _, weak = run(capsys, project, 0.5)
    _, _, strong = run(capsys, project, 0.8)
    reads = count_run_reads(monkeypatch)
    code, _ = assay(capsys, "compare", "--store", str(project / "s.db"), "--json")
    assert code == 0
    for ran in (weak, strong):
        assert reads_of(reads, ran["run"]["id"]) == {
            "iter_case_values": 1, "failed_trial_keys": 1, "judge_identities": 1}


def test_compare_with_a_killed_run_says_it_stopped_not_that_it_is_running(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: compared with a run killed with kill -9, compare noted 'run B is running:
    3 of its 10 trials ran', where `assay runs` said `running?`: nothing runs it."""
    from assay.store import Store, schema

    url = str(project / "s.db")
    store = done_and_running(Store(url))
    with store.engine.begin() as conn:  # its lock, left by a process gone from this machine
        conn.execute(schema.run_locks.insert().values(
            run_id="B", owner="gone", pid=1, host="another-machine", pid_scope="x",
            taken_at="2026-01-02T00:00:00+00:00", heartbeat_at="2026-01-02T00:00:00+00:00"))
    store.close()
    code, text = assay(capsys, "compare", "A", "B", "--store", url, "--json")
    assert code == 0, text
    assert json.loads(text[text.index("{"):])["notes"] == [(
        "run B is compared on the cases it reached: 3 of its 10 trials ran, and it is marked "
        "running, but the process that ran it is gone: killed? resume with --resume B")]


def done_and_running(store: Store) -> Store:
    """Run A of ten cases, completed, and run B of the same ten, marked running, 3 trials in."""
    from tests.store.test_store import trial

    store.create_run(id="A", experiment="e", status="completed", total_trials=10,
                     started_at="2026-01-01T00:00:00+00:00")
    store.write_trials("A", [trial(f"c{i}") for i in range(10)])
    store.create_run(id="B", experiment="e", status="running", total_trials=10,
                     started_at="2026-01-02T00:00:00+00:00")
    store.write_trials("B", [trial(f"c{i}") for i in range(3)])
    return store


def test_compare_by_default_takes_the_latest_two_completed_runs_and_names_those_left_out(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay compare -e e` took the latest two runs whatever they were: one
    stopped by Ctrl-C, aborted, still running, or a rejudge of an older run. It takes the
    latest two completed runs, as `assay runs` and `assay history` list them, and says
    which it compared and which newer ones it left out."""
    from assay.store import Store
    from tests.store.test_store import trial

    url = str(project / "s.db")
    store = Store(url)
    for day, (run_id, status, kind) in enumerate([
            ("older", "completed", "eval"), ("A", "completed", "eval"),
            ("stopped", "interrupted", "eval"), ("B", "completed", "eval"),
            ("rejudged", "completed", "rejudge"), ("failed", "aborted", "eval"),
            ("live", "running", "eval")], 1):
        store.create_run(id=run_id, experiment="e", status=status, kind=kind, total_trials=4,
                         started_at=f"2026-01-{day:02d}T00:00:00+00:00")
        store.write_trials(run_id, [trial(f"c{i}") for i in range(4 if status == "completed"
                                                                   else 2)])
    store.close()
    for scope in (("-e", "e"), ()):
        code, out, err = assay_apart(capsys, "compare", *scope, "--store", url, "--json")
        assert code == 0, err
        diff = json.loads(out)
        assert (diff["run_a"]["id"], diff["run_b"]["id"]) == ("A", "B")
        assert (f"note: compared the latest two completed runs{' of ' + repr('e') if scope else ''}:"
                f" A → B; left out: live (running), failed (aborted), rejudged (rejudge) and 1 "
                "more") in " ".join(err.split())
    code, out, err = assay_apart(capsys, "compare", "older", "-e", "e", "--store", url, "--json")
    diff = json.loads(out)
    assert code == 0 and (diff["run_a"]["id"], diff["run_b"]["id"]) == ("older", "B")
    assert "compared the latest completed run of 'e': older → B" in " ".join(err.split())
    code, out, err = assay_apart(capsys, "compare", "A", "B", "--store", url)
    assert code == 0 and "note: compared" not in err
