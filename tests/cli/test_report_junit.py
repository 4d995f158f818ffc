"""`assay report RUN --format junit` and `assay run --junit FILE` write the same kind of document."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.terminal import as_at_a_terminal

from .evalproject import (
    PRESSES_CTRL_C,
    assay,
    assay_apart,
    report_and_largest_write,
    write_project,
    write_stopping_project,
)


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
    code, text, _ = assay_apart(capsys, "report", "latest", "--store", store, "--format",
                                "junit")
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
    code, text, _ = assay_apart(capsys, "report", "latest", "--store", store, "--format",
                                "junit")
    assert code == 0
    for root in (written, ET.fromstring(text)):
        [suite] = [s for s in root if s.get("name") == "coin"]
        assert suite.get("id") != "" and len(suite.findall("testcase")) == 6 + 2 + 1
        [stopped] = [c for c in suite.iter("testcase") if c.get("classname") == "coin.run"]
        error = stopped.find("error")
        assert error is not None and "aborted" in error.get("message", "")
        assert "error budget" in error.get("message", "")


def test_regression_a_run_stopped_by_ctrl_c_writes_its_junit_with_what_ran(
        tmp_path: Path) -> None:
    """`assay run --junit FILE` pressed Ctrl-C (exit 130) left an earlier run's JUnit in
    place, all passing, for CI to report as this run's. And with a target run on the event
    loop (`threaded: false`), Ctrl-C stopped nothing: every trial ran before exit 130."""
    (tmp_path / "junit.xml").write_text('<testsuites tests="1" failures="0" errors="0">'
                                        '<testsuite name="coin" tests="1"/></testsuites>')
    config = write_project(tmp_path, {"only": {"pressed_at": 4}}, cases=10, extra={
        "target": {"type": "python", "function": "presses.py:answer", "threaded": False},
        "run": {"concurrency": 1}})
    (tmp_path / "presses.py").write_text(PRESSES_CTRL_C)
    stopped = subprocess.run(
        [sys.executable, "-m", "assay", "run", str(config), "--no-progress", "--junit",
         "junit.xml"], cwd=tmp_path, env={**os.environ, "ASSAY_STORE": str(tmp_path / "s.db")},
        capture_output=True, text=True, preexec_fn=as_at_a_terminal, timeout=120)
    assert stopped.returncode == 130, stopped.stderr
    [suite] = [s for s in ET.parse(tmp_path / "junit.xml").getroot() if s.get("name") == "coin"]
    cases = suite.findall("testcase")
    ran = sorted(c.get("name") or "" for c in cases if c.get("classname") == "coin.only")
    assert ran == ["q000", "q001", "q002", "q003", "q004"]  # the trial Ctrl-C came in ends
    [run] = [c for c in cases if c.get("classname") == "coin.run"]
    error = run.find("error")
    assert error is not None and "interrupted" in error.get("message", "")
    assert "5 of 10 trials ran" in error.get("message", "")


def test_a_junit_report_is_written_as_it_is_made_not_held_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the document was built as one tree of elements, then one string, before a
    byte was written, so `assay report -f junit` of a 500,000-trial run peaked at 765 MB."""
    monkeypatch.chdir(tmp_path)
    config = write_project(tmp_path, {"a": {"rate": 1.0}, "b": {"rate": 0.5}}, cases=1000)
    assert assay(capsys, "run", str(config), "--no-progress")[0] in (0, 1)
    monkeypatch.setattr("assay.reports.junit.COPY_CHARS", 4096)  # as a big run's, in small
    document, largest = report_and_largest_write(monkeypatch, "junit")
    root = ET.fromstring(document)
    assert root.get("tests") == "2000" and len(list(root.iter("testcase"))) == 2000
    assert largest < 8192
