"""Suites: three Knowledge Packs question sets run as one evaluation end with the grand summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.terminal import as_at_a_terminal

from .evalproject import PRESSES_CTRL_C, assay, write_project

PACKS = ("go-expert", "rust-expert", "docker-expert")

ANSWERER = '''
def answer(case, knows_every):
    """Answers with the ground truth for every `knows_every`-th question (by its number)."""
    number = int(case.id.rsplit("_", 1)[1])
    return case.expected if number % knows_every == 0 else "not sure"
'''


def knows(case_id: str, every: int) -> bool:
    return int(case_id.rsplit("_", 1)[1]) % every == 0


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_fixtures: Path) -> Path:
    """configs/<pack>.yaml for three packs: a `training` and a `pack` condition each."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    configs = tmp_path / "configs"
    configs.mkdir()
    (tmp_path / "answerer.py").write_text(ANSWERER, encoding="utf-8")
    for pack in PACKS:
        questions = shared_fixtures / "datasets" / "agent-kgpacks" / pack / "questions.jsonl"
        document = {
            "name": pack,
            "dataset": {"path": str(questions)},
            "target": {"type": "python", "function": "../answerer.py:answer", "threaded": False},
            "conditions": {"training": {"args": {"knows_every": 3}},
                           "pack": {"args": {"knows_every": 2}}},
            "scorers": [{"type": "exact_match"}],
        }
        (configs / f"{pack}.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return tmp_path


def ids_of(shared_fixtures: Path, pack: str) -> list[str]:
    path = shared_fixtures / "datasets" / "agent-kgpacks" / pack / "questions.jsonl"
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def test_three_pack_configs_produce_the_all_packs_grand_summary(
        suite_dir: Path, shared_fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configs = sorted(str(p) for p in (suite_dir / "configs").glob("*.yaml"))
    code, text = assay(capsys, "run", *configs, "--store", str(suite_dir / "s.db"),
                       "--output", str(suite_dir / "out"), "--no-progress")
    assert code == 0
    document = json.loads((suite_dir / "out" / "suite.json").read_text())
    assert set(document) >= {"timestamp", "packs_evaluated", "sample_per_pack",
                             "grand_summary", "per_pack"}
    assert document["packs_evaluated"] == 3 and document["sample_per_pack"] is None
    assert set(document["per_pack"]) == set(PACKS)
    every = {"training": 3, "pack": 2}
    all_ids = {pack: ids_of(shared_fixtures, pack) for pack in PACKS}
    for pack, ids in all_ids.items():
        scores = document["per_pack"][pack]["scores"]
        for condition, k in every.items():
            assert sorted(scores[condition]) == sorted(float(knows(i, k)) for i in ids)
    total = sum(len(ids) for ids in all_ids.values())
    for condition, k in every.items():
        right = sum(knows(i, k) for ids in all_ids.values() for i in ids)
        figures = document["grand_summary"][condition]
        assert figures["n"] == total == 300
        assert figures["accuracy"] == pytest.approx(right / total * 100)
        assert figures["avg"] == pytest.approx(right / total)
    assert "total" in text and "suite:" in text
    # each run also compared its conditions, as a single run does
    run_dirs = [d for d in (suite_dir / "out").iterdir() if d.is_dir()]
    assert len(run_dirs) == 3
    comparison = json.loads((run_dirs[0] / "results.json").read_text())["comparisons"]
    assert comparison["baseline"] == "training" and comparison["comparisons"][0]["delta_pp"] > 0


def test_a_suite_file_with_globs_and_sample_applies_the_sample_to_each(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (suite_dir / "all.yaml").write_text("suite:\n  - configs/*.yaml\n", encoding="utf-8")
    code, _ = assay(capsys, "run", "all.yaml", "--sample", "5", "--store",
                    str(suite_dir / "s.db"), "--output", str(suite_dir / "out"), "--no-progress")
    assert code == 0
    document = json.loads((suite_dir / "out" / "suite.json").read_text())
    assert document["sample_per_pack"] == 5 and document["packs_evaluated"] == 3
    for pack in PACKS:
        assert [len(v) for v in document["per_pack"][pack]["scores"].values()] == [5, 5]
    assert {c: f["n"] for c, f in document["grand_summary"].items()} == {"training": 15,
                                                                        "pack": 15}


def test_the_suite_exit_code_is_the_worst_of_its_runs(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    go = suite_dir / "configs" / "go-expert.yaml"
    document = yaml.safe_load(go.read_text())
    document["gates"] = [{"scorer": "exact_match", "condition": "pack", "min_pass_rate": 0.9}]
    go.write_text(yaml.safe_dump(document, sort_keys=False))
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--output", str(suite_dir / "out"), "--no-progress",
                       "--junit", str(suite_dir / "junit.xml"))
    assert code == 1
    summary = json.loads((suite_dir / "out" / "suite.json").read_text())
    assert summary["packs_evaluated"] == 3 and summary["per_pack"]["go-expert"]["exit_code"] == 1
    assert summary["failed"] == []
    assert "FAIL gate exact_match@pack" in text
    junit = (suite_dir / "junit.xml").read_text()
    assert junit.count("<testsuite ") == 4  # three runs, and the gates of the one that has them


def test_invalid_configs_stop_the_suite_before_any_run_and_are_all_named(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (suite_dir / "configs" / "zz-broken.yaml").write_text("name: broken\nscorers: []\n")
    missing = yaml.safe_load((suite_dir / "configs" / "go-expert.yaml").read_text())
    missing["dataset"]["path"] = "no-such-questions.jsonl"
    (suite_dir / "configs" / "zz-missing-data.yaml").write_text(yaml.safe_dump(missing))
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--output", str(suite_dir / "out"), "--no-progress")
    assert code == 2
    assert "2 of 5 configs of the suite are invalid; nothing was run" in text
    assert "zz-broken.yaml" in text and "zz-missing-data.yaml" in text
    assert "no-such-questions.jsonl" in text
    assert not (suite_dir / "out").exists()
    from assay.store import Store

    store = Store(str(suite_dir / "s.db"))
    assert store.list_runs() == []  # not one config ran
    store.close()


def test_a_command_line_gate_or_baseline_one_config_cannot_take_stops_the_suite_before_any_run(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--fail-under` on a scorer one config lacks (or `--baseline` on a condition
    it lacks) was refused as that config's run began, exit 2, after the configs before it
    had run and been paid for; then it called those configs invalid, though the command
    line was what they could not take."""
    other = yaml.safe_load((suite_dir / "configs" / "go-expert.yaml").read_text())
    other["name"], other["scorers"] = "other", [{"type": "contains"}]
    (suite_dir / "configs" / "zz-other.yaml").write_text(yaml.safe_dump(other))
    other["conditions"] = {"only": {"args": {"knows_every": 2}}}
    (suite_dir / "configs" / "zz-only.yaml").write_text(yaml.safe_dump(other))
    for asked, unfit, said in (
            (["--fail-under", "exact_match@pack=0.1"], "2 of 5 configs",
             ("configs/zz-only.yaml, configs/zz-other.yaml: --fail-under "
             "'exact_match@pack=0.1': no scorer 'exact_match' in this run (scorers: "
             "contains)\n")),
            (["--baseline", "pack"], "1 of 5 configs",
             ("configs/zz-only.yaml: --baseline 'pack': no condition 'pack' in this run "
             "(conditions: only)"))):
        code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                           "--no-progress", *asked)
        assert code == 2, text
        assert f"error: the command line does not fit {unfit} of the suite; nothing was " \
               "run\n" in text, text
        assert said in text and "invalid" not in text, text
    from assay.store import Store

    store = Store(str(suite_dir / "s.db"))
    assert store.list_runs() == []  # not one config ran
    store.close()


def test_a_command_line_value_no_config_of_a_suite_takes_is_said_once_as_its_own_error(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--baseline nosuch` said '3 of 3 configs of the suite are invalid;
    nothing was run', then the same line under each config, though the configs were valid
    and the command line was wrong."""
    for asked, said in ((["--baseline", "nosuch"], ("--baseline 'nosuch': no condition "
                         "'nosuch' in this run (conditions: training, pack)")),
                        (["--condition", "nosuch"], ("--condition nosuch: the config has no "
                         "such condition (conditions: training, pack)")),
                        (["--fail-under", "nosuch=0.5"], ("--fail-under 'nosuch=0.5': no "
                         "scorer 'nosuch' in this run (scorers: exact_match)"))):
        code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                           "--no-progress", *asked)
        assert code == 2, text
        assert text == ("error: the command line does not fit the configs of the suite; "
                        f"nothing was run\n  {said}\n"), text


def test_a_glob_that_matches_nothing_is_a_usage_error(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = assay(capsys, "run", "nothing/*.yaml", "--store", str(suite_dir / "s.db"))
    assert code == 2 and "no config file matches 'nothing/*.yaml'" in text


GRADER = '''
def grade(case, output: str):
    """10 for the expected answer, 2 for anything else (a 0-10 grade)."""
    return 10.0 if output == case.expected else 2.0
'''


def test_regression_configs_led_by_different_scales_get_a_total_each_and_a_warning(
        suite_dir: Path, shared_fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the suite averaged a 0-10 grade with a 0-1 check, and warned on the terminal only
    (suite_dir / "grader.py").write_text(GRADER, encoding="utf-8")
    go = suite_dir / "configs" / "go-expert.yaml"
    document = yaml.safe_load(go.read_text())
    document["scorers"] = [{"type": "python", "name": "grade", "function": "../grader.py:grade",
                            "scale": [0, 10], "threshold": 7}, *document["scorers"]]
    go.write_text(yaml.safe_dump(document, sort_keys=False))
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--output", str(suite_dir / "out"), "--no-progress")
    assert code == 0
    summary = json.loads((suite_dir / "out" / "suite.json").read_text())
    assert summary["grand_summary"] is None
    totals = {g["scorer"]: g for g in summary["grand_summary_by_scorer"]}
    assert totals["grade"]["scale"] == [0, 10] and totals["grade"]["experiments"] == ["go-expert"]
    assert totals["exact_match"]["experiments"] == ["docker-expert", "rust-expert"]
    ids = {pack: ids_of(shared_fixtures, pack) for pack in PACKS}
    go_right = sum(knows(i, 2) for i in ids["go-expert"])
    grade = totals["grade"]["conditions"]["pack"]
    assert grade["n"] == len(ids["go-expert"])
    assert grade["avg"] == pytest.approx((10 * go_right + 2 * (grade["n"] - go_right)) / grade["n"])
    check = totals["exact_match"]["conditions"]["pack"]
    others = ids["docker-expert"] + ids["rust-expert"]
    assert check["n"] == check["accuracy_n"] == len(others)
    assert check["avg"] == pytest.approx(sum(knows(i, 2) for i in others) / len(others))
    [warning] = summary["warnings"]
    assert "grade (0–10): go-expert" in warning and "no total pools them" in warning
    report = (suite_dir / "out" / "suite.md").read_text()
    assert warning in report and "| total of 2 | exact_match (0–1) | training |" in report
    flat = " ".join(text.split())
    assert "warning: the configs lead with different scorers or scales" in flat
    assert "no total pools them" in flat


def test_regression_a_config_that_could_not_complete_is_an_error_in_the_suites_junit(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A suite whose rust-expert run stopped (exit 3) wrote JUnit for the two other runs
    only: CI showed every test passing, the stopped eval nowhere."""
    (suite_dir / "down.py").write_text(
        "def answer(case, knows_every):\n    raise RuntimeError('the service is down')\n",
        encoding="utf-8")
    rust = suite_dir / "configs" / "rust-expert.yaml"
    document = yaml.safe_load(rust.read_text())
    document["target"]["function"] = "../down.py:answer"
    rust.write_text(yaml.safe_dump(document, sort_keys=False))
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--output", str(suite_dir / "out"), "--no-progress",
                       "--junit", str(suite_dir / "junit.xml"))
    assert code == 3, text
    root = ET.parse(suite_dir / "junit.xml").getroot()
    names = [s.get("name") for s in root]
    assert names == ["docker-expert", "go-expert", "configs/rust-expert.yaml"], names
    [stopped] = [s for s in root if s.get("name") == "configs/rust-expert.yaml"]
    [case] = stopped.findall("testcase")
    error = case.find("error")
    assert error is not None and "the service is down" in error.get("message", "")
    assert root.get("errors") == "1" and stopped.get("errors") == "1"


def test_regression_ctrl_c_in_a_suite_writes_its_summary_and_junit_up_to_where_it_stopped(
        tmp_path: Path) -> None:
    """A suite pressed Ctrl-C wrote neither suite.json nor its JUnit, so an earlier suite's
    JUnit, all passing, stayed for CI to report as this one's. Then both left out the configs
    after the one stopped: a suite of three read as a suite of two, all of it accounted for."""
    (tmp_path / "junit.xml").write_text('<testsuites tests="1" failures="0" errors="0">'
                                        '<testsuite name="old" tests="1"/></testsuites>')
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="first", config="a.yaml")
    (tmp_path / "presses.py").write_text(PRESSES_CTRL_C)
    write_project(tmp_path, {"only": {"pressed_at": 2}}, cases=5, name="second",
                  config="b.yaml", extra={
                      "target": {"type": "python", "function": "presses.py:answer",
                                 "threaded": False}, "run": {"concurrency": 1}})
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="third", config="c.yaml")
    stopped = subprocess.run(
        [sys.executable, "-m", "assay", "run", "a.yaml", "b.yaml", "c.yaml", "--no-progress",
         "--junit", "junit.xml", "--output", "out"], cwd=tmp_path,
        env={**os.environ, "ASSAY_STORE": str(tmp_path / "s.db")}, capture_output=True,
        text=True, preexec_fn=as_at_a_terminal, timeout=120)
    assert stopped.returncode == 130, stopped.stderr
    summary = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert [(f["config"], f["error"]) for f in summary["failed"]] == [
        ("b.yaml", "interrupted by the user"),
        ("c.yaml", "not run: the suite was interrupted at b.yaml")]
    assert summary["exit_code"] == 130
    assert "suite:   out/suite.json (interrupted at b.yaml; 1 config not run)" in stopped.stdout
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "junit.xml").getroot()}
    assert "old" not in suites
    assert len(suites["first"].findall("testcase")) == 5
    errors = [c.find("error").get("message") or "" for s in suites.values()
              for c in s.iter("testcase") if c.find("error") is not None]
    assert ["interrupted" in message for message in errors] == [True, True], errors


def test_ctrl_c_while_a_completed_run_is_printed_keeps_it_in_the_suites_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: Ctrl-C while a.yaml's finished run was printed wrote no suite.json at all:
    the summary of a suite whose first run had completed, and of the configs never run."""
    from assay.reports import terminal

    def pressed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(terminal, "print_review", pressed)
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="first", config="a.yaml")
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="second", config="b.yaml")
    code, text = assay(capsys, "run", "a.yaml", "b.yaml", "--no-progress", "--store",
                       str(tmp_path / "s.db"), "--output", "out")
    assert code == 130, text
    summary = json.loads((tmp_path / "out" / "suite.json").read_text())
    assert [(pack["config"], pack["exit_code"]) for pack in summary["per_pack"].values()] == [
        ("a.yaml", 0)]
    assert [(f["config"], f["error"]) for f in summary["failed"]] == [
        ("b.yaml", "not run: the suite was interrupted at a.yaml")]


def test_one_invalid_config_of_a_suite_is_counted_in_the_singular(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (suite_dir / "configs" / "zz-broken.yaml").write_text("name: broken\nscorers: []\n")
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--no-progress")
    assert code == 2
    assert "1 of 4 configs of the suite is invalid; nothing was run" in text


def test_the_suites_file_lines_name_its_folder_as_the_terminal_shows_it(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `-o NAME`, NAME with a byte that is not UTF-8 and brackets, printed
    'suite:   out\\udcff/suite.json' (Python's escape of the byte) and lost `[b]` to the
    terminal's markup, on the suite:, report: and junit: lines."""
    name = os.fsdecode(b"out\xff[b]")
    code, text = assay(capsys, "run", "configs/go-expert.yaml", "configs/rust-expert.yaml",
                       "--store", str(suite_dir / "s.db"), "-o", name, "--no-progress",
                       "--junit", f"{name}/junit.xml")
    assert code == 0, text
    lines = text.splitlines()
    assert "suite:   out\ufffd[b]/suite.json" in lines
    assert "report:  out\ufffd[b]/suite.md" in lines
    assert "junit:   out\ufffd[b]/junit.xml" in lines


def test_resume_of_a_suite_that_never_ran_says_there_is_nothing_to_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="first", config="a.yaml")
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="second", config="b.yaml")
    code, text = assay(capsys, "run", "a.yaml", "b.yaml", "--resume", "--store", "team.db")
    assert code == 2, text
    assert text.strip() == ("error: nothing to resume: no run of this suite is in the store "
                            "(run it without --resume to start it)")


BREAKS_THE_NEXT_DATASET = '''
import pathlib

def answer(case):
    """Answers, and cuts short the dataset of the config the suite runs next."""
    pathlib.Path("next.jsonl").write_text('{"id": "q1", "input": ', encoding="utf-8")
    return case.expected
'''


def test_a_config_refused_as_its_run_begins_leaves_its_experiments_stopped_run_to_the_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: only the first config of an experiment was told of that experiment's run
    left unfinished before the suite; when that config was refused as its run began (its
    dataset cut short after the suite's checks), the later config of the experiment started
    a new run beside the stopped one without a word of it."""
    from assay.store import Store

    monkeypatch.chdir(tmp_path)
    (tmp_path / "breaks.py").write_text(BREAKS_THE_NEXT_DATASET, encoding="utf-8")
    cases = '{"id": "q1", "input": "2+2?", "expected": "4"}\n'
    (tmp_path / "cases.jsonl").write_text(cases, encoding="utf-8")
    (tmp_path / "next.jsonl").write_text(cases, encoding="utf-8")
    (tmp_path / "echo.py").write_text("def echo(case):\n    return case.expected\n",
                                      encoding="utf-8")
    for config, name, dataset, function in (
            ("b.yaml", "exp-b", "cases.jsonl", "breaks.py:answer"),
            ("a.yaml", "exp-a", "next.jsonl", "echo.py:echo"),  # refused: next.jsonl is cut
            ("c.yaml", "exp-a", "cases.jsonl", "echo.py:echo")):
        (tmp_path / config).write_text(yaml.safe_dump({
            "name": name, "dataset": {"path": dataset},
            "target": {"type": "python", "function": function, "threaded": False},
            "scorers": [{"type": "exact_match"}]}), encoding="utf-8")
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="stopped", experiment="exp-a", status="interrupted")
    store.close()
    code, text = assay(capsys, "run", "b.yaml", "a.yaml", "c.yaml", "--store", "s.db",
                       "--no-progress")
    assert code == 2, text
    assert "error: a.yaml: invalid dataset" in text
    notes = [line for line in text.splitlines() if line.startswith("note:")]
    assert notes == [("note: the previous run stopped of 'exp-a' did not finish (it was "
                      "interrupted; 0 trials stored); this is a new run: that one was started "
                      "with another config (or ${VAR} values), which this one cannot resume")]
    assert text.index("c.yaml (3/3)") < text.index(notes[0])


def test_each_config_of_a_suite_is_read_and_checked_once(
        suite_dir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's checks loaded every config, then its run loaded each again: twice the
    reading, interpolating and validating, and a config edited between the two was run
    unchecked. Each config is now run as its checks loaded it."""
    from assay.config import loading

    validated: list[str] = []
    validate = loading.load_config_data

    def counted(data: Any, source: Any, path: Path, **kwargs: Any) -> Any:
        validated.append(path.name)
        return validate(data, source, path, **kwargs)

    monkeypatch.setattr(loading, "load_config_data", counted)
    code, _ = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                    "--no-progress")
    assert code == 0
    assert sorted(validated) == sorted(f"{pack}.yaml" for pack in PACKS)


def test_a_config_error_in_a_suite_names_its_file_line_and_field_once(
        suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = yaml.safe_load((suite_dir / "configs" / "go-expert.yaml").read_text())
    broken["scorers"] = [{"type": "exact_match"}, {"type": "containz"}]
    (suite_dir / "configs" / "zz-broken.yaml").write_text(yaml.safe_dump(broken, sort_keys=False))
    code, text = assay(capsys, "run", "configs/*.yaml", "--store", str(suite_dir / "s.db"),
                       "--no-progress")
    assert code == 2
    assert text.count("[scorers.1.type]") == 1
    assert re.search(r"zz-broken\.yaml:\d+ \[scorers\.1\.type\]: unknown scorer type 'containz'",
                     text)
    # Regression: the line above it read 'configs/zz-broken.yaml: invalid config
    # configs/zz-broken.yaml', naming the file twice more before its located problem.
    assert text.count("zz-broken.yaml") == 1
