"""The judges' part of a run's review, as every report shows it: a rubric judge's mean per
metric and condition with its interval and the unverified claims counted, and with
`repeats` the unstable verdicts counted and named per scorer and condition."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from statistics import mean
from typing import Any

import orjson
import pytest

from assay.review.judges import review_judges
from assay.store import Store
from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from tests.cli.evalproject import assay, write_project
from tests.fake_sdks import point_sdks_at


def run_rubric_eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, Any]]:
    config = write_project(tmp_path, {"weak": {"rate": 0.3},
                                      "strong": {"rate": 0.9}}, cases=30, extra={
        "judge": {"model": "openai/gpt-judge"},
        "scorers": [{"type": "rubric", "repeats": 3}]})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("COLUMNS", "200")
    with FakeLLM(judge=FakeJudge(JudgeBiases(score_noise=1.0, seed=7))) as llm:
        point_sdks_at(llm, monkeypatch)
        code, out = assay(capsys, "run", str(config), "-o", str(tmp_path / "out"))
    assert code == 0, out
    return out, json.loads((tmp_path / "out" / "results.json").read_text())


def test_rubric_metrics_and_unstable_verdicts_are_in_every_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    out, results = run_rubric_eval(tmp_path, monkeypatch, capsys)
    judges = results["judges"]
    # each metric's mean per condition is the mean over the cases of the stored metric values
    stored: dict[tuple[str, str], list[float]] = defaultdict(list)
    unstable: dict[str, list[str]] = defaultdict(list)
    for trial in results["trials"]:
        details = trial["scores"]["rubric"]["details"]
        for metric, value in details["metrics"].items():
            stored[(metric, trial["condition"])].append(float(value))
        if details.get("unstable"):
            unstable[trial["condition"]].append(trial["case_id"])
    metrics = {(m["metric"], m["condition"]): m for m in judges["metrics"]}
    assert set(metrics) == set(stored) and len({metric for metric, _ in stored}) >= 3
    for key, values in stored.items():
        assert metrics[key]["mean"] == pytest.approx(mean(values))
        assert metrics[key]["n"] == 30
        low, high = metrics[key]["interval"]["low"], metrics[key]["interval"]["high"]
        assert low <= metrics[key]["mean"] <= high
    # the strong condition's answers are right more often, and the judge's metrics say so
    some_metric = next(metric for metric, _ in stored)
    assert metrics[(some_metric, "strong")]["mean"] > metrics[(some_metric, "weak")]["mean"]
    # noise of SD 1 over three asks puts some verdicts on both sides of the pass line
    counted = {u["condition"]: u for u in judges["unstable"]}
    assert sum(len(cases) for cases in unstable.values()) > 0
    for condition in ("weak", "strong"):
        assert counted[condition]["unstable"] == len(unstable[condition])
        assert sorted(counted[condition]["cases"]) == sorted(unstable[condition])
        assert counted[condition]["judged"] == 30
    claims = {c["condition"]: c for c in judges["claims"]}
    assert set(claims) == {"weak", "strong"}
    report_md = (tmp_path / "out" / "report.md").read_text()
    report_html = (tmp_path / "out" / "report.html").read_text()
    for text in (out, report_md, report_html):
        assert re.search("rubric metrics per condition", text, re.IGNORECASE)
        assert re.search(r"unstable verdicts", text, re.IGNORECASE)
        assert "unverified claims" in text
        strong = counted["strong"]
        if strong["cases"]:
            assert strong["cases"][0] in text
    row = metrics[(some_metric, "strong")]
    assert f"{row['mean']:.2f}" in out and f"{row['mean']:.2f}" in report_md


def test_the_judges_gathered_by_the_one_read_of_a_run_are_those_the_store_reads_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, results = run_rubric_eval(tmp_path, monkeypatch, capsys)
    store = Store(str(tmp_path / "assay.db"))
    run = store.get_run(results["run"]["id"])
    assert run is not None
    again = review_judges(store, run, [c["condition"] for c in results["stats"]["conditions"]])
    store.close()
    assert results["judges"]["judges"] and results["judges"]["consistency"]
    assert json.loads(orjson.dumps(again.to_dict())) == results["judges"]


def test_a_calibrated_judge_s_kappa_reads_as_assay_calibrations_lists_it() -> None:
    """Regression: a kappa of 0.625 read `kappa 0.62` in the run's report and `0.63` in
    `assay calibrations`."""
    from assay.records import CalibrationRecord
    from assay.review.judges import JudgeStatus

    record = CalibrationRecord("c1", "2026-01-01T00:00:00", "pass_fail", 16, True,
                               judge_model="m/j", agreement=0.8125, kappa=0.625,
                               min_kappa=0.5)
    status = JudgeStatus("judge", "m/j", "abc", record)
    assert ", kappa 0.63 over 16 labelled items" in status.describe()
