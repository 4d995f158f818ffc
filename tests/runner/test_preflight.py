"""`assay validate` reads every case against every check that compares with `expected`.

Regression: validate said "ok" when some cases had no `expected` for
`exact_match` (a run then scored each of them as an error), and when no case
had one (the run then stopped with "every trial failed", exit 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.evalproject import assay


def project(root: Path, cases: list[dict[str, str]], scorers: str) -> Path:
    (root / "agent.py").write_text("def answer(case):\n    return 'a'\n")
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    config = root / "assay.yaml"
    config.write_text("name: refs\ndataset: {path: cases.jsonl}\n"
                      "target: {type: python, function: 'agent.py:answer'}\n"
                      f"scorers: {scorers}\n")
    return config


def test_cases_without_expected_are_named_in_a_warning(capsys, tmp_path):
    cases = [{"id": f"c{i}", "input": "q", **({"expected": "a"} if i % 3 else {})}
             for i in range(9)]
    config = project(tmp_path, cases, "[{type: exact_match}, {type: token_f1}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 0, text
    for name in ("exact_match", "token_f1"):
        assert (f"warning: {name}: nothing to compare against in 3 of 9 cases "
                "(c0, c3, c6)") in text
    assert "case 'c0' has no expected value" in text


def test_a_check_with_nothing_to_compare_in_any_case_is_a_located_config_error(
        capsys, tmp_path):
    config = project(tmp_path, [{"id": "c0", "input": "q"}, {"id": "c1", "input": "q"}],
                     "[{type: exact_match}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    assert (f"{config}:4 [scorers.0]: exact_match has nothing to compare against in any "
            "of the 2 cases") in text


def test_a_tool_call_check_that_applies_to_no_case_is_refused_by_validate_and_run_alike(
        capsys, tmp_path):
    """Regression: a tool_calls check over cases none of which has expected_tool_calls gave
    no verdict anywhere; the run said 'all 4 of its trials failed', its gates 'no trials
    ran', and with no gate it exited 0 having measured nothing."""
    cases = [{"id": f"c{i}", "input": "q", "expected": "a"} for i in range(4)]
    config = project(tmp_path, cases, "[{type: exact_match}, {type: tool_calls}]")
    for command in ("validate", "run"):
        code, text = assay(capsys, command, str(config))
        assert code == 2, text
        assert (f"{config}:4 [scorers.1]: tool_calls applies to none of the 4 cases, so it "
                "would measure nothing (case 'c0' has no expected_tool_calls") in text
    cases[2]["expected_tool_calls"] = []  # one case that says no tool may be called
    project(tmp_path, cases, "[{type: exact_match}, {type: tool_calls}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 0 and "tool_calls" not in text, text


def test_a_value_on_the_scorer_needs_no_expected(capsys, tmp_path):
    config = project(tmp_path, [{"id": "c0", "input": "q"}],
                     "[{type: contains, value: a}, {type: json_valid}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 0 and "warning" not in text, text


def test_numeric_cases_whose_expected_is_not_one_finite_number_are_named(capsys, tmp_path):
    """Regression: validate said "ok" for `numeric` whatever the cases held (a missing
    expected, "NaN", "1 or 2"); each of those trials was then the scorer's error."""
    cases = [{"id": "c0", "input": "q", "expected": "42"}, {"id": "c1", "input": "q"},
             {"id": "c2", "input": "q", "expected": "NaN"},
             {"id": "c3", "input": "q", "expected": "1 or 2"}]
    config = project(tmp_path, cases, "[{type: numeric}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 0, text
    assert "warning: numeric: nothing to compare against in 3 of 4 cases (c1, c2, c3)" in text


def test_a_numeric_value_must_be_a_finite_number(capsys, tmp_path):
    config = project(tmp_path, [{"id": "c0", "input": "q"}], "[{type: numeric, value: .nan}]")
    code, text = assay(capsys, "validate", str(config))
    assert code == 2 and f"{config}:4" in text and "value" in text, text


UNANSWERED = [{"id": "u0", "input": "q", "expected": "", "reference": ""},
              {"id": "u1", "input": "q", "expected": "", "reference": ""}]
"""Cases as `assay traces export --include-unanswered` drafts them."""


@pytest.mark.parametrize(("scorer", "why"), [
    ("judge_score", "case u0 has no `expected` answer for the judge_score judge"),
    ("vs_recorded", "case u0 has no recorded answer to compare with"),
    ("rubric", "case u0 has no `expected` answer for the rubric judge"),
])
def test_a_judge_with_nothing_to_compare_in_any_case_is_refused_by_validate_and_run_alike(
        capsys, tmp_path, monkeypatch, scorer, why):
    """Regression: validate said "ok" to unanswered drafts under a judge that needs an
    expected or recorded answer; run then paid for every target call and stopped with
    "every trial failed" (exit 3). Both now refuse it before any trial, with one message."""
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, UNANSWERED,
                     f"[{{type: {scorer}, model: openai/gpt-4.1}}]")
    located = f"{config.name}:4 [scorers.0]: {scorer} has nothing to compare against in any of the 2"
    code, text = assay(capsys, "validate", str(config))
    assert code == 2 and located in text and why in text, text
    code, text = assay(capsys, "run", str(config))
    assert code == 2 and located in text and why in text, text
    assert "trial" not in text  # refused before the first one


def test_validate_warns_of_a_sample_larger_than_the_dataset_as_run_does(capsys, tmp_path):
    """Regression: `dataset.sample: 100` over 1 case passed validate without a word; then
    validate said 'every case ran', though it runs none."""
    config = project(tmp_path, [{"id": "c0", "input": "q", "expected": "a"}],
                     "[{type: exact_match}]")
    config.write_text(config.read_text().replace(
        "dataset: {path: cases.jsonl}", "dataset: {path: cases.jsonl, sample: 100}"))
    code, text = assay(capsys, "validate", str(config))
    assert code == 0, text
    assert ("warning: a sample of 100 cases was asked of a dataset that gives 1: "
            "every case runs") in text


def test_the_check_of_every_case_leaves_a_small_dataset_in_memory_for_the_run(tmp_path):
    """The run checks every case before its first trial, then runs them: the cases the
    scan kept are not given up by the check, so the run does not read the file again (a
    100,000-case run lost a twelfth of its speed to that second read)."""
    from assay.config.loading import load_config
    from assay.runner.plan import build_plan
    from assay.runner.preflight import check_references
    from assay.services import Services

    config = project(tmp_path, [{"id": f"c{i}", "input": "q", "expected": "a"}
                                for i in range(3)], "[{type: exact_match}]")
    loaded = load_config(config)
    plan = build_plan(loaded, Services(base_dir=loaded.base_dir, config=loaded.config))
    plan.dataset.scan()
    assert check_references(loaded, plan) == []
    (tmp_path / "cases.jsonl").unlink()  # a second read would fail
    assert [case.id for case in plan.dataset] == ["c0", "c1", "c2"]


@pytest.mark.parametrize("models, located", [
    ("target: {type: model, model: nosuch/large}\nscorers: [{type: exact_match}]\n",
     "assay.yaml:3 [target.model]: unknown provider 'nosuch'"),
    (("target: {type: python, function: 'agent.py:answer'}\njudge: {model: nosuch/judge}\n"
     "scorers: [{type: judge_score}]\n"), "assay.yaml:4 [judge.model]: unknown provider 'nosuch'")])
def test_an_unknown_provider_is_refused_by_run_at_its_line_as_by_validate(
        capsys, tmp_path, monkeypatch, models, located):
    """Regression: `assay run` said only 'error: unknown provider 'nosuch': ...', naming
    neither the file, the line nor the key that `assay validate` named for the same config
    (and validate named the file by its absolute path, unlike its other problems)."""
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, [{"id": "c0", "input": "q", "expected": "a"}], "[]")
    config.write_text(config.read_text().replace(
        "target: {type: python, function: 'agent.py:answer'}\nscorers: []\n", models))
    for command in ("validate", "run"):
        code, text = assay(capsys, command, "assay.yaml")
        assert code == 2 and f"\n  {located}" in text, (command, text)
        assert "Traceback" not in text


def test_a_temperature_over_what_claude_accepts_is_refused_at_its_line_before_any_call(
        capsys, tmp_path, monkeypatch):
    """Regression: Claude's API takes temperatures from 0 to 1, the others' from 0 to 2; a
    config asking 1.5 of a Claude model passed `assay validate`, and every call of the run
    was then refused by the API. Now validate and run both refuse it at the key that sets
    it, for the target under each condition and for each judge, and leave OpenAI's 1.5 be."""
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, [{"id": "c0", "input": "q", "expected": "a"}], "[]")
    config.write_text(
        "name: hot\ndataset: {path: cases.jsonl}\n"
        "target: {type: model, model: anthropic/claude-sonnet-4-5, temperature: 1.5}\n"
        "conditions:\n  inherits: {}\n  overrides: {temperature: 0.5}\n"
        "  gpt: {model: openai/gpt-4.1, temperature: 1.5}\n"
        "judge: {model: vertex_ai/claude-opus-4-5, temperature: 1.2}\n"
        "scorers: [{type: judge_score}, {type: judge_score, name: j2, model: openai/gpt-4.1},\n"
        "          {type: judge_score, name: j3, temperature: 0.7}]\n")
    for command in ("validate", "run"):
        code, text = assay(capsys, command, "assay.yaml")
        assert code == 2, (command, text)
        refused = [line.strip() for line in text.splitlines() if "temperature" in line]
        assert refused == [
            ("assay.yaml:3 [target.temperature]: temperature 1.5 is more than "
            "anthropic/claude-sonnet-4-5 accepts (0 to 1)"),
            ("assay.yaml:8 [judge.temperature]: temperature 1.2 is more than "
            "vertex_ai/claude-opus-4-5 accepts (0 to 1)")], (command, text)
    config.write_text(config.read_text().replace("temperature: 1.5}\ncond", "temperature: 1}\ncond")
                      .replace("temperature: 1.2", "temperature: 1"))
    code, text = assay(capsys, "validate", "assay.yaml")
    assert "temperature" not in text, text


def test_validate_reads_a_baseline_from_a_store_an_older_assay_made(capsys, tmp_path):
    """Regression: `assay validate` of a config with a regression baseline opened a store
    an older assay made as it was, to read the baseline, and stopped with 'the store ...
    failed: no such column: runs.options_json' (exit 3). It is upgraded first, as every
    command that opens it upgrades it, and the baseline found."""
    from tests.store.test_migrations import first_release_database

    store = first_release_database(tmp_path / "old.db")
    config = project(tmp_path, [{"id": "c0", "input": "q", "expected": "a"}],
                     "[{type: exact_match}]")
    config.write_text(config.read_text() + "gates:\n  - regression: {baseline: r1}\n")
    code, text = assay(capsys, "validate", str(config), "--store", store)
    assert code == 0, text
    assert "no such column" not in text
