"""`assay report RUN --format junit` and `assay run --junit FILE` write the same kind of document."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .evalproject import assay, write_project


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
