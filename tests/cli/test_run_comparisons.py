"""`assay run` compares its conditions: noise is called noise, a real +20pp is called significant."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.analysis.pass_rate_delta import tango_interval

from .evalproject import assay, results, write_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")  # one line per comparison, as a wide terminal shows it
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], root: Path, config: Path, *extra: str
        ) -> tuple[int, str, dict]:
    code, text = assay(capsys, "run", str(config), "--store", str(root / "s.db"),
                       "--output", str(root / "out"), "--no-progress", *extra)
    return code, text, results(root / "out")


def test_two_conditions_differing_only_by_noise_report_no_significant_difference(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"a": {"rate": 0.6, "stream": "one"},
                                     "b": {"rate": 0.6, "stream": "two"}})
    code, text, data = run(capsys, project, config)
    assert code == 0
    [comparison] = data["comparisons"]["comparisons"]
    assert (comparison["label_a"], comparison["label_b"], comparison["n"]) == ("a", "b", 100)
    assert comparison["significant"] is False
    assert "within noise" in comparison["verdict"]
    assert "significant" not in comparison["verdict"]
    assert comparison["ci_pp"]["low"] < 0 < comparison["ci_pp"]["high"]
    # independent draws: both sides win some cases, and the lists name them
    assert comparison["wins"] and comparison["losses"]
    assert "conditions vs baseline 'a'" in text and "within noise" in text


def test_a_real_plus_20pp_effect_on_100_cases_is_significant(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"base": {"rate": 0.5}, "better": {"rate": 0.7}})
    code, text, data = run(capsys, project, config)
    assert code == 0
    [c] = data["comparisons"]["comparisons"]
    passed = {cond: data["summary"]["exact_match"]["conditions"][cond]["accuracy"]
              for cond in ("base", "better")}
    assert c["delta_pp"] == pytest.approx(passed["better"] - passed["base"])
    assert c["delta_pp"] > 10
    assert c["significant"] is True and c["test"] == "asymptotic McNemar"
    assert c["p_value"] < 0.001
    assert c["losses"] == []  # the same draws: a higher rate only adds passes
    assert len(c["wins"]) == round(c["delta_pp"])
    assert c["reading"] == "strong"
    advice = {a["metric"]: a for a in c["advice"]}
    assert advice["pass_rate"]["n"] == 100 and advice["pass_rate"]["cases_needed"] is None
    assert advice["pass_rate"]["reason"] == "already significant with 100 cases"
    assert "significant" in text and "(strong gain)" in text
    report = (project / "out" / "report.md").read_text()
    assert "## Conditions compared with `base`" in report
    assert f"better wins ({len(c['wins'])})" in report and "`" + c["wins"][0] + "`" in report


def test_baseline_option_picks_the_condition_others_are_read_against(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"low": {"rate": 0.3}, "mid": {"rate": 0.5},
                                     "high": {"rate": 0.7}}, cases=40)
    code, _, data = run(capsys, project, config, "--baseline", "high")
    assert code == 0
    block = data["comparisons"]
    assert block["baseline"] == "high" and block["family_size"] == 2
    assert [c["label_b"] for c in block["comparisons"]] == ["low", "mid"]
    assert all(c["delta_pp"] < 0 for c in block["comparisons"])
    assert all(c["p_adjusted"] >= c["p_value"] for c in block["comparisons"])


def test_an_unknown_baseline_is_a_usage_error_before_anything_runs(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_project(project, {"a": {"rate": 0.5}, "b": {"rate": 0.5}}, cases=5)
    code, text = assay(capsys, "run", str(config), "--store", str(project / "s.db"),
                       "--baseline", "c", "--no-progress")
    assert code == 2
    assert "--baseline 'c': no condition 'c' in this run" in text and "a, b" in text
    assert not (project / ".assay" / "runs").exists()


def test_three_cases_that_all_flip_read_as_a_large_drop_within_noise(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # regression: "95% CI -100.0..-100.0pp p=0.12 no significant difference · significant
    # regression" from 4 cases, and advice of "about 4 cases" for a test that could not
    # reject there; McNemar's score test rejects 4 of 4 flipped (p=0.046), not 3 of 3
    config = write_project(project, {"before": {"rate": 1.0}, "after": {"rate": 0.0}}, cases=3)
    code, text, data = run(capsys, project, config)
    assert code == 0
    [c] = data["comparisons"]["comparisons"]
    assert (c["delta_pp"], c["significant"], c["reading"]) == (-100.0, False,
                                                               "significant regression")
    high = tango_interval(3, 0, 3, 0.95)[1] * 100
    assert c["ci_pp"]["low"] == -100.0 and c["ci_pp"]["high"] == pytest.approx(high)
    line = next(line for line in text.splitlines() if "· after" in line and "95% CI" in line)
    assert f"-100.0pp (large drop)  95% CI -100.0..{high:+.1f}pp  p=0.083  within noise" in line
    assert "significant" not in line
    report = (project / "out" / "report.md").read_text()
    assert "size: large drop" in report and "significant regression" not in report
    assert "±0.0pp" not in report
    html = (project / "out" / "report.html").read_text()
    assert "large drop" in html and "within noise" in html
    assert "significant regression" not in html and ">significant<" not in html
    [advice] = [a for a in c["advice"] if a["metric"] == "pass_rate"]
    assert advice["cases_needed"] > 3 and advice["test"] == "asymptotic McNemar"


GRADER = '''
from assay import Score


def answer(case, cond):
    if cond == "cand" and case.id == "c9":
        return ""  # the candidate gives up on one case
    return f"{cond} {case.id[1:]}"


def quality(case, output: str):
    if not output.strip():
        return False  # nothing to grade: a failed verdict, a 0 on its own 0..1 scale
    cond, i = output.split()
    grade = 4.0 + int(i) % 4 + 0.5 * (int(i) % 2) + (1.5 if cond == "cand" else 0.0)
    return Score(value=grade, scale=(0.0, 10.0))
'''


def test_a_grader_that_returns_false_for_an_empty_answer_is_compared_on_its_mean_and_scale(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a python scorer grading answers 0-10 and returning False for an empty
    one (a 0-1 verdict) read `cand 10 6.350 [4.503–1.000]` in the score table, its mean
    above its own interval (the scale of the last value, 0..1), and its comparison was
    'not compared: ... 1 errored in base; 9 errored in both', of a run where nothing
    errored. It is compared on its mean over the ten cases, on the 0..10 scale."""
    (project / "grader.py").write_text(GRADER)
    (project / "cases.jsonl").write_text("".join(
        f'{{"id": "c{i}", "input": "q", "expected": "x"}}\n' for i in range(10)))
    (project / "assay.yaml").write_text(
        "name: graded\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'grader:answer', threaded: false}\n"
        "conditions: {base: {args: {cond: base}}, cand: {args: {cond: cand}}}\n"
        "scorers: [{type: python, name: quality, function: 'grader:quality'}]\n")
    code, text, data = run(capsys, project, project / "assay.yaml")
    assert code == 0
    [cand] = [s for s in data["stats"]["scores"] if s["condition"] == "cand"]
    assert cand["scale"] == [0.0, 10.0]
    assert cand["mean_ci"]["low"] < cand["mean"] < cand["mean_ci"]["high"] <= 10
    [c] = data["comparisons"]["comparisons"]
    assert data["comparisons"]["skipped"] == []
    assert (c["kind"], c["n"], c["excluded"]["count"]) == ("score", 10, 0)
    # nine cases 1.5 higher, the empty one 5.5 lower: a mean gain of 0.8
    assert c["delta_mean"] == pytest.approx(0.8)
    assert c["ci_mean"]["low"] < 0.8 < c["ci_mean"]["high"]
    assert "quality · cand  5.550 → 6.350  +0.800" in text
