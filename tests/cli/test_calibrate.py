"""`assay calibrate` on the command line: the bar and its exit code, the four formats, the
list, a stored run's verdicts, and `judge: {require_calibration: true}` refusing a changed judge.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from assay.testing import FakeJudge, FakeLLM, JudgeBiases
from tests.calibration.planted import PASS_FAIL_FIELDS, pass_fail_labels, truth_of, write_project
from tests.cli.evalproject import assay
from tests.fake_sdks import point_sdks_at
from tests.terminal import signalled_while

LABELS = pass_fail_labels(60, seed=2)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    config = write_project(tmp_path, LABELS, scorers=[{"type": "judge_score"}],
                           calibration={"labels": {"path": "labels.jsonl",
                                                   "fields": PASS_FAIL_FIELDS}})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("COLUMNS", "200")
    with FakeLLM(judge=FakeJudge(JudgeBiases(labels=truth_of(LABELS), label_agreement=0.8,
                                             seed=3))) as llm:
        point_sdks_at(llm, monkeypatch)
        yield config


def test_below_the_bar_exits_1_and_a_lower_bar_passes_and_both_are_listed(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = assay(capsys, "calibrate", str(project))
    assert code == 1, out
    assert "BELOW THE BAR: agreement" in out and "raw agreement" in out
    assert "Cohen's kappa" in out and "confusion" in out
    code, out = assay(capsys, "calibrate", str(project), "--min-agreement", "0.6")
    assert code == 0, out
    assert "PASS: agreement" in out
    code, out = assay(capsys, "calibrate", "--list")
    assert code == 0
    assert out.count("openai/gpt-judge") == 2 and "below the bar" in out and "pass" in out


def test_json_markdown_and_html_say_the_same_numbers(
        project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out = assay(capsys, "calibrate", str(project), "--format", "json", "--no-save")
    document = json.loads(out)
    assert code == 1 and document["n"] == 60 and document["passed"] is False
    agreement = document["agreement"]
    code, out = assay(capsys, "calibrate", str(project), "--format", "md", "--no-save")
    assert f"| raw agreement | {agreement:.1%} |" in out
    code, _ = assay(capsys, "calibrate", str(project), "--format", "html", "-o",
                    str(tmp_path / "cal.html"), "--no-save")
    page = (tmp_path / "cal.html").read_text()
    assert f"{agreement:.1%}" in page and "below the bar" in page and "<script" not in page
    code, out = assay(capsys, "calibrate", "--list")
    assert "no calibrations stored yet" in out  # --no-save kept them out


def test_in_a_narrow_terminal_each_measure_keeps_its_value_beside_its_name(
        project: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: at 40 columns the table dropped its value column, so 'raw agreement'
    stood beside its interval's low end, a number lower than the agreement."""
    code, out = assay(capsys, "calibrate", str(project), "--format", "json", "--no-save")
    agreement = json.loads(out)["agreement"]
    monkeypatch.setenv("COLUMNS", "40")
    code, out = assay(capsys, "calibrate", str(project), "--no-save")
    assert code == 1
    assert f"raw agreement: value {agreement:.1%}, 95% CI" in " ".join(out.split()), out


def test_a_stored_runs_verdicts_are_joined_to_the_labels_by_case_id(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = assay(capsys, "run", str(project))
    assert code == 0, out
    code, out = assay(capsys, "calibrate", str(project), "--run", "latest", "--format", "json",
                      "--min-agreement", "0.5")
    document = json.loads(out)
    assert code == 0, out
    assert document["n"] == 60 and document["source"].startswith("run ")
    assert document["judge"]["model"] == "openai/gpt-judge"


def test_a_stored_runs_trials_with_no_label_are_counted_as_left_out_on_screen_and_in_json(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with labels for 20 of a run's 60 trials, the other 40 were left out with
    no word: the screen said 'over 20 items' and the json's only_judged was empty."""
    code, out = assay(capsys, "run", str(project))
    assert code == 0, out
    (tmp_path / "few.jsonl").write_text("".join(json.dumps(row) + "\n" for row in LABELS[:20]))
    arguments = ("calibrate", str(project), "--run", "latest", "--labels",
                 str(tmp_path / "few.jsonl"), "--min-agreement", "0.5", "--no-save")
    code, out = assay(capsys, *arguments)
    assert code == 0, out
    assert "left out, no label: 40 judged items (c020, c021, c022" in out, out
    code, out = assay(capsys, *arguments, "--format", "json")
    document = json.loads(out)
    assert document["n"] == 20 and len(document["only_judged"]) == 40
    assert document["left_out"] == {"no_verdict": 0, "judge_error": 0, "empty_label": 0,
                                    "no_label": 40}
    assert document["only_judged"][0] == "c020"


def test_a_run_of_two_epochs_counts_each_labelled_case_once_and_says_which_answer(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: of a run with `epochs: 2`, the labels were joined to each case's first
    answer without a word of it, and the judge's verdicts on the second were listed as
    'left out, no label: 60 judged items (c000#1, ...)' though people had labelled them."""
    code, out = assay(capsys, "run", str(project), "--epochs", "2")
    assert code == 0, out
    arguments = ("calibrate", str(project), "--run", "latest", "--min-agreement", "0.5",
                 "--no-save")
    code, out = assay(capsys, *arguments)
    assert code == 0, out
    assert "left out, no label" not in out
    assert ("note: the run answered each case 2 times (`epochs: 2`); a label without an "
            "`epoch` is joined to its case's first answer (epoch 0), so each labelled case "
            "counts once, and the judge's verdicts on the other answers (60 trials) are left "
            "out (a label's `epoch`, 0 to 1, names the answer it judged)") in " ".join(
                out.split()), out
    code, out = assay(capsys, *arguments, "--format", "json")
    document = json.loads(out)
    assert document["n"] == 60 and document["only_judged"] == []


def test_require_calibration_refuses_a_judge_changed_since_its_passing_calibration(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = yaml.safe_load(project.read_text())
    config["judge"]["require_calibration"] = True
    project.write_text(yaml.safe_dump(config))
    code, out = assay(capsys, "run", str(project))
    assert code == 2 and "has never passed a calibration" in out, out
    # the scorer is named at its line, as any config problem is (it had no line)
    line = project.read_text().splitlines().index("scorers:") + 2
    assert f"{project.name}:{line} [scorers.0]: scorer 'judge_score'" in out, out
    assert assay(capsys, "calibrate", str(project), "--min-agreement", "0.6")[0] == 0
    code, out = assay(capsys, "run", str(project))
    assert code == 0, out
    assert "uncalibrated judge" not in out
    config["judge"]["model"] = "openai/gpt-other"
    config["scorers"] = [{"type": "judge_score", "threshold": 8}]
    project.write_text(yaml.safe_dump(config))
    code, out = assay(capsys, "run", str(project))
    assert code == 2, out
    assert "changed since its last passing calibration" in out
    assert "judge model openai/gpt-judge -> openai/gpt-other" in out
    assert "rubric version" in out  # the pass line moved from 7 to 8


def test_validate_refuses_an_uncalibrated_judge_that_assay_run_refuses(
        project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Regression: with `require_calibration: true` and no passing calibration, `assay validate`
    said 'ok' and `assay run` then stopped with exit 2: the two now agree, before and after
    the judge is calibrated."""
    config = yaml.safe_load(project.read_text())
    config["judge"]["require_calibration"] = True
    project.write_text(yaml.safe_dump(config))
    code, out = assay(capsys, "validate", str(project))
    assert code == 2, out
    assert "has never passed a calibration" in out and not out.startswith("ok")
    line = project.read_text().splitlines().index("scorers:") + 2
    assert f"{project.name}:{line} [scorers.0]:" in out, out
    assert not (tmp_path / "assay.db").exists()  # a store not there is read, not made
    assert assay(capsys, "calibrate", str(project), "--min-agreement", "0.6")[0] == 0
    code, out = assay(capsys, "validate", str(project))
    assert code == 0, out
    assert out.startswith("ok ")
    assert assay(capsys, "run", str(project))[0] == 0


@pytest.mark.parametrize("command", ["run", "validate"])
def test_the_calibrate_command_suggested_for_an_uncalibrated_judge_reads_the_runs_store(
        project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        command: str) -> None:
    """Regression: `assay run assay.yaml --store team.db` of a config requiring calibration
    said 'calibrate with: assay calibrate /abs/path/assay.yaml', which calibrated into the
    default store, so the same run was refused again however often the user followed it."""
    config = yaml.safe_load(project.read_text())
    config["judge"]["require_calibration"] = True
    project.write_text(yaml.safe_dump(config))
    code, out = assay(capsys, command, project.name, "--store", "team.db")
    assert code == 2, out
    suggested = f"assay calibrate {project.name} --store team.db --scorer judge_score"
    assert f"(calibrate with: {suggested})" in out, out
    arguments = [*suggested.split()[1:], "--min-agreement", "0.6"]
    assert assay(capsys, *arguments)[0] == 0
    code, out = assay(capsys, command, project.name, "--store", "team.db")
    assert code == 0, out
    assert not (tmp_path / "assay.db").exists()  # ASSAY_STORE's, which the hint did not name


def test_the_command_suggested_for_a_judge_other_than_the_calibration_sections_calibrates_it(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a config whose `calibration:` names judge_score and whose second judge
    had never been calibrated was refused with 'calibrate with: assay calibrate assay.yaml',
    which calibrated judge_score again, so the run was refused however often it was
    followed; the command now names the scorer."""
    config = yaml.safe_load(project.read_text())
    config["judge"]["require_calibration"] = True
    config["scorers"].append({"type": "judge_score", "name": "second_opinion",
                              "model": "openai/gpt-other"})
    config["calibration"]["scorer"] = "judge_score"
    project.write_text(yaml.safe_dump(config))
    assert assay(capsys, "calibrate", project.name, "--min-agreement", "0.6")[0] == 0
    code, out = assay(capsys, "run", project.name)
    assert code == 2, out
    assert "scorer 'second_opinion'" in out and "scorer 'judge_score'" not in out, out
    suggested = f"assay calibrate {project.name} --scorer second_opinion"
    assert f"(calibrate with: {suggested})" in out, out
    assert assay(capsys, *suggested.split()[1:], "--min-agreement", "0.6")[0] == 0
    code, out = assay(capsys, "run", project.name)
    assert code == 0, out


def test_a_suite_with_an_uncalibrated_judge_runs_nothing(
        project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Regression: a suite checked every config before the first ran except for its judges'
    calibrations, so a suite of [plain.yaml, assay.yaml] ran plain.yaml to the end, paid
    for it, and only then stopped at assay.yaml's uncalibrated judge."""
    config = yaml.safe_load(project.read_text())
    plain = {**config, "name": "plain", "scorers": [{"type": "contains", "value": "Jupiter"}]}
    (tmp_path / "plain.yaml").write_text(yaml.safe_dump(plain))
    config["judge"]["require_calibration"] = True
    project.write_text(yaml.safe_dump(config))
    (tmp_path / "suite.yaml").write_text("suite: [plain.yaml, assay.yaml]\n")
    code, out = assay(capsys, "run", "suite.yaml", "--no-progress")
    assert code == 2, out
    assert "1 of 2 configs of the suite is invalid; nothing was run" in out
    assert "has never passed a calibration" in out
    code, out = assay(capsys, "runs")
    assert "plain" not in out, out


def test_a_run_whose_judge_has_no_passing_calibration_says_so_in_every_report(
        project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out = assay(capsys, "run", str(project), "-o", str(tmp_path / "out"))
    assert code == 0
    assert "uncalibrated judge: judge_score (openai/gpt-judge)" in out
    assert "uncalibrated judge" in (tmp_path / "out" / "report.md").read_text()
    assert "uncalibrated judge" in (tmp_path / "out" / "report.html").read_text()
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["judges"]["judges"][0]["calibrated"] is False


def test_a_judge_that_gave_no_readable_verdict_at_all_is_exit_3_not_a_bad_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: every reply unreadable ended in exit 2, which CI reads as "fix your config",
    though the labels and config were fine and the judge could not be used."""
    config = write_project(tmp_path, LABELS[:6], scorers=[{"type": "judge_score"}],
                           calibration={"labels": {"path": "labels.jsonl",
                                                   "fields": PASS_FAIL_FIELDS}})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    with FakeLLM(default="I would rather not say.") as llm:  # plays no judge
        point_sdks_at(llm, monkeypatch)
        code, out = assay(capsys, "calibrate", str(config))
    assert code == 3, out
    assert "the judge gave no readable verdict: 6 judge errors" in out
    code, out = assay(capsys, "calibrate", "--help")  # which said 0, 1 or 2 only
    assert "3 the judge gave no readable verdict" in " ".join(out.split()), out


def test_labels_of_another_kind_than_the_judges_verdicts_are_exit_2_not_a_failed_judge(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: one label that is neither pass nor fail ("unsure") makes the file's labels
    free-text labels, which a pass/fail judge's stored verdicts cannot be read as; that ended
    in exit 3 "the judge gave no readable verdict" (and "holds no a label"), blaming a judge
    that had answered every item."""
    code, out = assay(capsys, "run", str(project))
    assert code == 0, out
    labels = [dict(row) for row in LABELS]
    labels[0] = {**labels[0], "human": {"verdict": "unsure"}}
    (tmp_path / "odd.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels))
    code, out = assay(capsys, "calibrate", str(project), "--run", "latest",
                      "--labels", str(tmp_path / "odd.jsonl"), "--no-save")
    assert code == 2, out
    assert "read as labels" in out and "'unsure'" in out
    assert "pass/fail verdict" in out and "no readable verdict" not in out


def test_the_one_label_neither_pass_nor_fail_is_named_at_its_line_and_field(
        project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: pass/fail labels with one 'unsure' on line 3 were refused naming the file
    alone, the user left to search it for the value that is neither pass nor fail."""
    labels = [dict(row) for row in LABELS]
    labels[2] = {**labels[2], "human": {"verdict": "unsure"}}
    (tmp_path / "odd.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels))
    code, out = assay(capsys, "calibrate", str(project),
                      "--labels", str(tmp_path / "odd.jsonl"), "--no-save")
    assert code == 2, out
    flat = " ".join(out.split())
    assert f"neither pass nor fail: {tmp_path / 'odd.jsonl'}:3 [human.verdict] 'unsure'" in flat


def test_labels_with_no_output_to_grade_are_exit_2_at_their_lines_not_a_failed_judge(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a labels mapping with no `output:` sent nothing to the judge, each item was
    counted a judge error, and calibrate ended 'the judge gave no readable verdict: 60 judge
    errors', exit 3, blaming a judge that was never asked."""
    spec = yaml.safe_load(project.read_text())
    del spec["calibration"]["labels"]["fields"]["output"]
    project.write_text(yaml.safe_dump(spec, sort_keys=False))
    code, out = assay(capsys, "calibrate", str(project), "--no-save")
    assert code == 2, out
    flat = " ".join(out.split())
    assert "give the judge nothing to grade" in flat and "no readable verdict" not in flat
    assert "labels.jsonl:1 [output]: item " in flat
    assert "has no output for the judge to grade; map it with fields: {output: ...}" in flat


def test_no_spec_is_exit_2_and_makes_no_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`assay calibrate` with no spec made an empty store before saying what was missing."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    code, said = assay(capsys, "calibrate")
    assert code == 2 and "give the calibration spec" in said
    assert not (tmp_path / ".assay").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("send", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_stored_calibration_is_printed_keeps_its_verdict(
        project: Path, send: str) -> None:
    """Ctrl-C or SIGTERM while a passing calibration was printed said 'interrupted' and
    exited 130, though the calibration was measured and stored."""
    result = signalled_while("assay.reports.calibration.print_calibration",
                             ["assay", "calibrate", "assay.yaml", "--min-agreement", "0.6"],
                             send, cwd=project.parent)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "interrupted" not in result.stderr


def test_an_alpha_without_an_interval_says_why_in_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """Two people score each of two items, and recorded verdicts: alpha's 95% CI was blank
    with no word of why."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "labels.jsonl").write_text(
        '{"id": "a", "label": [2, 3]}\n{"id": "b", "label": [4, 4]}\n')
    (tmp_path / "verdicts.jsonl").write_text('{"id": "a", "verdict": 3}\n'
                                             '{"id": "b", "verdict": 4}\n')
    (tmp_path / "cal.yaml").write_text("labels: {path: labels.jsonl}\n"
                                       "verdicts: {path: verdicts.jsonl}\nkind: score\n")
    code, out = assay(capsys, "calibrate", "cal.yaml", "--format", "md", "--no-save",
                      "--store", str(tmp_path / "assay.db"))
    assert code == 1, out
    assert ("| Krippendorff's alpha among people | 0.73 |  | interval, 2 raters, 2 items; "
            "no interval from 2 items: it needs three |") in out


def test_an_unknown_scorer_is_named_in_the_config_as_written(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'/home/.../assay.yaml: no judged scorer ...' named the config by its absolute path,
    where every other problem of a config names it as typed."""
    code, out = assay(capsys, "calibrate", project.name, "--scorer", "nope")
    assert code == 2
    assert f"{project.name}: no judged scorer 'nope'" in out
    assert str(project.parent) not in out


def test_item_ids_with_markup_or_escape_sequences_print_as_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the items the judge disagreed on were printed as rich markup, so an item
    id holding `[/]` ended `assay calibrate` in 'internal error: MarkupError', and one holding
    `\\x1b[2J` cleared the terminal."""
    labels = [{**row, "item": {**row["item"], "key": f"[/]{row['item']['key']}\x1b[2J"}}
              for row in LABELS]
    config = write_project(tmp_path, labels, scorers=[{"type": "judge_score"}],
                           calibration={"labels": {"path": "labels.jsonl",
                                                   "fields": PASS_FAIL_FIELDS}})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    with FakeLLM(judge=FakeJudge(JudgeBiases(labels=truth_of(labels), label_agreement=0.8,
                                             seed=3))) as llm:
        point_sdks_at(llm, monkeypatch)
        code, out = assay(capsys, "calibrate", str(config), "--no-save")
    assert code == 1 and "internal error" not in out, out
    assert "the judge disagrees with people on" in out and "[/]c0" in out
    assert "\x1b" not in out
