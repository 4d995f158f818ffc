"""Every output names a trial's epoch one way: counted from 1, of the run's epochs.

Regression: JUnit and the viewer wrote "epoch 0" and "epoch 1" for a run's
first two epochs, while report.md, report.html and the pytest plugin left
the first unnamed and wrote "epoch 1" for the second: one trial, two names.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

import httpx

import assay
from assay.api.evaluate import EvalResult
from assay.case import Case
from assay.pytest_plugin.failure import failure_report
from assay.reports.junit import render_junit
from assay.review.result import GateResult
from tests.reports.test_html import page_data


def _evaluated(tmp_path: Path) -> EvalResult:
    calls: Counter[str] = Counter()

    def answer(case: Case) -> str:
        calls[case.id] += 1
        if case.id == "flaky" and calls[case.id] == 2:
            raise RuntimeError("the service is down")
        return "right" if case.id == "flaky" else "wrong"

    data = [{"id": "flaky", "input": "q", "expected": "right"},
            {"id": "always-wrong", "input": "q", "expected": "right"}]
    return assay.evaluate("labels", data=data, task=answer, scorers=["exact_match"], epochs=3,
                          store=tmp_path / "assay.db", output=tmp_path / "out")


def test_regression_every_output_names_the_first_of_three_epochs_epoch_1_of_3(
        tmp_path: Path) -> None:
    result = _evaluated(tmp_path)
    (errored,) = [t.epoch for t in result.trials() if t.error]
    label = f"epoch {errored + 1} of 3"

    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f"- `flaky` · default · {label}: RuntimeError" in report
    for n in (1, 2, 3):
        assert f"- `always-wrong` · default · epoch {n} of 3 · exact_match:" in report

    junit = html.unescape(render_junit(result.run, result.trials()))
    assert f"{label}: target: RuntimeError" in junit
    assert "epoch 1 of 3: exact_match:" in junit and "epoch 3 of 3: exact_match:" in junit

    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert page_data(page)["epochs"] == ["epoch 1 of 3", "epoch 2 of 3", "epoch 3 of 3"]

    failed = GateResult("exact_match@default pass rate", False, "0.0% (min 80.0%)")
    listed = failure_report(result, [failed], total=1)
    assert "always-wrong (epoch 1 of 3): " in listed
    assert f"flaky ({label}): error: RuntimeError" in listed

    from assay.testing.viewer import ViewerThread
    from assay.view.server import open_for_viewing

    store = open_for_viewing(str(tmp_path / "assay.db"))
    try:
        with ViewerThread(store) as viewer:
            trial = httpx.get(f"{viewer}runs/{result.run.id}/trial",
                              params={"case": "always-wrong", "condition": "default",
                                      "epoch": 0}).text
            cases = httpx.get(f"{viewer}runs/{result.run.id}/cases").text
    finally:
        store.close()
    assert ", epoch 1 of 3</h1>" in trial
    assert "default · epoch 3 of 3</a>" in trial
    assert cases.count('<span class="epoch">epoch 1 of 3</span>') == 2
    for text in (report, junit, listed, trial, cases):
        assert "epoch 0" not in text and "epoch 4" not in text
