"""`assay validate` accepts exactly what `assay run` accepts: one config, several, globs, suites."""

from __future__ import annotations

from pathlib import Path

import pytest

from .evalproject import assay, write_project


def project(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A valid config, good.yaml, and one whose gate names no condition of it, broken.yaml."""
    monkeypatch.chdir(root)
    good = write_project(root, {"v1": {"rate": 0.5}}, cases=5, config="good.yaml")
    broken = write_project(root, {"v1": {"rate": 0.5}}, cases=5, config="broken.yaml",
                           extra={"gates": [{"scorer": "exact_match", "condition": "v9",
                                             "min_pass_rate": 0.5}]})
    return good, broken


def test_a_suite_file_that_assay_run_runs_validates_config_by_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay validate suite.yaml` refused a suite file `assay run suite.yaml`
    runs, reading it as a config: 'missing required key name ... unknown key suite'."""
    project(tmp_path, monkeypatch)
    (tmp_path / "suite.yaml").write_text("suite:\n  - good.yaml\n", encoding="utf-8")
    code, out = assay(capsys, "validate", "suite.yaml")
    assert code == 0, out
    assert out.splitlines() == [
        "ok good.yaml: experiment 'coin', 5 cases (assay), 1 condition, 1 scorer, 5 trials"]


def test_every_config_is_checked_and_each_invalid_one_named_as_assay_run_names_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: validate stopped at the first invalid config of several, so the ones after
    it were never checked, and a quoted glob, which `assay run` expands, was 'not found'."""
    project(tmp_path, monkeypatch)
    (tmp_path / "also-broken.yaml").write_text("name: x\n", encoding="utf-8")
    code, out = assay(capsys, "validate", "*.yaml")
    assert code == 2, out
    assert "ok good.yaml: experiment 'coin'" in out
    assert "error: 2 of 3 configs are invalid" in out
    assert "also-broken.yaml:1 [dataset]: missing required key 'dataset'" in out
    assert "broken.yaml" in out and "v9" in out
    code, ran = assay(capsys, "run", "*.yaml", "--no-progress")
    assert code == 2 and "2 of 3 configs of the suite are invalid" in ran


def test_one_invalid_config_gives_its_own_error_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, monkeypatch)
    code, out = assay(capsys, "validate", "broken.yaml")
    assert code == 2, out
    assert out.splitlines() == [
        "error: invalid config broken.yaml",
        "  broken.yaml:16 [gates.0.condition]: unknown condition 'v9' (declared: v1)"]


def test_a_judge_grading_its_own_model_is_warned_of_as_assay_run_warns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay run` warned that the judge was the model under test, and `assay
    validate` of the same config said only 'ok'."""
    project(tmp_path, monkeypatch)
    monkeypatch.setenv("OPENAI_API_KEY", "placeholder")
    write_project(tmp_path, {"v1": {"rate": 0.5}}, config="self.yaml", extra={
        "target": {"type": "model", "model": "openai/gpt-4.1"},
        "conditions": {"v1": {}}, "judge": {"model": "openai/gpt-4.1"},
        "scorers": [{"type": "judge_score"}]})
    code, out = assay(capsys, "validate", "self.yaml")
    assert code == 0, out
    assert "warning: scorer 'judge_score': the judge model openai/gpt-4.1 is also the target " \
           "model (openai/gpt-4.1)" in " ".join(out.split())


def test_a_regression_baseline_no_stored_run_answers_to_is_refused_as_assay_run_refuses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay validate` said ok to a regression gate whose baseline names no
    stored run, and `assay run` of the same config refused it, exit 2, naming neither the
    file nor the line ('no run 'nope' in s.db')."""
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "s.db")
    plain = write_project(tmp_path, {"v1": {"rate": 0.5}}, cases=5)
    assert assay(capsys, "run", str(plain), "--store", store, "--no-progress")[0] == 0
    gated = write_project(tmp_path, {"v1": {"rate": 0.5}}, cases=5, config="gated.yaml",
                          extra={"gates": [{"regression": {"baseline": "nope"}}]})
    line = next(n for n, text in enumerate(gated.read_text().splitlines(), 1)
                if "baseline" in text)
    for command in ("validate", "run"):
        code, out = assay(capsys, command, "gated.yaml", "--store", store)
        assert code == 2, out
        assert f"gated.yaml:{line} [gates.0.regression.baseline]: no run 'nope' in" in out, out
