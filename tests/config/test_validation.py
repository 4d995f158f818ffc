"""pydantic's errors read as located problems in plain words."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config import load_config
from assay.errors import Problem, UserError


def with_a_case(folder: Path) -> Path:
    """A one-case cases.jsonl in `folder`, and where its config goes."""
    (folder / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    return folder / "assay.yaml"


def only_problem(config: Path) -> Problem:
    """The one problem loading `config` finds."""
    with pytest.raises(UserError) as info:
        load_config(config, env={})
    (problem,) = info.value.problems
    return problem


def test_a_rule_of_the_config_reads_in_its_own_words_without_pydantics_prefix(
        tmp_path: Path) -> None:
    """Regression: it read 'Value error, a gate needs min_pass_rate, ...'."""
    config = with_a_case(tmp_path)
    config.write_text("name: m\ndataset: {path: cases.jsonl}\n"
                      "target: {type: python, function: agent:answer}\n"
                      "scorers: [{type: contains}]\ngates: [{scorer: contains}]\n")
    problem = only_problem(config)
    assert (problem.line, problem.field) == (5, "gates.0")
    assert problem.message.startswith("a gate needs min_pass_rate, min_mean or max_error_rate")


@pytest.mark.parametrize("written, shown", [("dataset\u200b", "dataset\\u200b"),
                                            ("dataset\u00a0", "dataset\\u00a0"),
                                            ("\u200fdataset", "\\u200fdataset")])
def test_an_unknown_key_holding_an_invisible_character_shows_it(tmp_path: Path, written: str,
                                                                 shown: str) -> None:
    """Regression: a key pasted with a zero-width space read 'unknown key 'dataset'; did
    you mean 'dataset'?', the two names looking the same."""
    config = with_a_case(tmp_path)
    config.write_text(f"name: m\ndataset: {{path: cases.jsonl}}\n{written}: 1\n"
                      "target: {type: python, function: agent:answer}\n"
                      "scorers: [{type: contains}]\n", encoding="utf-8")
    problem = only_problem(config)
    assert (problem.line, problem.field) == (3, shown)
    assert problem.message.startswith(f"unknown key '{shown}'; did you mean 'dataset'?")


def test_a_dataset_field_that_is_no_case_field_is_refused_with_the_one_meant(
        tmp_path: Path) -> None:
    """Regression: `fields: {input: question, expeted: answer}` validated, and every case
    ran with no expected answer, the file's `answer` read for a field no case has and
    dropped unsaid."""
    (tmp_path / "cases.jsonl").write_text('{"question": "q", "answer": "x"}\n')
    config = tmp_path / "assay.yaml"
    config.write_text("name: m\ndataset:\n  path: cases.jsonl\n"
                      "  fields: {input: question, expeted: answer}\n"
                      "target: {type: python, function: agent:answer}\n"
                      "scorers: [{type: exact_match}]\n")
    problem = only_problem(config)
    assert (problem.line, problem.field) == (4, "dataset.fields")
    assert problem.message.startswith("'expeted' is no field of a case; did you mean "
                                      "'expected'? (fields: id, input, expected,")


@pytest.mark.parametrize("key, where", [("dataset", "sample"), ("run", "epochs"),
                                        ("run", "max_errors"), ("judge", "temperature")])
def test_true_or_false_where_a_number_is_wanted_is_refused(tmp_path: Path, key: str,
                                                           where: str) -> None:
    """Regression: `sample: true` was read as 1, and the run of one case said '1 case' as if
    asked for; `max_errors: true` was a budget of one error."""
    config = with_a_case(tmp_path)
    body = {"dataset": "dataset: {path: cases.jsonl, sample: true}\n",
            "run": f"dataset: cases.jsonl\nrun: {{{where}: true}}\n",
            "judge": "dataset: cases.jsonl\njudge: {model: openai/gpt-4.1, temperature: false}\n"}
    config.write_text(f"name: m\n{body[key]}target: {{type: python, function: agent:answer}}\n"
                      "scorers: [{type: exact_match}]\n")
    problem = only_problem(config)
    assert problem.field == f"{key}.{where}"
    assert problem.message.startswith("Input should be a number, not true or false")


_NUMBERS_IN_SECTIONS = {
    "target.max_tokens": ["target: {type: model, model: openai/gpt-4.1, max_tokens: true}"],
    "conditions.hot.temperature": ["target: {type: model, model: openai/gpt-4.1}",
                                   "conditions: {cold: {}, hot: {temperature: true}}"],
    "target.timeout": ["target: {type: http, url: 'http://127.0.0.1:9/x', timeout: false}"],
    "scorers.0.repeats": ["scorers: [{type: judge_score, model: openai/gpt-4.1, repeats: true}]"],
    "scorers.0.scale.0": ["scorers: [{type: python, function: agent:score, scale: [true, 5]}]"],
    "providers.local.max_retries": ["providers: {local: {kind: openai, max_retries: true}}"],
    "conditions.p.context.top_k": ["packs: {docs: {path: .}}",
                                   "conditions: {p: {context: {pack: docs, top_k: true}}}"],
}
"""Each section's number written as true or false, by the field named; the target is a
python function and the scorer `exact_match` unless one is given."""


@pytest.mark.parametrize("field", _NUMBERS_IN_SECTIONS)
def test_true_or_false_for_a_number_is_refused_in_every_section(tmp_path: Path,
                                                                field: str) -> None:
    """Regression: a target's `max_tokens: true`, a judge's `repeats: true`, a provider's
    `max_retries: true` or a pack context's `top_k: true` read as 1, a `timeout: false` as 0;
    only the config file's own keys (`run:`, `dataset:`, `judge:`) refused them."""
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    (tmp_path / "agent.py").write_text("def answer(case):\n    return 'x'\n\n"
                                       "def score(case, output):\n    return 1.0\n")
    lines = _NUMBERS_IN_SECTIONS[field]
    if not any(line.startswith("target:") for line in lines):
        lines = ["target: {type: python, function: agent:answer}", *lines]
    if not any(line.startswith("scorers:") for line in lines):
        lines = [*lines, "scorers: [{type: exact_match}]"]
    config = tmp_path / "assay.yaml"
    config.write_text("\n".join(["name: m", "dataset: cases.jsonl", *lines]) + "\n")
    problem = only_problem(config)
    key = next(part for part in reversed(field.split(".")) if not part.isdigit())
    assert problem.field == field and problem.line is not None
    assert f"{key}:" in config.read_text().splitlines()[problem.line - 1]
    assert problem.message.startswith("Input should be a number, not true or false")


@pytest.mark.parametrize("written, line, key, message", [
    ("max: abc", 11, "max", "Input should be a valid number"),
    ("max: 10\n      maxx: 3", 12, "maxx",
     "unknown key 'maxx'; did you mean 'max'? (allowed: integer, max, min,"),
], ids=["a bad value", "an unknown key"])
def test_a_problem_in_a_judge_output_names_its_own_key_and_line(
        tmp_path: Path, written: str, line: int, key: str, message: str) -> None:
    """Regression: `output: {type: number, max: abc}` was put at 'scorers.0.output.number.max',
    a key no file has (the tag pydantic puts in the place), on the line of `output:`; an
    unknown key there named no key it could have meant."""
    config = with_a_case(tmp_path)
    config.write_text("name: m\ndataset: cases.jsonl\n"
                      "target: {type: python, function: agent:answer}\n"
                      "scorers:\n  - type: judge\n    model: openai/gpt-4.1\n"
                      "    prompt: 'Rate {{ output }}'\n    output:\n      type: number\n"
                      f"      min: 0\n      {written}\n      threshold: 5\n")
    problem = only_problem(config)
    assert (problem.line, problem.field) == (line, f"scorers.0.output.{key}")
    assert problem.message.startswith(message)
