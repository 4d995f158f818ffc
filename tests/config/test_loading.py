"""Configs load from YAML with every problem located by file, line and field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.config import load_config
from assay.errors import UserError
from assay.redaction import redact_known

BASE = """\
name: demo
dataset:
  path: cases.jsonl
target:
  type: python
  function: agent:answer
conditions:
  a: {}
  b: {args: {style: long}}
scorers:
  - type: contains
    value: "{{ expected }}"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "assay.yaml"
    path.write_text(text)
    (tmp_path / "cases.jsonl").write_text('{"id": "x", "input": "q", "expected": "a"}\n')
    return path


def problems(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> list[tuple]:
    with pytest.raises(UserError) as info:
        load_config(write(tmp_path, text), env=env or {})
    return [(p.line, p.field, p.message) for p in info.value.problems]


def test_a_valid_config_resolves_one_target_per_condition(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, BASE), env={})
    assert loaded.name == "demo"
    assert [c.name for c in loaded.conditions] == ["a", "b"]
    assert loaded.target_params["a"].args == {}
    assert loaded.target_params["b"].args == {"style": "long"}
    assert len(loaded.hash) == 64


def test_the_hash_leaves_out_the_settings_that_pace_a_run_and_nothing_else(
        tmp_path: Path) -> None:
    """Trials in flight, commit batches and the error and cost budgets change how a run goes,
    not what it measures: a stopped run is resumed with them changed. Before, any of them but
    the budget changed the hash and refused the resume; anything that can change an answer
    (epochs, timeout, max_output_bytes, the seed) still does."""
    def hash_of(run: str) -> str:
        return load_config(write(tmp_path, BASE + run), env={}).hash

    paced = hash_of("run: {concurrency: 2, batch_size: 5, max_errors: 3, max_cost_usd: 1}")
    assert paced == hash_of("run: {concurrency: 32, batch_size: 1, max_errors: 50}")
    assert paced == hash_of("run: {max_consecutive_errors: null}") == hash_of("")
    for measured in ("epochs: 2", "timeout: 10", "max_output_bytes: 5000", "seed: 1",
                     "sample: 3"):
        assert hash_of(f"run: {{concurrency: 2, {measured}}}") != paced, measured


def test_unknown_key_suggests_the_nearest_one_with_its_line(tmp_path: Path) -> None:
    text = BASE.replace("  path: cases.jsonl", "  path: cases.jsonl\n  smaple: 3")
    ((line, field, message),) = problems(tmp_path, text)
    assert (line, field) == (4, "dataset.smaple")
    assert "did you mean 'sample'" in message


def test_unknown_scorer_type_suggests_a_registered_kind(tmp_path: Path) -> None:
    ((line, field, message),) = problems(tmp_path, BASE.replace("type: contains",
                                                               "type: contain"))
    assert (line, field) == (11, "scorers.0.type")
    assert "did you mean 'contains'" in message


def test_a_condition_override_error_points_at_the_condition(tmp_path: Path) -> None:
    text = BASE.replace("b: {args: {style: long}}", "b: {argz: {style: long}}")
    ((line, field, message),) = problems(tmp_path, text)
    assert (line, field) == (9, "conditions.b.argz")
    assert "did you mean 'args'" in message


def test_every_missing_environment_variable_is_reported_at_once(tmp_path: Path) -> None:
    text = BASE.replace("name: demo", "name: ${EXPERIMENT}").replace(
        "function: agent:answer", "function: ${MODULE}:answer")
    found = problems(tmp_path, text)
    assert [(line, message) for line, _, message in found] == [
        (1, "environment variable ${EXPERIMENT} is not set"),
        (6, "environment variable ${MODULE} is not set"),
    ]


def test_interpolated_secrets_are_not_stored(tmp_path: Path) -> None:
    text = BASE.replace("function: agent:answer",
                        "function: agent:answer\n  args: {token: '${SECRET}', key: 'sk-literal'}")
    text = text.replace("  b: {args: {style: long}}", "  b: {}")
    loaded = load_config(write(tmp_path, text), env={"SECRET": "s3cr3t-value"})
    assert loaded.target_params["a"].args["token"] == "s3cr3t-value"
    stored = repr(loaded.stored)
    assert "s3cr3t-value" not in stored and "${SECRET}" in stored


def test_a_variable_put_in_a_urls_password_or_key_is_masked_whatever_its_name(
        tmp_path: Path) -> None:
    """`${PW}` and `${MAPS}` are not named like secrets, so a reply or an answer echoing
    the password or key they put in the URL was stored and printed as it was."""
    text = BASE.replace("  type: python\n  function: agent:answer",
                        "  type: http\n  url: 'http://me:${PW}@127.0.0.1:9/ask?key=${MAPS}'")
    text = text.replace("  b: {args: {style: long}}", "  b: {}")
    load_config(write(tmp_path, text), env={"PW": "Pass-Word-4242", "MAPS": "MapsValue9191"})
    assert redact_known("401: bad password Pass-Word-4242 or key MapsValue9191") == (
        "401: bad password *** or key ***")


def test_defaults_apply_after_interpolation(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, BASE.replace("name: demo", "name: ${NAME:-fallback}")),
                         env={})
    assert loaded.name == "fallback"


def test_gates_must_name_known_scorers_and_conditions(tmp_path: Path) -> None:
    text = BASE + "gates:\n  - {scorer: contain, condition: c, min_pass_rate: 0.5}\n"
    found = problems(tmp_path, text)
    assert [(line, field) for line, field, _ in found] == [(14, "gates.0.scorer"),
                                                            (14, "gates.0.condition")]
    assert "did you mean 'contains'" in found[0][2]


def test_invalid_yaml_names_the_line(shared_fixtures: Path) -> None:
    with pytest.raises(UserError) as info:
        load_config(shared_fixtures / "configs/k-eval/invalid_yaml.yaml")
    (problem,) = info.value.problems
    assert problem.line == 1 and problem.file.endswith("invalid_yaml.yaml")


@pytest.mark.parametrize("character, message", [
    ("\x07", "the character U+0007, which YAML does not allow: remove it"),
    ("\x00", "a NUL character (U+0000), which YAML does not allow: is this a binary file"),
])
def test_a_character_yaml_refuses_is_named_with_its_line(tmp_path: Path, character: str,
                                                         message: str) -> None:
    """Regression: the problem read 'unacceptable character #x0007: special characters are
    not allowed in "<unicode string>", position 10', with no line."""
    path = tmp_path / "assay.yaml"
    path.write_text(f"name: x\ndescription: a{character}b\n")
    with pytest.raises(UserError) as info:
        load_config(path)
    (problem,) = info.value.problems
    assert (problem.file, problem.line) == (str(path), 2)
    assert problem.message.startswith(message)


def test_missing_config_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_a_key_given_twice_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    text = BASE.replace("  b: {args: {style: long}}", "  b: {args: {style: long}}\n  a: {}")
    ((line, _field, message),) = problems(tmp_path, text)
    assert line == 10 and message == "key 'a' appears twice (first on line 8)"


def test_a_value_from_the_environment_is_never_echoed(tmp_path: Path) -> None:
    text = BASE + "run: {concurrency: '${SECRET}'}\n"
    found = problems(tmp_path, text, env={"SECRET": "sk-live-123"})
    assert "sk-live-123" not in repr(found) and "${SECRET}" in found[0][2]


BOMB = "".join(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join(
    [f"*{chr(96 + i)}"] * 9 if i else ['"lol"'] * 9) + "]\n" for i in range(10))


def test_an_alias_bomb_is_refused_quickly_with_its_line(tmp_path: Path) -> None:
    """Regression: a "billion laughs" config used 3.5 GB and hung `validate` and `run`."""
    import time

    started = time.monotonic()
    found = problems(tmp_path, BASE + BOMB)
    assert time.monotonic() - started < 2
    assert found[0][0] is not None and "expands to more than 100,000 values" in found[0][2]


@pytest.mark.parametrize(("text", "words"), [
    (BASE + "deep: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    (BASE + "run: {seed: " + "9" * 5000 + "}\n", "(5000 digits) is too large"),
    (BASE + "run: {epochs: 100000000000000000000}\n", "(21 digits) is too large"),
    (BASE + "run: {epochs: 100000}\n", "less than or equal to 10000"),
    (BASE + "description: ${\n", "`${` starts no `${NAME}` reference"),
    (BASE.replace("  a: {}", "  '': {}"), "condition name '' is empty"),
    (BASE.replace("  a: {}", "  a/../b: {}"), "may not be '.' or '..' or hold a slash"),
    (BASE + "providers: {local: {base_url: 'not a url'}}\n", "is not an http:// or https://"),
    # regression: passed validate, then PostgreSQL refused the run's row (varchar 200)
    (BASE.replace("name: demo", "name: " + "x" * 201), "at most 200 characters"),
])
def test_bad_values_are_located_errors_not_internal_ones(tmp_path: Path, text: str,
                                                         words: str) -> None:
    found = problems(tmp_path, text)
    assert any(words in message and line is not None for line, _field, message in found), found


def test_a_dollar_brace_is_written_as_dollar_dollar_brace(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, BASE + "description: 'costs $${PRICE}'\n"), env={})
    assert loaded.config.description == "costs ${PRICE}"


@pytest.mark.parametrize(("content", "words"), [
    ("name: x\n".encode("utf-16"), "is UTF-16 text (as Windows PowerShell writes it); save it as UTF-8"),
    (b"name: caf\xe9\n", "is not UTF-8 text"),
])
def test_a_config_that_is_not_utf8_is_refused_clearly(tmp_path: Path, content: bytes,
                                                      words: str) -> None:
    path = tmp_path / "assay.yaml"
    path.write_bytes(content)
    with pytest.raises(UserError, match=re.escape(words)):
        load_config(path)


def test_a_fifo_or_a_directory_as_config_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(UserError, match="not a regular file"):
        load_config(tmp_path / "pipe.yaml")
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(UserError, match="is a directory"):
        load_config(tmp_path / "dir.yaml")


@pytest.mark.parametrize("url", ["https://example.com/cases.jsonl", "s3://bucket/cases.csv"])
def test_a_dataset_path_that_is_a_url_is_refused_where_it_is_written(tmp_path: Path,
                                                                      url: str) -> None:
    """It was joined to the config's folder and read 'dataset not found: /proj/https:/...'."""
    text = BASE.replace("path: cases.jsonl", f"path: {url}")
    assert problems(tmp_path, text) == [(3, "dataset.path", (
        "a URL, and a dataset is read from a file on this machine: download it first, or "
        f"name a Hugging Face dataset with `hf:` (got '{url}')"))]


@pytest.mark.parametrize("context, field, says", [
    ("{pack: docs, top_k: 0}", "conditions.b.context.top_k", "greater than or equal to 1"),
    ("{pack: docs, top_k: 500}", "conditions.b.context.top_k", "less than or equal to 50"),
    ("{pack: docs, topk: 3}", "conditions.b.context.topk", "did you mean 'top_k'?"),
], ids=["zero", "too-many", "misspelt"])
def test_a_condition_context_out_of_range_is_refused_at_its_line(
        tmp_path: Path, context: str, field: str, says: str) -> None:
    """Regression: `context:` was validated at each trial, so `top_k: 0` passed `assay validate`
    and failed every trial of its condition with a raw pydantic message (exit 3)."""
    text = BASE.replace("b: {args: {style: long}}", f"b: {{context: {context}}}")
    found = problems(tmp_path, text + "packs: {docs: {path: .}}\n")
    assert [(line, where) for line, where, _ in found] == [(9, field)]
    assert says in found[0][2]


def test_a_dataset_written_as_its_path_alone_reads_as_that_file(tmp_path: Path) -> None:
    """`dataset: cases.jsonl` was refused: 'Input should be a valid dictionary or instance of
    DatasetConfig'."""
    text = BASE.replace("dataset:\n  path: cases.jsonl", "dataset: cases.jsonl")
    loaded = load_config(write(tmp_path, text), env={})
    assert loaded.config.dataset.path == "cases.jsonl"
    assert loaded.hash != load_config(write(tmp_path, text.replace("cases.jsonl", "other.jsonl")
                                            ), env={}).hash


@pytest.mark.parametrize("dataset, field, says", [
    ("5", "dataset", "a dataset is a file's path, or a mapping with `path:` or `hf:` (got 5)"),
    ("[a, b]", "dataset", "a dataset is a file's path, or a mapping with `path:` or `hf:`"),
    ('""', "dataset.path", "the dataset's path is empty"),
    ("{path: ' '}", "dataset.path", "the dataset's path is empty"),
], ids=["number", "list", "empty", "blank"])
def test_a_dataset_that_is_neither_a_path_nor_a_mapping_is_refused_in_plain_words(
        tmp_path: Path, dataset: str, field: str, says: str) -> None:
    """An empty path read as the config's own folder: 'dataset /proj is a directory'."""
    text = BASE.replace("dataset:\n  path: cases.jsonl", f"dataset: {dataset}")
    ((line, where, message),) = problems(tmp_path, text)
    assert (line, where) == (2, field)
    assert message.startswith(says)


def test_a_kind_key_where_type_belongs_is_named(tmp_path: Path) -> None:
    """It said only "missing 'type'" to a user who had written `kind: python`."""
    text = BASE.replace("  type: python", "  kind: python")
    assert problems(tmp_path, text) == [
        (5, "target.kind", "missing 'type' (this entry has 'kind:'; assay's key is 'type:')")]


def test_a_type_that_is_not_a_name_lists_the_known_ones_at_its_line(tmp_path: Path) -> None:
    ((line, field, message),) = problems(tmp_path, BASE.replace("type: contains", "type: 5"))
    assert (line, field) == (11, "scorers.0.type")
    assert message.startswith("'type' must be the name of a scorer type (known: contains,")


def test_a_wrong_key_under_target_is_one_problem_however_many_conditions_share_it(
        tmp_path: Path) -> None:
    """Regression: it was listed once per condition, the same line twice here."""
    text = BASE.replace("function: agent:answer", "function: agent:answer\n  threads: 4")
    assert [(line, field) for line, field, _ in problems(tmp_path, text)] == \
        [(7, "target.threads")]
