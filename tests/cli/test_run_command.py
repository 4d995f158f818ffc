"""`assay run` end to end: table, files, exit codes, clear errors."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from .conftest import REPO, Cli


def copy_quickstart(tmp_path: Path) -> Path:
    target = tmp_path / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", target,
                    ignore=shutil.ignore_patterns(".assay", "__pycache__"))
    return target / "assay.yaml"


def write_eval(root: Path, agent: str, config: str, *, cases: int) -> None:
    """agent.py, `cases` questions whose expected answer is "a", and assay.yaml."""
    (root / "agent.py").write_text(agent)
    (root / "cases.jsonl").write_text("".join(
        f'{{"id": "c{i}", "input": "q", "expected": "a"}}\n' for i in range(cases)))
    (root / "assay.yaml").write_text(config)


def test_help_lists_the_commands(cli: Cli) -> None:
    result = cli("--help")
    assert result.returncode == 0
    for name in ("run", "runs", "report", "validate", "schema", "init"):
        assert f"\n  {name} " in result.stdout


def test_quickstart_prints_a_table_writes_files_and_passes_its_gate(cli: Cli,
                                                                   tmp_path: Path) -> None:
    config = copy_quickstart(tmp_path)
    result = cli("run", str(config), "--output", "out")
    assert result.returncode == 0, result.stderr
    assert "contains" in result.stdout and "PASS gate contains@docs" in result.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["schema_version"] == 1
    assert results["run"]["experiment"] == "quickstart"
    assert len(results["trials"]) == 30
    docs = results["summary"]["contains"]["conditions"]["docs"]
    memory = results["summary"]["contains"]["conditions"]["memory"]
    assert docs["n"] == memory["n"] == 15
    assert docs["accuracy"] > memory["accuracy"]
    assert len(results["summary"]["contains"]["scores"]["docs"]) == 15
    report = (tmp_path / "out" / "report.md").read_text()
    assert report.startswith("# quickstart") and "## Failures" in report


def test_a_failed_gate_exits_1(cli: Cli, tmp_path: Path) -> None:
    config = copy_quickstart(tmp_path)
    result = cli("run", str(config), "--fail-under", "contains@memory=0.9")
    assert result.returncode == 1
    assert "FAIL gate contains@memory pass rate" in result.stdout


def test_bad_config_exits_2_with_one_clear_message(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("name: x\ndataset: {path: c.jsonl}\ntarget: {type: pyton}\n"
                                       "scorers: [{type: contains}]\n")
    result = cli("run", "bad.yaml")
    assert result.returncode == 2
    assert "bad.yaml:3 [target.type]: unknown target type 'pyton'; did you mean 'python'?" \
        in result.stderr
    assert "Traceback" not in result.stderr


def test_negative_k_eval_datasets_exit_2_naming_file_and_line(
        cli: Cli, tmp_path: Path, shared_fixtures: Path) -> None:
    (tmp_path / "agent.py").write_text("def answer(case):\n    return 'x'\n")
    for name, line in (("invalid_json_dataset.jsonl", 2), ("missing_key_dataset.jsonl", 2)):
        dataset = shared_fixtures / "datasets" / "k-eval" / name
        (tmp_path / "assay.yaml").write_text(
            f"name: neg\ndataset: {{path: '{dataset}'}}\n"
            "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n")
        result = cli("run", "assay.yaml")
        assert result.returncode == 2, name
        assert f"{dataset}:{line}" in result.stderr
        assert "Traceback" not in result.stderr


def test_negative_k_eval_configs_exit_2_naming_file_and_line(
        cli: Cli, shared_fixtures: Path) -> None:
    configs = shared_fixtures / "configs" / "k-eval"
    for name, line, words in (("invalid_yaml.yaml", 1, "expected <block end>"),
                              ("invalid_condition_ref.yaml", 25,
                               "unknown MCP server 'nonexistent_server'")):
        result = cli("validate", str(configs / name))
        assert result.returncode == 2, name
        assert f"{name}:{line}" in result.stderr and words in result.stderr
        assert "Traceback" not in result.stderr


def test_a_target_that_always_fails_stops_at_the_error_budget_with_exit_3(
        cli: Cli, tmp_path: Path) -> None:
    write_eval(tmp_path, "def answer(case):\n    raise RuntimeError('down')\n",
               "name: failing\ndataset: {path: cases.jsonl}\n"
               "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n"
               "run: {max_errors: 10, batch_size: 5, concurrency: 2}\n", cases=200)
    result = cli("run", "assay.yaml")
    assert result.returncode == 3
    assert "error budget reached" in result.stderr and "--resume" in result.stderr
    runs = json.loads(cli("runs", "--json").stdout)
    assert runs[0]["status"] == "aborted"


def test_errors_are_counted_as_errors_not_zero_scores(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "def answer(case):\n    if case.id == 'bad':\n        raise ValueError('boom')\n"
        "    return case.expected\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "ok", "input": "q", "expected": "a"}\n'
                                          '{"id": "bad", "input": "q", "expected": "a"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: errs\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n")
    assert cli("run", "assay.yaml", "-o", "out").returncode == 0
    stats = json.loads((tmp_path / "out" / "results.json").read_text())["stats"]["scores"][0]
    assert (stats["n"], stats["errors"], stats["mean"]) == (1, 1, 1.0)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "`bad` · default: ValueError: boom" in report


def test_report_renders_a_stored_run_and_runs_lists_it(cli: Cli, tmp_path: Path) -> None:
    config = copy_quickstart(tmp_path)
    assert cli("run", str(config)).returncode == 0
    listing = cli("runs")
    assert "quickstart" in listing.stdout and "completed" in listing.stdout
    markdown = cli("report", "latest")
    assert markdown.returncode == 0 and markdown.stdout.startswith("# quickstart")
    as_json = json.loads(cli("report", "latest", "--format", "json").stdout)
    assert len(as_json["trials"]) == 30


def test_init_writes_a_config_that_runs(cli: Cli, tmp_path: Path) -> None:
    assert cli("init", "starter").returncode == 0
    assert cli("validate", "starter/assay.yaml").returncode == 0
    assert cli("run", "starter/assay.yaml").returncode == 0
    again = cli("init", "starter")
    assert again.returncode == 2 and "not overwriting" in again.stderr


def test_schema_covers_registered_kinds(cli: Cli) -> None:
    schema = json.loads(cli("schema").stdout)
    scorer_kinds = {ref["$ref"].split("/")[-1].split("_")[0]
                    for ref in schema["properties"]["scorers"]["items"]["oneOf"]}
    assert {"contains", "regex", "numeric"} <= scorer_kinds
    assert "dataset" in schema["required"]


def test_a_tag_filter_that_matches_nothing_is_an_error_not_a_pass(cli: Cli, tmp_path: Path) -> None:
    config = copy_quickstart(tmp_path)
    text = config.read_text().replace("  path: questions.jsonl",
                                      "  path: questions.jsonl\n  tags: [no-such-tag]")
    config.write_text(text)
    for command in ("run", "validate"):
        result = cli(command, str(config))
        assert result.returncode == 2, command
        assert "nothing to run" in result.stderr and "no-such-tag" in result.stderr


def test_validate_names_an_unknown_provider_and_warns_of_a_missing_key(
        cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    config = ("name: m\ndataset: {path: cases.jsonl}\ntarget: {type: model, model: foo/bar}\n"
              "judge: {model: anthropic/claude-haiku-4-5}\nscorers: [{type: judge_score}]\n")
    (tmp_path / "assay.yaml").write_text(config)
    env = {"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""}
    result = cli("validate", "assay.yaml", env=env)
    assert result.returncode == 2
    assert "assay.yaml:3 [target.model]: unknown provider 'foo'" in result.stderr
    (tmp_path / "assay.yaml").write_text(config.replace("foo/bar", "openai/gpt-4.1"))
    result = cli("validate", "assay.yaml", env=env)
    assert result.returncode == 0
    assert "needs an API key: set the environment variable ANTHROPIC_API_KEY" in result.stdout


def test_a_missing_api_key_stops_a_run_naming_the_config_line_of_each_model_needing_it(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: the run stopped with "provider 'openai' needs an API key: set the
    environment variable OPENAI_API_KEY", exit 2, naming no config, line or model."""
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: m\ndataset: {path: cases.jsonl}\n"
        "target: {type: model, model: openai/gpt-4.1-mini}\n"
        "conditions:\n  small: {}\n  big: {model: openai/gpt-4.1}\n"
        "judge: {model: openai/gpt-4.1}\nscorers: [{type: judge_score}]\n")
    result = cli("run", "assay.yaml", env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "error: provider 'openai' needs an API key: set the environment variable "
        "OPENAI_API_KEY\n"
        "  assay.yaml:3 [target.model]: openai/gpt-4.1-mini\n"
        "  assay.yaml:6 [conditions.big.model]: openai/gpt-4.1\n"
        "  assay.yaml:7 [judge.model]: openai/gpt-4.1\n"), result.stderr


def test_a_target_calling_sys_exit_0_cannot_make_the_run_exit_0(cli: Cli, tmp_path: Path) -> None:
    """Regression: `sys.exit(0)` in a python target for one case ended `assay run` with exit 0
    (a 100% gate unmet, half the trials lost, no report)."""
    write_eval(tmp_path,
               "import sys\n\ndef answer(case):\n    if case.id == 'c3':\n        sys.exit(0)\n"
               "    return case.expected\n",
               "name: exits\ndataset: {path: cases.jsonl}\n"
               "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n"
               "gates: [{scorer: contains, max_error_rate: 0}]\n", cases=10)
    result = cli("run", "assay.yaml", "--no-progress", "-o", "out")
    assert result.returncode == 1, result.stderr  # the gate failed: one trial is an error
    stats = json.loads((tmp_path / "out" / "results.json").read_text())["stats"]["scores"][0]
    assert (stats["n"], stats["errors"]) == (9, 1)
    assert "agent:answer called sys.exit(0)" in (tmp_path / "out" / "report.md").read_text()
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("leaves", "said"), [
    ("import sys\nsys.exit(0)", "called sys.exit(0)"),
    # regression: read as Ctrl-C, 'interrupted' with exit 130
    ("raise KeyboardInterrupt('not yet')", "raised KeyboardInterrupt: not yet")])
def test_a_target_module_leaving_on_import_is_a_clear_exit_2(
        cli: Cli, tmp_path: Path, leaves: str, said: str) -> None:
    (tmp_path / "agent.py").write_text(f"{leaves}\n\ndef answer(case):\n    return 'a'\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "c0", "input": "q", "expected": "a"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: exits\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n")
    for command in ("run", "validate"):
        result = cli(command, "assay.yaml")
        assert result.returncode == 2, (command, result.stderr)
        assert "cannot import function 'agent:answer'" in result.stderr
        assert f"{said} while being imported" in result.stderr


def test_a_utf16_config_and_an_unknown_template_variable_exit_2_in_run_as_in_validate(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: both were exit 2 in `validate` but an internal error or exit 3 in `run`."""
    (tmp_path / "cases.jsonl").write_text('{"id": "c0", "input": "q", "expected": "a"}\n')
    (tmp_path / "agent.py").write_text("def answer(case):\n    return 'a'\n")
    config = ("name: t\ndataset: {path: cases.jsonl}\n"
              "target: {type: python, function: 'agent:answer'}\n"
              "scorers: [{type: contains, value: '{{ expcted }}'}]\n")
    (tmp_path / "typo.yaml").write_text(config)
    (tmp_path / "wide.yaml").write_bytes(config.encode("utf-16"))
    for name, words in (("typo.yaml", "typo.yaml:4 [scorers.0.value]"),
                        ("wide.yaml", "is UTF-16 text")):
        for command in ("validate", "run"):
            result = cli(command, name)
            assert result.returncode == 2, (name, command, result.stderr)
            assert words in result.stderr and "Traceback" not in result.stderr


def test_retry_errors_without_resume_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    # issue case: the flag was ignored and a fresh run started
    result = cli("run", str(copy_quickstart(tmp_path)), "--retry-errors")
    assert result.returncode == 2
    assert "--retry-errors" in result.stderr and "--resume" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_output_folder_that_cannot_be_made_is_refused_before_any_trial(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: `-o` under a file ran every trial, then ended in an internal error
    (exit 3) when the reports were written."""
    config = copy_quickstart(tmp_path)
    (tmp_path / "a-file").write_text("")
    result = cli("run", str(config), "-o", "a-file/out")
    assert result.returncode == 2
    assert "--output a-file/out: a-file is a file, not a folder" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert "trials" not in result.stdout  # refused before the run started
    assert cli("runs").stdout.count("quickstart") == 0


@pytest.mark.parametrize("suite", [False, True])
def test_a_junit_file_whose_folder_cannot_be_made_is_refused_before_any_trial(
        cli: Cli, tmp_path: Path, suite: bool) -> None:
    """Regression: `--junit a-file/junit.xml` ran (and paid for) every trial, then ended in
    'could not write a-file/junit.xml: a-file is a file, not a folder', exit 3, the run
    recorded as failed; `-o` was refused up front."""
    config = copy_quickstart(tmp_path)
    (tmp_path / "a-file").write_text("")
    configs = [str(config), str(config)] if suite else [str(config)]
    result = cli("run", *configs, "--junit", "a-file/junit.xml")
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == "error: --junit a-file: a-file is a file, not a folder"
    assert "trials" not in result.stdout  # refused before the run started
    assert cli("runs").stdout.count("quickstart") == 0


def test_a_scorer_erroring_on_every_trial_stops_the_run_and_its_report_says_why(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: a scorer that errored on every trial showed only a row of dashes and the
    run exited 0 with no word about it (and at 20 trials or more, it stopped the run on 20
    errors in a row). Now it stops any run, exit 3, naming the scorer and how to go on; a
    resume stops the same way while the scorer still has no value, and the run's report
    carries the warning."""
    config = copy_quickstart(tmp_path)
    (config.parent / "broken.py").write_text(
        "def score(case, output):\n    raise ValueError('boom')\n")
    text = config.read_text().replace(
        "scorers:\n", "scorers:\n  - {type: python, name: broken, function: 'broken:score'}\n")
    (config.parent / "questions.jsonl").write_text(
        "".join((config.parent / "questions.jsonl").read_text().splitlines(keepends=True)[:5]))
    config.write_text(text)
    stopped = cli("run", str(config), "-o", "out")
    assert stopped.returncode == 3, stopped.stderr
    assert ("error: scorer broken has no value: it errored on all 10 of its trials with an "
            "answer, so the run measured nothing with it; first error: ") in stopped.stderr
    assert "ValueError: boom" in stopped.stderr and "--retry-errors" in stopped.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "aborted"
    for resume in (["--resume", run["id"]], ["--resume", run["id"], "--retry-errors"]):
        again = cli("run", str(config), "-o", "out", *resume)
        assert again.returncode == 3 and "scorer broken has no value" in again.stderr
    warning = "scorer broken has no value: it errored on all 10 of its trials"
    rendered = cli("report", run["id"])
    assert f"warning: {warning}" in rendered.stdout
    assert "with an answer (first: " in rendered.stdout and "ValueError: boom" in rendered.stdout
    assert "broken could not score" not in rendered.stdout  # one warning, not two
    markdown = cli("report", run["id"], "-f", "md")
    assert f"- warning: {warning}" in markdown.stdout
    results = json.loads(cli("report", run["id"], "-f", "json").stdout)
    assert any(warning in w for w in results["warnings"])


def test_a_scorer_erroring_on_every_trial_of_a_long_run_stops_it_at_the_errors_in_a_row(
        cli: Cli, tmp_path: Path) -> None:
    """Past `run.max_consecutive_errors` trials (20) the same broken scorer stops the run
    there, as a judge that is down should, before every target is paid for: exit 3, the
    scorer named, the trials that ran stored, and the report's warning as in a short run."""
    config = copy_quickstart(tmp_path)
    (config.parent / "broken.py").write_text(
        "def score(case, output):\n    raise ValueError('boom')\n")
    config.write_text(config.read_text().replace(
        "scorers:\n", "scorers:\n  - {type: python, name: broken, function: 'broken:score'}\n"))
    stopped = cli("run", str(config), "-o", "out")
    assert stopped.returncode == 3, stopped.stderr
    assert "error: the last 20 trials ended in an error (run.max_consecutive_errors = 20); " \
           "latest error: broken: broken:score raised ValueError: boom" in stopped.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "aborted" and 20 <= run["trials_stored"] < 30
    warning = (f"warning: scorer broken has no value: it errored on all "
               f"{run['trials_stored']} of its trials with an answer")
    assert warning in cli("report", run["id"]).stdout


def test_a_condition_whose_target_failed_on_every_trial_stops_the_run_and_its_report_says_why(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: with the docs condition failing on all its trials (a misspelt model in
    one condition, a crash in one code path), the memory condition's scores and "not
    compared" lines read as a finished run, and it exited 0. Now it stops, exit 3, naming
    the condition; a resume stops the same way until its trials answer."""
    config = copy_quickstart(tmp_path)
    answerer = config.parent / "answerer.py"
    answerer.write_text(answerer.read_text().replace(
        "    question = case.input_text\n",
        "    question = case.input_text\n    if source == 'docs':\n"
        "        raise RuntimeError('boom')\n", 1))
    stopped = cli("run", str(config), "-o", "out")
    assert stopped.returncode == 3, stopped.stderr
    assert ("error: condition docs has no result: all 15 of its trials failed, so the run "
            "measured nothing under it; first error: RuntimeError: boom") in stopped.stderr
    assert "--retry-errors" in stopped.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "aborted" and run["trials_stored"] == 30
    again = cli("run", str(config), "-o", "out", "--resume", run["id"])
    assert again.returncode == 3 and "condition docs has no result" in again.stderr
    warning = "condition docs has no result: all 15 of its trials failed (first: "
    assert f"warning: {warning}" in cli("report", run["id"]).stdout
    assert f"- warning: {warning}" in cli("report", run["id"], "-f", "md").stdout
    answerer.write_text(answerer.read_text().replace("raise RuntimeError('boom')", "pass"))
    mended = cli("run", str(config), "-o", "out", "--resume", run["id"], "--retry-errors")
    assert mended.returncode == 0, mended.stderr
    assert "has no result" not in mended.stdout + mended.stderr


def test_a_sample_larger_than_the_dataset_runs_every_case_and_says_so(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: `--sample 100` over 15 cases ran 15 without a word, read as a sample."""
    config = copy_quickstart(tmp_path)
    ran = cli("run", str(config), "-o", "out", "--sample", "100")
    assert ran.returncode == 0, ran.stderr
    warning = "a sample of 100 cases was asked of a dataset that gives 15: every case runs"
    assert f"warning: {warning}" in ran.stdout
    assert warning in json.loads((tmp_path / "out" / "results.json").read_text())["warnings"]
    smaller = cli("run", str(config), "-o", "out", "--sample", "5")
    assert smaller.returncode == 0 and "a sample of" not in smaller.stdout


def test_retrying_errors_that_fail_again_leaves_a_completed_run_completed(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: `--resume RUN --retry-errors` whose retried trials all failed again turned
    a completed run into `aborted`, exit 3, "every trial failed (3 of 3)", although 7 of its
    10 trials had answers."""
    write_eval(tmp_path,
               "def answer(case):\n    if case.id in ('c0', 'c1', 'c2'):\n"
               "        raise RuntimeError('still down')\n    return case.expected\n",
               "name: retried\ndataset: {path: cases.jsonl}\n"
               "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n",
               cases=10)
    assert cli("run", "assay.yaml").returncode == 0
    [run] = json.loads(cli("runs", "--json").stdout)
    again = cli("run", "assay.yaml", "--resume", run["id"], "--retry-errors")
    assert again.returncode == 0, again.stderr
    assert "every trial failed" not in again.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "completed"


def test_a_resume_with_other_conditions_names_them_as_they_are_typed(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: the refusal read `--conditions ['b']`, a Python list."""
    (tmp_path / "agent.py").write_text("def answer(case):\n    return case.expected\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "c0", "input": "q", "expected": "a"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: chosen\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent:answer'}\nscorers: [{type: contains}]\n"
        "conditions: {a: {}, b: {}}\n")
    assert cli("run", "assay.yaml", "--condition", "a").returncode == 0
    [run] = json.loads(cli("runs", "--json").stdout)
    again = cli("run", "assay.yaml", "--resume", run["id"], "--condition", "b")
    assert again.returncode == 2
    assert (f"cannot resume run {run['id']} with --condition b: it was started with "
            "--condition a") in again.stderr


def test_regression_a_misspelt_condition_is_named_even_when_a_gate_names_another(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--condition zz` on a config with a gate on `v2` said "gate contains@v2 names a
    condition this run does not have (conditions: zz)": the gate was blamed, not the typo."""
    from .evalproject import assay, write_project

    config = write_project(tmp_path, {"base": {"rate": 0.5}, "v2": {"rate": 0.9}}, cases=4,
                           extra={"gates": [{"scorer": "exact_match", "condition": "v2",
                                             "min_pass_rate": 0.5}]})
    code, text = assay(capsys, "run", str(config), "--store", str(tmp_path / "s.db"),
                       "--no-progress", "--condition", "zz")
    assert code == 2
    assert "--condition zz: the config has no such condition (conditions: base, v2)" in text
    assert "gate" not in text, text


def test_a_gate_on_a_condition_left_out_by_condition_is_said_not_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `--condition base` on a config with a gate on `v2` was refused ("gate
    exact_match@v2 names a condition this run does not have"), exit 2, and no option let one
    condition of such a config run. The gate is not checked, and the run says so; a gate on
    the condition run is still checked."""
    from .evalproject import assay, write_project

    config = write_project(tmp_path, {"base": {"rate": 0.5}, "v2": {"rate": 0.9}}, cases=8,
                           extra={"gates": [
                               {"scorer": "exact_match", "condition": "v2", "min_pass_rate": 0.5},
                               {"scorer": "exact_match", "condition": "base",
                                "min_pass_rate": 0.99}]})
    code, text = assay(capsys, "run", str(config), "--store", str(tmp_path / "s.db"),
                       "--no-progress", "--condition", "base", "-o", str(tmp_path / "out"))
    said = ("1 gate not checked: exact_match@v2, on a condition this run leaves out "
            "(--condition base)")
    assert code == 1, text  # the gate on base ran, and failed
    assert said in text and "exact_match@base" in text
    assert said in json.loads((tmp_path / "out" / "results.json").read_text())["warnings"]


@pytest.mark.parametrize(("agent", "scorer"), [
    ("def answer(case):\n    raise RuntimeError('service down')\n", "{type: contains}"),
    ("def answer(case):\n    return case.expected\n",
     "{type: python, function: 'agent:broken'}"),
])
def test_resuming_a_run_where_every_trial_failed_still_fails_with_exit_3(
        cli: Cli, tmp_path: Path, agent: str, scorer: str) -> None:
    """Regression: the run stopped, exit 3, "every trial failed"; `--resume` found nothing
    to run (failed trials are kept unless --retry-errors) and completed the same trials as a
    run with n=0 for every scorer, exit 0."""
    write_eval(tmp_path,
               agent + "\n\ndef broken(case, output):\n    raise RuntimeError('judge down')\n",
               "name: down\ndataset: {path: cases.jsonl}\n"
               f"target: {{type: python, function: 'agent:answer'}}\nscorers: [{scorer}]\n",
               cases=3)
    first = cli("run", "assay.yaml")
    assert first.returncode == 3 and "every trial failed (3 of 3)" in first.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    again = cli("run", "assay.yaml", "--resume", run["id"])
    assert again.returncode == 3, again.stdout
    assert "every trial failed (3 of 3)" in again.stderr
    assert "--retry-errors" in again.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "aborted"


def test_retry_errors_judges_again_a_trial_whose_every_scorer_failed(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: `--resume RUN --retry-errors` ran again only trials whose target failed;
    a trial whose judge was down stayed failed for good, and the run failed again with
    "--retry-errors runs them again"."""
    write_eval(tmp_path,
               "from pathlib import Path\n\ndef answer(case):\n    return case.expected\n\n"
               "def judge(case, output):\n    if Path(__file__).with_name('down').exists():\n"
               "        raise RuntimeError('judge down')\n    return 1.0\n",
               "name: judged\ndataset: {path: cases.jsonl}\n"
               "target: {type: python, function: 'agent:answer'}\n"
               "scorers: [{type: python, function: 'agent:judge'}]\n", cases=3)
    (tmp_path / "down").write_text("")
    first = cli("run", "assay.yaml")
    assert first.returncode == 3 and "every trial failed (3 of 3)" in first.stderr
    assert "--retry-errors" in first.stderr
    (tmp_path / "down").unlink()
    [run] = json.loads(cli("runs", "--json").stdout)
    again = cli("run", "assay.yaml", "--resume", run["id"], "--retry-errors")
    assert again.returncode == 0, again.stderr
    [run] = json.loads(cli("runs", "--json").stdout)
    assert run["status"] == "completed"
    results = json.loads(next(tmp_path.glob(".assay/runs/*/results.json")).read_text())
    assert all(score["error"] is None and score["value"] == 1.0
               for t in results["trials"] for score in t["scores"].values())
    assert all(t["scores"] for t in results["trials"])


def test_a_new_run_after_one_killed_with_kill_9_names_it_and_how_to_resume_it(
        cli: Cli, tmp_path: Path) -> None:
    """A run started after a kill -9 said nothing of the unfinished run beside it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    write_eval(tmp_path, "import os, pathlib, time\n\ndef answer(case):\n"
                         "    pathlib.Path('started').touch()\n"
                         "    if os.environ.get('HANG'):\n        time.sleep(600)\n"
                         "    return 'a'\n",
               "name: killed\ndataset: {path: cases.jsonl}\n"
               "target: {type: python, function: 'agent:answer'}\n"
               "scorers: [{type: exact_match}]\n", cases=3)
    first = subprocess.Popen([sys.executable, "-m", "assay", "run", "assay.yaml",
                              "--no-progress"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL,
                             env={**os.environ, "ASSAY_STORE": str(tmp_path / "assay.db"),
                                  "HANG": "1"})
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    result = cli("run", "assay.yaml", "--no-progress")
    assert result.returncode == 0, result.stderr
    killed = json.loads(cli("runs", "--json").stdout)[1]
    assert killed["status"] == "running" and killed["stale"]
    assert (f"note: the previous run {killed['id']} of 'killed' did not finish (its process "
            f"is gone; 0 of 3 trials stored); this is a new run: `assay run assay.yaml "
            f"--resume {killed['id']}` continues that one instead") in result.stderr
    again = cli("run", "assay.yaml", "--no-progress")  # the latest run now completed
    assert "note:" not in again.stderr


def stop_a_run_by_its_error_budget(cli: Cli, tmp_path: Path, name: str,
                                   more_run: str = "") -> None:
    """A 3-case project whose first run fails on its first trial (DOWN set) and is aborted by
    `max_errors: 1`, exit 3: an unfinished run the next one finds beside it."""
    write_eval(tmp_path, "import os\n\ndef answer(case):\n    if os.environ.get('DOWN'):\n"
                         "        raise RuntimeError('down')\n    return 'a'\n",
               f"name: {name}\ndataset: {{path: cases.jsonl}}\n"
               "target: {type: python, function: 'agent:answer'}\n"
               "scorers: [{type: exact_match}]\n"
               f"run: {{concurrency: 1, max_errors: 1{', ' + more_run if more_run else ''}}}\n",
               cases=3)
    assert cli("run", "assay.yaml", "--no-progress", env={"DOWN": "1"}).returncode == 3


def test_a_new_run_after_an_unfinished_one_of_another_config_offers_no_resume_that_fails(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: after a run stopped by its error budget, a run of the edited config (a
    longer timeout) said '`assay run assay.yaml --resume RUN` continues that one instead',
    and that command was refused: 'the config changed since it started'."""
    stop_a_run_by_its_error_budget(cli, tmp_path, "edited", "timeout: 10")
    stopped = json.loads(cli("runs", "--json").stdout)[0]["id"]
    config = tmp_path / "assay.yaml"
    config.write_text(config.read_text().replace("timeout: 10", "timeout: 20"))
    result = cli("run", "assay.yaml", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "--resume" not in result.stderr
    assert (f"note: the previous run {stopped} of 'edited' did not finish (it was aborted; 1 of "
            "3 trials stored); this is a new run: that one was started with another config "
            "(or ${VAR} values), which this one cannot resume") in result.stderr


def test_a_new_run_refused_by_its_checks_says_nothing_of_the_unfinished_run_before_it(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: 'note: the previous run ... did not finish; this is a new run' was printed
    above 'error: invalid dataset', of a new run that never started."""
    stop_a_run_by_its_error_budget(cli, tmp_path, "refused")
    (tmp_path / "cases.jsonl").write_text('{"id": "c1", "input": "q"}\nnot json\n')
    refused = cli("run", "assay.yaml", "--no-progress")
    assert refused.returncode == 2
    assert "cases.jsonl:2" in refused.stderr
    assert "note:" not in refused.stderr


def test_run_help_names_every_file_its_output_folder_gets(cli: Cli) -> None:
    """Regression: --help said -o holds results.json and report.md; report.html goes there
    too, and a suite's summary is suite.md as well as suite.json."""
    result = cli("run", "--help")
    assert result.returncode == 0
    help_text = " ".join(result.stdout.split())
    assert "results.json, report.md and report.html" in help_text
    assert "OUTPUT/suite.json and OUTPUT/suite.md" in help_text


def test_a_stopped_run_on_a_store_named_on_the_command_line_says_how_to_resume_it_there(
        cli: Cli, tmp_path: Path) -> None:
    """Before, the hint left out --store: 'resume with: assay run assay.yaml --resume ID',
    and that command said 'no run ID in .assay/assay.db', exit 2."""
    from assay.store import Store

    from .evalproject import write_stopping_project

    write_stopping_project(tmp_path, cases=6, answered=3, max_errors=2)
    env = {"ASSAY_STORE": ""}
    stopped = cli("run", "assay.yaml", "--store", "team store.db", "--no-progress", env=env)
    store = Store(str(tmp_path / "team store.db"))
    [run] = store.list_runs("coin")
    hint = f"assay run assay.yaml --resume {run.id} --store 'team store.db'"
    assert stopped.returncode == 3, stopped.stderr
    assert f"resume with: {hint} (add --retry-errors" in stopped.stderr
    resumed = cli(*shlex.split(hint)[1:], "--no-progress", env=env)  # the hint, as printed
    assert resumed.returncode == 0, resumed.stderr  # it went on with that run, there
    assert [r.id for r in store.list_runs("coin")] == [run.id]
    store.close()
