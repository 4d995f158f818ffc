"""`assay report RUN --format junit` and `assay run --junit FILE` write the same kind of document."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .evalproject import assay, write_project, write_stopping_project


def test_run_and_report_write_junit_with_a_test_per_case_and_condition(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    gates = [{"scorer": "exact_match", "condition": "weak", "min_pass_rate": 0.9}]
    config = write_project(tmp_path, {"weak": {"rate": 0.3}, "strong": {"rate": 1.0}},
                           cases=10, extra={"gates": gates})
    store = str(tmp_path / "s.db")
    code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                    "--junit", "reports/junit.xml")
    assert code == 1
    written = ET.parse(tmp_path / "reports" / "junit.xml").getroot()
    code, text = assay(capsys, "report", "latest", "--store", store, "--format", "junit")
    assert code == 0
    rendered = ET.fromstring(text)
    for root in (written, rendered):
        cases = list(root.iter("testcase"))
        assert len(cases) == 10 * 2 + 1
        weak = [c for c in cases if c.get("classname") == "coin.weak"]
        failed = [c for c in weak if c.find("failure") is not None]
        assert 0 < len(failed) < 10
        assert failed[0].find("failure").get("type") == "exact_match"
        [gate] = [c for c in cases if c.get("classname") == "coin.gates"]
        assert gate.get("name") == "exact_match@weak pass rate (min 90.0%)" and gate.find("failure") is not None
    assert int(rendered.get("failures")) == int(written.get("failures"))


def test_regression_a_run_that_could_not_complete_writes_its_junit_with_the_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`assay run --junit FILE` of a run stopped by its error budget (exit 3) wrote no JUnit:
    the file of an earlier run stayed in place, and CI reported its tests, all passing."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"only": {"rate": 1.0}}, cases=10)
    store = str(tmp_path / "s.db")
    code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                    "--junit", "junit.xml")
    assert code == 0 and ET.parse(tmp_path / "junit.xml").getroot().get("errors") == "0"
    config = write_stopping_project(tmp_path, cases=10, answered=6, max_errors=2)
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                          "--junit", "junit.xml")
    assert code == 3 and "error budget" in printed, printed
    written = ET.parse(tmp_path / "junit.xml").getroot()
    code, text = assay(capsys, "report", "latest", "--store", store, "--format", "junit")
    assert code == 0
    for root in (written, ET.fromstring(text)):
        [suite] = [s for s in root if s.get("name") == "coin"]
        assert suite.get("id") != "" and len(suite.findall("testcase")) == 6 + 2 + 1
        [stopped] = [c for c in suite.iter("testcase") if c.get("classname") == "coin.run"]
        error = stopped.find("error")
        assert error is not None and "aborted" in error.get("message", "")
        assert "error budget" in error.get("message", "")
