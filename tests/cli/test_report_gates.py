"""A run's gates are judged once, when it ends, and every later rendering shows them:
`assay report` in each format, `--rewrite`, and a resume that writes the files again."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .evalproject import assay, assay_apart, results, write_project, write_stopping_project

WORSE = '''
import os


def answer(case):
    wrong = int(os.environ.get("WRONG", "0"))  # the first WRONG cases are answered wrongly
    return "no idea" if int(case.id[1:]) < wrong else case.expected
'''

FILES = ("results.json", "report.md", "report.html")


def project(root: Path) -> Path:
    """20 cases, exact_match, a regression gate; the target gets worse as WRONG grows."""
    (root / "worse.py").write_text(WORSE, encoding="utf-8")
    return write_project(root, {"only": {}}, cases=20, extra={
        "target": {"type": "python", "function": "worse.py:answer", "threaded": False},
        "gates": [{"regression": {"max_drop_pp": 2}}]})


def two_runs(root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             *second: str) -> tuple[str, str, dict[str, object]]:
    """A good run, then one 6 cases worse with `second` arguments: (store, run id, results)."""
    config, store = project(root), str(root / "s.db")
    monkeypatch.setenv("WRONG", "0")
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress")
    assert code == 0, printed
    monkeypatch.setenv("WRONG", "6")
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                          "-o", str(root / "out"), *second)
    assert code == 1 and "FAIL gate regression" in printed, printed
    written = results(root / "out")
    return store, str(written["run"]["id"]), written  # type: ignore[index]


def report_of_a_stopped_run(root: Path, config: Path, capsys: pytest.CaptureFixture[str],
                            why: str) -> tuple[str, str]:
    """Run `config` into a store of its own, which must stop (exit 3) saying `why`; return
    the store and what `assay report latest` printed of the run (exit 0)."""
    store = str(root / "s.db")
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress")
    assert code == 3 and why in printed, printed
    code, printed = assay(capsys, "report", "latest", "--store", store)
    assert code == 0, printed
    return store, printed


def failed(gates: object) -> list[str]:
    assert isinstance(gates, list)
    return [g["gate"] for g in gates if not g["passed"]]


def test_report_in_every_format_shows_the_failed_gates_of_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report RUN` showed no regression or --fail-under gate at all."""
    monkeypatch.chdir(tmp_path)
    store, run_id, written = two_runs(tmp_path, monkeypatch, capsys,
                                      "--fail-under", "exact_match=0.9")
    assert failed(written["gates"]) == ["exact_match@only pass rate",
                                        "regression exact_match@only pass rate"]

    code, text = assay(capsys, "report", run_id, "--store", store, "-f", "json")
    assert code == 0
    import json

    assert json.loads(text)["gates"] == written["gates"]
    code, text = assay(capsys, "report", run_id, "--store", store, "-f", "md")
    assert code == 0 and text == (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    code, text = assay(capsys, "report", run_id, "--store", store, "-f", "junit")
    gates = [c for c in ET.fromstring(text).iter("testcase") if c.get("classname") == "coin.gates"]
    assert [c.get("name") for c in gates if c.find("failure") is not None] == [
        "exact_match@only pass rate (min 90.0%)",
        "regression exact_match@only pass rate (max drop 2pp, significant only)"]


def test_rewrite_of_an_intact_run_writes_the_same_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--rewrite` wrote `"gates": []`, turning a failed run into a passed one."""
    monkeypatch.chdir(tmp_path)
    store, run_id, _ = two_runs(tmp_path, monkeypatch, capsys, "--fail-under", "exact_match=0.9")
    before = {name: (tmp_path / "out" / name).read_bytes() for name in FILES}
    code, printed = assay(capsys, "report", run_id, "--store", store, "--rewrite")
    assert code == 0, printed
    for name in FILES:
        assert (tmp_path / "out" / name).read_bytes() == before[name], name


def test_a_resume_that_writes_lost_files_keeps_the_gates_of_the_first_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    store, run_id, written = two_runs(tmp_path, monkeypatch, capsys,
                                      "--fail-under", "exact_match=0.9")
    (tmp_path / "out" / "results.json").unlink()
    code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress",
                          "--resume")  # without --fail-under this time
    assert code == 1 and "FAIL gate exact_match@only pass rate" in printed, printed
    again = results(tmp_path / "out")
    assert again["run"]["id"] == run_id and again["gates"] == written["gates"]


def test_a_resume_that_writes_lost_files_judges_the_gates_its_own_command_line_adds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the resume's `--fail-under` was ignored without a word and it exited 0
    on a run whose pass rate was below it."""
    monkeypatch.chdir(tmp_path)
    config, store = project(tmp_path), str(tmp_path / "s.db")
    monkeypatch.setenv("WRONG", "6")  # 14 of 20 right: 70%
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                          "-o", str(tmp_path / "out"))
    assert code == 0, printed
    (tmp_path / "out" / "report.md").unlink()
    code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress",
                          "--resume", "--fail-under", "exact_match=0.9")
    assert code == 1 and "FAIL gate exact_match@only pass rate" in printed, printed
    assert failed(results(tmp_path / "out")["gates"]) == ["exact_match@only pass rate"]

    code, printed = assay(capsys, "report", "latest", "--store", store, "--rewrite")
    assert code == 0, printed  # what the resume concluded is the run's review from now on
    assert failed(results(tmp_path / "out")["gates"]) == ["exact_match@only pass rate"]


@pytest.mark.parametrize(("spec", "message"), [
    ("exact_matc=0.5",
     ("--fail-under 'exact_matc=0.5': no scorer 'exact_matc' in this run; did you mean "
     "'exact_match'?")),
    ("exact_match@onyl=0.5",
     ("--fail-under 'exact_match@onyl=0.5': no condition 'onyl' in this run; did you mean "
     "'only'?")),
    ("exact_match@only.mean=0.5", "the metric goes before the '@': exact_match.mean@only"),
])
def test_a_fail_under_gate_on_an_unknown_name_is_refused_before_anything_runs(
        spec: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: every trial ran (paid calls), then the review stopped with exit 2 and the
    run was left `reviewing`, or the gate failed with "no results for this condition"."""
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path)
    code, printed = assay(capsys, "run", str(config), "--store", str(tmp_path / "s.db"),
                          "--no-progress", "--fail-under", spec)
    assert code == 2 and message in printed, printed
    from assay.store import Store

    opened = Store(str(tmp_path / "s.db"))
    assert opened.list_runs() == []
    opened.close()


def test_report_of_a_run_where_every_trial_failed_shows_its_errors_and_its_gate_failing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report` (and `assay view`) of a run aborted with no score at all
    refused with "gate on unknown scorer 'exact_match' (scorers: )", exit 2."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "down.py").write_text(
        "def answer(case):\n    raise RuntimeError('the service is down')\n", encoding="utf-8")
    config = write_project(tmp_path, {"only": {}}, cases=4, extra={
        "target": {"type": "python", "function": "down.py:answer"},
        "gates": [{"scorer": "exact_match", "min_pass_rate": 0.5}]})
    _store, printed = report_of_a_stopped_run(tmp_path, config, capsys, "every trial failed")
    assert "the service is down" in printed
    assert ("- FAIL exact_match@only pass rate: no trial got a verdict (4 errored)"
            in printed), printed


def test_regression_the_gates_of_a_run_that_stopped_part_way_never_read_as_passed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A run aborted by its error budget after 23 of 30 trials (exit 3) rendered as
    "gates: PASS (1 of 1 passed)" in `assay report`, and its JUnit showed the gate passing:
    the gate had been judged on the trials that happened to run before it stopped."""
    monkeypatch.chdir(tmp_path)
    config = write_stopping_project(tmp_path, cases=30, answered=20, max_errors=3, extra={
        "gates": [{"scorer": "exact_match", "min_pass_rate": 0.5}]})
    store, printed = report_of_a_stopped_run(tmp_path, config, capsys, "error budget")
    assert "(aborted)" in printed and "gates: FAIL (0 of 1 passed)" in printed, printed
    assert "- FAIL exact_match@only pass rate" in printed and "aborted" in printed
    _code, printed, _ = assay_apart(capsys, "report", "latest", "--store", store, "--format",
                                   "junit")
    gates = next(s for s in ET.fromstring(printed) if s.get("name", "").endswith("gates"))
    assert gates.get("failures") == "1", printed
