"""Datasets load the three seed layouts as they are, and say exactly what is wrong."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from assay.datasets.dataset import Dataset, open_dataset
from assay.errors import Problem, UserError


def problems_of(path: Path) -> list[Problem]:
    """The located problems scanning the dataset at `path` refuses it with."""
    with pytest.raises(UserError) as info:
        open_dataset(path).scan()
    return info.value.problems


def test_knowledge_packs_questions_load_without_mapping(shared_fixtures: Path) -> None:
    dataset = open_dataset(shared_fixtures / "datasets/agent-kgpacks/go-expert/questions.jsonl")
    cases = list(dataset)
    assert dataset.scan().layout == "knowledge-packs"
    assert len(cases) == 50
    first = cases[0]
    assert first.id == "ge_001"
    assert first.input.startswith("What does the `maps.Keys` function")
    assert "not guaranteed" in first.expected
    assert first.difficulty == "easy"
    assert first.metadata == {"domain": "go_expert", "source": "maps_package_go_1_21"}


def test_knowledge_packs_json_array_variant_loads_with_line_numbers(shared_fixtures: Path) -> None:
    path = shared_fixtures / "datasets/agent-kgpacks/go-expert/questions.json"
    cases = list(open_dataset(path))
    assert len(cases) == len(json.loads(path.read_text()))
    assert cases[0].input == "What is the primary purpose of type parameters in Go generics?"


def test_every_knowledge_packs_question_file_loads(shared_fixtures: Path) -> None:
    for path in sorted((shared_fixtures / "datasets/agent-kgpacks").glob("*/questions.jsonl")):
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        assert len(list(open_dataset(path))) == len(lines), path


def test_k_eval_dataset_uses_the_record_index_as_id(shared_fixtures: Path) -> None:
    cases = list(open_dataset(shared_fixtures / "datasets/k-eval/simple_dataset.jsonl"))
    assert [(c.id, c.input, c.expected) for c in cases] == [
        ("0", "What is the capital of France?", "Paris"),
        ("1", "What is 2 + 2?", "4"),
        ("2", "Who wrote Hamlet?", "Shakespeare"),
    ]


def test_k_eval_custom_keys_load_by_field_mapping(shared_fixtures: Path) -> None:
    path = shared_fixtures / "datasets/k-eval/custom_keys_dataset.jsonl"
    cases = list(open_dataset(path, fields={"input": "prompt", "expected": "response"}))
    assert cases[2].input == "What is the chemical symbol for gold?"
    assert cases[2].expected == "Au"


def test_unknown_layout_asks_for_a_mapping(shared_fixtures: Path) -> None:
    path = shared_fixtures / "datasets/k-eval/custom_keys_dataset.jsonl"
    problem = problems_of(path)[0]
    assert (problem.line, problem.field) == (1, "input")
    assert "prompt, response" in problem.message and "dataset.fields" in problem.message


def test_invalid_json_line_is_named(shared_fixtures: Path) -> None:
    path = shared_fixtures / "datasets/k-eval/invalid_json_dataset.jsonl"
    with pytest.raises(UserError) as info:
        open_dataset(path).scan()
    assert [(p.file, p.line) for p in info.value.problems] == [(str(path), 2)]
    assert "invalid JSON" in str(info.value)


def test_every_missing_key_is_reported_at_once(shared_fixtures: Path) -> None:
    path = shared_fixtures / "datasets/k-eval/missing_key_dataset.jsonl"
    found = [(p.line, p.field) for p in problems_of(path)]
    assert found == [(2, "answer"), (3, "question")]


def test_agent_suite_cases_keep_tool_calls_and_traits(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({
        "id": "case_001", "input": "where's my order #12345?",
        "expected_tool_calls": [{"name": "get_order_status", "args": {"order_id": "12345"}}],
        "expected_response_traits": ["mentions delivery date", "no false apology"],
        "tags": ["happy_path", "lookup"], "difficulty": "easy",
        "metadata": {"source": "trace_2026_03_09", "owner": "evals-team"}}) + "\n")
    (case,) = list(open_dataset(path))
    assert case.expected_tool_calls == [{"name": "get_order_status",
                                         "args": {"order_id": "12345"}}]
    assert case.expected_traits == ["mentions delivery date", "no false apology"]
    assert case.tags == ["happy_path", "lookup"]
    assert case.metadata == {"source": "trace_2026_03_09", "owner": "evals-team"}


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": "x"}\n{"id": "b", "input": "y"}\n'
                    '{"id": "a", "input": "z"}\n')
    (problem,) = problems_of(path)
    assert problem.line == 3 and "first on line 1" in problem.message


def test_yaml_and_csv_datasets_carry_line_numbers(tmp_path: Path) -> None:
    yaml_path = tmp_path / "cases.yaml"
    yaml_path.write_text("cases:\n  - id: a\n    input: hello\n  - id: b\n    expected: x\n")
    assert [(p.line, p.field) for p in problems_of(yaml_path)] == [(4, "input")]
    csv_path = tmp_path / "cases.csv"
    csv_path.write_text('id,input,expected,tags,expected_tool_calls\n'
                        'a,"What, exactly?",yes,"x;y","[{""name"": ""f"", ""args"": {}}]"\n')
    (case,) = list(open_dataset(csv_path))
    assert case.input == "What, exactly?" and case.tags == ["x", "y"]
    assert case.expected_tool_calls == [{"name": "f", "args": {}}]


def test_sample_is_seeded_stable_and_grows_gracefully(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    rows = [{"id": f"c{i}", "input": str(i)} for i in range(200)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = [c.id for c in open_dataset(path, sample=20, seed=7)]
    again = [c.id for c in open_dataset(path, sample=20, seed=7)]
    other_seed = [c.id for c in open_dataset(path, sample=20, seed=8)]
    assert first == again and len(first) == 20 and first != other_seed
    # Adding cases keeps every old pick that still ranks in the sample.
    path.write_text("".join(json.dumps(r) + "\n" for r in rows + [
        {"id": f"new{i}", "input": "n"} for i in range(10)]))
    grown = [c.id for c in open_dataset(path, sample=20, seed=7)]
    assert len(set(first) & set(grown)) >= 15


def test_dataset_hash_is_the_files_sha256(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": "x"}\n')
    assert open_dataset(path).scan().sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_expected_traits_load_by_their_own_name_and_the_agent_suite_name(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": "q", "expected_traits": ["polite"]}\n'
                    '{"id": "b", "input": "q", "expected_response_traits": ["brief"]}\n')
    first, second = list(open_dataset(path))
    assert first.expected_traits == ["polite"] and "expected_traits" not in first.metadata
    assert second.expected_traits == ["brief"] and second.metadata == {}


def test_bytes_that_are_not_utf8_are_a_located_problem(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b'{"id": "a", "input": "q"}\n\xff\xfe{}\n')
    (problem,) = problems_of(path)
    assert problem.line == 2 and "not UTF-8" in problem.message


def test_wrong_types_are_problems_not_crashes(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": "q", "tags": 5}\n'
                    '{"id": "b", "input": "q", "expected_traits": 3}\n')
    assert [(p.line, p.field) for p in problems_of(path)] == [(1, "tags"),
                                                              (2, "expected_traits")]


def test_a_wrapped_json_array_gets_the_right_lines(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text('{"meta": [1, 2],\n "cases": [\n  {"id": "a", "input": "x"},\n'
                    '  {"id": "b"}\n ]}\n')
    assert [(p.line, p.field) for p in problems_of(path)] == [(4, "input")]


def test_a_mapping_keeps_the_fields_it_does_not_mention(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"question": "q", "ground_truth": "a", "tags": ["t"],
                                "expected_tool_calls": [{"name": "lookup"}]}) + "\n")
    (case,) = list(open_dataset(path, fields={"input": "question"}))
    assert case.expected_tool_calls == [{"name": "lookup"}] and case.tags == ["t"]
    assert case.expected == "a"


def test_a_mapping_of_the_input_alone_loads_cases_without_an_expected_value(
        tmp_path: Path) -> None:
    """Regression: `fields: {input: prompt}` over records with no `expected` (judged by
    traits or a rubric) refused every record with "missing key 'expected'"."""
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "prompt": "q"}\n{"id": "b", "prompt": "r", "expected": "x"}\n')
    first, second = open_dataset(path, fields={"input": "prompt"})
    assert (first.input, first.expected) == ("q", None) and second.expected == "x"
    assert scan_problems(path, {"input": "prompt", "expected": "answer"}) == [
        f"{path}:1 [answer]: missing key 'answer' (the case's expected)",
        f"{path}:2 [answer]: missing key 'answer' (the case's expected)"]


def test_csv_cells_may_be_long(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("id,input,reference\na,q," + "x" * 300_000 + "\n")
    (case,) = list(open_dataset(path))
    assert len(case.reference) == 300_000


def scan_problems(path: Path, fields: dict[str, str] | None = None) -> list[str]:
    with pytest.raises(UserError) as info:
        open_dataset(path, fields=fields).scan()
    return [str(problem) for problem in info.value.problems] or [str(info.value)]


def test_an_unterminated_csv_quote_is_an_error_at_its_line(tmp_path: Path) -> None:
    """Regression: the quote swallowed the rest of the file into one field, silently."""
    path = tmp_path / "cases.csv"
    path.write_text('id,input,expected\n1,ok,a\n2,"never closed,b\n3,more,c\n4,rows,d\n')
    assert scan_problems(path) == [f"{path}:3: a quoted field that starts here is never closed"]


@pytest.mark.parametrize(("suffix", "separator", "name"), [
    (".csv", ",", "comma"), (".csv", ";", "semicolon"), (".tsv", "\t", "tab")])
def test_a_row_with_more_or_fewer_cells_than_the_header_is_an_error_naming_its_separator(
        tmp_path: Path, suffix: str, separator: str, name: str) -> None:
    """Regression: `c1,hi,yes,extra` lost its 4th cell and `c2,hi` loaded without its
    expected value, both silently; then a `;` file's short row was told 'an empty value
    still needs its comma', where a comma added would not help."""
    path = tmp_path / f"cases{suffix}"
    path.write_text(separator.join(["id", "input", "expected"]) + "\n"
                    + separator.join(["c1", "hi", "yes", "extra"]) + "\n"
                    + separator.join(["c2", "hi"]) + "\n"
                    + separator.join(["c3", "hi", ""]) + "\n")
    assert scan_problems(path) == [
        (f"{path}:2: this row has 4 cells but the header has 3 "
         f"(a value that holds a {name} must be quoted)"),
        (f"{path}:3: this row has 2 cells but the header has 3 "
         f"(an empty value still needs its {name})")]


def test_a_csv_header_naming_a_column_twice_is_an_error_at_its_first_line(
        tmp_path: Path) -> None:
    """Regression: `id,input,input` loaded each row with its second input only, silently."""
    path = tmp_path / "cases.csv"
    path.write_text("id,input,expected,input\nc1,first,yes,second\n")
    assert scan_problems(path) == [
        (f"{path}:1 [input]: the header names the column 'input' twice (columns 2 and 4): "
         "only one of them would be read; rename the other")]


def test_a_file_of_unknown_suffix_that_is_not_jsonl_is_one_problem_saying_how_it_was_read(
        tmp_path: Path) -> None:
    """Regression: a CSV file named `cases.txt` was read as JSONL and refused with one
    'invalid JSON' per line, 5,001 lines for 5,000 cases, none saying why."""
    path = tmp_path / "cases.txt"
    path.write_text("id,input\n" + "".join(f"c{i},q{i}\n" for i in range(5000)))
    assert scan_problems(path) == [
        (f"{path}:1: no line of it is JSON (invalid JSON: Expecting value (column 1)): it was "
         "read as JSONL, since its name ends in '.txt'; name its format with dataset.format: "
         "jsonl, json, yaml, csv or parquet")]
    assert len(Dataset(path, format="csv")) == 5000
    other = tmp_path / "cases.log"  # JSON lines but not records: what is wrong with them
    other.write_text('1\n{"id": "a"}\n')
    assert scan_problems(other) == [f"{other}:1: each record must be an object"]


def test_a_csv_row_ending_in_an_empty_cell_keeps_its_width(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text('id,input,expected\nc3,hi,\nc4,"a, b",yes\n')
    first, second = open_dataset(path)
    assert first.id == "c3" and first.expected is None
    assert second.input == "a, b" and second.expected == "yes"


@pytest.mark.parametrize(("line", "words"), [
    ('{"id": "1", "input": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"id": "1", "input": "q", "expected": ' + "7" * 5000 + "}", "Exceeds the limit"),
])
def test_json_beyond_the_parsers_limits_is_a_located_problem(tmp_path: Path, line: str,
                                                             words: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "0", "input": "q"}\n' + line + "\n")
    [problem] = scan_problems(path)
    assert problem.startswith(f"{path}:2: invalid JSON") and words in problem


def test_a_lone_surrogate_in_a_field_is_replaced_so_the_case_can_be_stored(
        tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "1", "input": "half \\ud83d", "expected": "x"}\n')
    [case] = list(open_dataset(path))
    assert case.input == "half \ufffd"


def test_a_replaced_surrogate_is_a_warning_naming_its_line_and_field(tmp_path: Path) -> None:
    """Regression: `validate` passed such a file without a word, and the text stored was not
    what the file held."""
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "1", "input": "fine"}\n'
                    '{"id": "2", "input": "half \\ud83d and \\udc00", "expected": "x"}\n')
    scan = open_dataset(path).scan()
    assert scan.count == 2
    [warning] = scan.warnings()
    assert warning.startswith(f"{path}:2 [input]: 2 lone surrogates")
    assert "replaced by U+FFFD" in warning


def test_a_case_id_longer_than_the_store_keeps_is_an_error_at_its_line(tmp_path: Path) -> None:
    """Regression: a 1,000-character id passed `validate`, then every batch holding it failed
    to store on PostgreSQL."""
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "x" * 1000, "input": "q"}) + "\n")
    [problem] = scan_problems(path)
    assert problem.startswith(f"{path}:1 [id]: id is 1000 characters long")


def test_an_id_that_is_a_list_an_object_or_a_boolean_is_an_error_at_its_line(
        tmp_path: Path) -> None:
    """They were taken as the ids "['a']", "{'k': 1}" and "True"."""
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in [
        {"id": ["a"], "input": "q"}, {"id": {"k": 1}, "input": "q"}, {"id": True, "input": "q"},
        {"id": 7, "input": "q"}, {"id": 2.5, "input": "q"}]))
    assert scan_problems(path) == [f"{path}:1 [id]: id must be text or a number, not a list",
                                   f"{path}:2 [id]: id must be text or a number, not an object",
                                   f"{path}:3 [id]: id must be text or a number, not true or false"]


def test_a_duplicate_id_that_a_record_without_id_took_from_its_index_says_so(
        tmp_path: Path) -> None:
    """Regression: `{"id": "1"}` then `{"id": ""}` read "duplicate id '1'", an id the second
    record does not have."""
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in [
        {"id": "1", "input": "q"}, {"id": "", "input": "q"}, {"input": "q"},
        {"id": "2", "input": "q"}]))
    assert scan_problems(path) == [
        (f"{path}:2 [id]: duplicate id '1' (first on line 1): this record has no id, so its "
         "index, 1, stands in for one; give it an id"),
        (f"{path}:4 [id]: duplicate id '2' (first on line 3, a record with no id whose index "
         "stands in for one): give that record an id")]


def test_a_fifo_or_a_directory_as_dataset_is_named_as_such_not_not_found(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe.jsonl")
    assert "is not a regular file" in scan_problems(tmp_path / "pipe.jsonl")[0]
    (tmp_path / "dir.jsonl").mkdir()
    assert "is a directory" in scan_problems(tmp_path / "dir.jsonl")[0]


def test_a_message_in_an_unknown_role_or_with_non_text_content_is_named(tmp_path: Path) -> None:
    # issue case: {"role": "bogus", "content": 3} passed validation and failed every trial
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "a", "input": [{"role": "user", "content": "hi"},
                                                     {"role": "bogus", "content": "x"}]}) + "\n"
                    + json.dumps({"id": "b", "input": [{"role": "user", "content": 3}]}) + "\n"
                    + json.dumps({"id": "c", "input": [{"role": "user", "content": [
                        {"type": "text", "text": "parts are fine"}]}]}) + "\n")
    first, second = problems_of(path)
    assert (first.line, first.field) == (1, "input") and "input[1].role is 'bogus'" in first.message
    assert second.line == 2 and "input[0].content must be text" in second.message


def _cases_file(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"c{i}", "input": f"q{i}", "expected": str(i),
                                        "tags": ["odd" if i % 2 else "even"]}) + "\n"
                            for i in range(count)))
    return path


def test_a_small_files_scanned_cases_are_given_out_without_reading_it_again(
        tmp_path: Path) -> None:
    dataset = open_dataset(_cases_file(tmp_path / "cases.jsonl", 5))
    dataset.scan()
    (tmp_path / "cases.jsonl").write_text("")  # what is given out is what the scan read
    assert next(iter(dataset)).id == "c0"  # a first case only (checking templates) keeps them
    assert [case.id for case in dataset] == ["c0", "c1", "c2", "c3", "c4"]
    with pytest.raises(UserError, match="changed while it was read"):
        list(dataset)  # given out once; the file read again is not the one checked


@pytest.mark.parametrize("options", [{}, {"sample": 4, "seed": 3}, {"tags": ["odd"]}],
                         ids=["all", "a sample", "a tag"])
def test_kept_cases_are_the_cases_a_second_read_of_the_file_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]) -> None:
    path = _cases_file(tmp_path / "cases.jsonl", 12)
    kept = open_dataset(path, **options)
    kept.scan()
    monkeypatch.setattr("assay.datasets.dataset.KEPT_BYTES", 0)
    read_again = open_dataset(path, **options)
    read_again.scan()
    assert list(kept) == list(read_again) and len(list(open_dataset(path, **options))) > 1


def _rewrite(path: Path, text: str) -> None:
    """Write `text` to `path` and move its modification time on, as a later write would."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_a_file_rewritten_while_its_cases_are_read_stops_the_read_instead_of_mixing_two_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.datasets.dataset.KEPT_BYTES", 0)  # read again, as a large file
    path = _cases_file(tmp_path / "cases.jsonl", 6)
    dataset = open_dataset(path)
    dataset.scan()
    cases = iter(dataset)
    assert next(cases).id == "c0"
    _rewrite(path, path.read_text().replace('"q', '"changed q'))
    with pytest.raises(UserError, match=r"cases.jsonl changed while it was read: it is no "
                                        r"longer the file that was checked and hashed"):
        next(cases)


def test_a_file_cut_short_after_its_scan_is_refused_once_its_last_case_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.datasets.dataset.KEPT_BYTES", 0)
    path = _cases_file(tmp_path / "cases.jsonl", 6)
    dataset = open_dataset(path)
    dataset.scan()
    _rewrite(path, "".join(path.read_text().splitlines(keepends=True)[:2]))
    with pytest.raises(UserError, match="changed while it was read"):
        list(dataset)


def test_a_file_written_during_its_scan_is_refused_before_its_hash_is_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _cases_file(tmp_path / "cases.jsonl", 3)
    dataset = open_dataset(path)
    read = dataset._sha256

    def written_meanwhile() -> str:
        _rewrite(path, path.read_text() + json.dumps({"id": "new", "input": "q"}) + "\n")
        return read()

    monkeypatch.setattr(dataset, "_sha256", written_meanwhile)
    with pytest.raises(UserError, match="changed while it was read"):
        dataset.scan()


def test_a_yaml_alias_bomb_is_refused_at_its_line_instead_of_expanded(tmp_path: Path) -> None:
    """Regression: nine lines of nine aliases each ("billion laughs") stood for a billion
    strings, and `assay validate` walked them for as long and as much memory as it got."""
    levels = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 9)]
    path = tmp_path / "cases.yaml"
    path.write_text("\n".join(levels) + "\ncases:\n  - {id: a, input: q}\n"
                    "  - {id: b, input: q, expected: *l8}\n")
    assert scan_problems(path) == [(
        f"{path}:12: through YAML aliases (*name) the cases up to here hold more than "
        "1,000,000 values beyond those the file writes out (an alias bomb?): write the "
        "values out, or repeat them less")]


def test_yaml_aliases_that_share_a_value_between_cases_still_load(tmp_path: Path) -> None:
    rubric = "rubric: &rubric [clear, correct, " + ", ".join(f"t{n}" for n in range(20)) + "]"
    path = tmp_path / "cases.yaml"
    path.write_text(rubric + "\ncases:\n" + "".join(
        f"  - {{id: c{n}, input: q, expected_traits: *rubric}}\n" for n in range(2000)))
    cases = list(open_dataset(path))
    assert len(cases) == 2000 and cases[-1].expected_traits == cases[0].expected_traits


@pytest.mark.parametrize(("name", "text"), [
    ("cases.csv", "id;input;expected\nc1;hi, there;yes\nc2;bye;no\n"),
    ("cases.csv", "id\tinput\texpected\nc1\thi, there\tyes\nc2\tbye\tno\n"),
    ("cases.tsv", "id\tinput\texpected\nc1\thi, there\tyes\nc2\tbye\tno\n"),
])
def test_a_csv_file_separated_by_semicolons_or_tabs_loads_its_columns(
        tmp_path: Path, name: str, text: str) -> None:
    """Regression: `id;input;expected`, as Excel writes CSV where a comma is the decimal
    mark, was refused as 'cannot tell which key holds the input (keys: id;input;expected)'."""
    path = tmp_path / name
    path.write_text(text)
    first, second = open_dataset(path)
    assert (first.id, first.input, first.expected) == ("c1", "hi, there", "yes")
    assert (second.id, second.expected) == ("c2", "no")


def test_a_csv_whose_first_row_has_an_empty_input_names_that_cell(tmp_path: Path) -> None:
    """Regression: the empty cell was left out of the first row, which then read as a file
    with no input column: 'cannot tell which key holds the input (keys: expected, id)'."""
    path = tmp_path / "cases.csv"
    path.write_text("id,input,expected\nc1,,yes\nc2,hi,no\n")
    assert scan_problems(path) == [f"{path}:2 [input]: the 'input' cell is empty"]


def test_keys_no_one_can_read_are_shown_when_none_holds_the_input(tmp_path: Path) -> None:
    """A CSV header with an empty column name was listed as '(keys: , expected, question)'."""
    path = tmp_path / "cases.csv"
    path.write_text("question,,expected\u200b\nq1,x,a\n")
    [problem] = scan_problems(path)
    assert '(keys: "", expected\\u200b, question)' in problem


def test_a_yaml_id_that_reads_as_a_number_or_a_date_keeps_the_text_written(
        tmp_path: Path) -> None:
    """Regression: `id: 007` ran as case '7', `1.10` as '1.1' (a duplicate of `1.1`),
    `0x1F` as '31': the report named cases the file does not hold."""
    path = tmp_path / "cases.yaml"
    path.write_text("- {id: 007, input: q}\n- {id: 1.10, input: q}\n- {id: 1.1, input: q}\n"
                    "- {id: 0x1F, input: q}\n- {id: 2024-01-01T10:00:00, input: q}\n"
                    "- {id: 12, input: q, expected: 007}\n")
    cases = list(open_dataset(path))
    assert [case.id for case in cases] == ["007", "1.10", "1.1", "0x1F", "2024-01-01T10:00:00",
                                           "12"]
    assert cases[-1].expected == 7  # only the id is read as text
    mapped = tmp_path / "mapped.yaml"
    mapped.write_text("- {key: 007, question: q, answer: a}\n")
    (case,) = open_dataset(mapped, fields={"id": "key", "input": "question", "expected": "answer"})
    assert case.id == "007"


def test_a_json_id_written_as_a_number_keeps_the_text_written(tmp_path: Path) -> None:
    """Regression: `"id": 1e2` ran as case '100.0', `1.50` as '1.5' and `-0` as '0' (a
    duplicate of `0`), in a JSON array and in JSONL alike; a YAML id already kept its text."""
    records = ('{"id": 1e2, "input": "q", "expected": 1.50}', '{"id": 1.50, "input": "q"}',
               '{"id": -0, "input": "q"}', '{"id": 0, "input": "q"}',
               '{"id": 12, "input": "q"}')
    lines = tmp_path / "cases.jsonl"
    lines.write_text("".join(f" {record}\n" for record in records))
    array = tmp_path / "cases.json"
    array.write_text("{\"cases\": [\n" + ",\n".join(records) + "\n]}\n")
    for path in (lines, array):
        cases = list(open_dataset(path))
        assert [case.id for case in cases] == ["1e2", "1.50", "-0", "0", "12"], path
        assert cases[0].expected == 1.5  # only the id is read as text


def test_an_id_mapped_to_a_path_keeps_the_text_written(tmp_path: Path) -> None:
    """Regression: with `fields: {id: meta.key}`, `key: 007` in YAML ran as case '7' and
    `"key": 1e2` in JSONL as '100.0', though the same ids at `id` kept their text."""
    yaml_file = tmp_path / "cases.yaml"
    yaml_file.write_text("- {meta: {key: 007, keys: [0x1F]}, q: a}\n")
    lines = tmp_path / "cases.jsonl"
    lines.write_text('{"meta": {"key": 1e2, "keys": [1.50]}, "q": "a"}\n')
    for path, written in ((yaml_file, ["007", "0x1F"]), (lines, ["1e2", "1.50"])):
        ids = [case.id for key in ("meta.key", "meta.keys[0]")
               for case in open_dataset(path, fields={"id": key, "input": "q"})]
        assert ids == written, path


def test_a_field_path_may_index_lists_with_brackets(tmp_path: Path) -> None:
    """Regression: `fields: {expected: 'answers[0].text'}`, as jq and JavaScript write it,
    found nothing in any record: 'missing key' on every line of a file that holds it."""
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({"id": "a", "q": {"text": "hi"},
                                "answers": [{"text": "A"}, {"text": "B"}]}) + "\n")
    (case,) = open_dataset(path, fields={"input": "q.text", "expected": "answers[1].text"})
    assert (case.input, case.expected) == ("hi", "B")
    assert "answers" not in case.metadata and "q" not in case.metadata


def test_a_field_path_that_finds_nothing_says_at_which_step(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in [
        {"id": "a", "q": {"text": "hi"}, "answers": []},
        {"id": "b", "q": "hi", "answers": [{"label": "A"}]},
        {"id": "c", "answers": None}]))
    assert scan_problems(path, {"input": "q.text", "expected": "answers[0].text"}) == [
        (f"{path}:1 [answers[0].text]: nothing at 'answers[0].text' (the case's expected): "
         "'answers' has 0 items, so no item 0"),
        (f"{path}:2 [q.text]: nothing at 'q.text' (the case's input): 'q' is text, not an "
         "object or a list"),
        (f"{path}:2 [answers[0].text]: nothing at 'answers[0].text' (the case's expected): "
         "'answers.0' has no key 'text'"),
        f"{path}:3 [q.text]: nothing at 'q.text' (the case's input): no key 'q'",
        (f"{path}:3 [answers[0].text]: nothing at 'answers[0].text' (the case's expected): "
         "'answers' is null")]


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".yaml", ".csv", ".txt"])
def test_a_utf16_dataset_is_one_problem_saying_to_save_it_as_utf8(tmp_path: Path,
                                                                  suffix: str) -> None:
    """Regression: a JSONL file saved as "Unicode" text read 'not UTF-8 text (byte 0xff at
    column 1)' and then 'invalid JSON: Expecting value' for the NUL its last line holds."""
    path = tmp_path / f"cases{suffix}"
    path.write_bytes('{"id": "a", "input": "q"}\n'.encode("utf-16"))
    [problem] = scan_problems(path)
    assert problem.startswith(f"{path}:1: ")
    assert "UTF-16 text (as Windows PowerShell writes it); save it as UTF-8" in problem


def test_a_csv_written_with_a_space_after_each_comma_loads_its_columns(tmp_path: Path) -> None:
    """Regression: `id, input, expected` was refused as 'cannot tell which key holds the
    input (keys:  expected,  input, id)', and `a, "b, c"` split the quoted cell in two."""
    path = tmp_path / "cases.csv"
    path.write_text('id, input, expected\nc1, "hi, there", yes\nc2, bye,\n')
    first, second = open_dataset(path)
    assert (first.id, first.input, first.expected) == ("c1", "hi, there", "yes")
    assert (second.input, second.expected) == ("bye", None)
    plain = tmp_path / "plain.csv"  # a header without the spaces: cells are kept as written
    plain.write_text("id,input\nc1, hi\n")
    (case,) = open_dataset(plain)
    assert case.input == " hi"


def test_ids_that_differ_only_by_spaces_at_their_ends_are_an_error_at_the_later_line(
        tmp_path: Path) -> None:
    """Regression: 'a' and 'a ' ran as two cases, which every report listed as 'a' twice."""
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in [
        {"id": "a", "input": "q"}, {"id": "a ", "input": "q"}, {"id": " b", "input": "q"},
        {"id": "b", "input": "q"}, {"id": "A", "input": "q"}]))
    alike = ("only by spaces at its ends, so the two cases would read alike in every report: "
             "remove the spaces, or give each an id of its own")
    assert scan_problems(path) == [f"{path}:2 [id]: id 'a ' differs from 'a' on line 1 {alike}",
                                   f"{path}:4 [id]: id 'b' differs from ' b' on line 3 {alike}"]


def test_a_json_dataset_that_is_no_array_says_what_the_file_holds(tmp_path: Path) -> None:
    """Regression: a file of one case, or of cases under 'items', read only 'a JSON dataset
    is an array of objects (or {"cases": [...]})', with no word of what it held."""
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"name": "set", "items": [{"id": "a", "input": "q"}]}))
    assert scan_problems(path) == [(
        f"{path}:1: a JSON dataset is an array of cases, or an object holding one under "
        "'cases', 'questions' or 'data'; this file holds an object with the keys 'name', "
        "'items'")]


def test_an_id_mapped_to_a_key_a_record_lacks_is_an_error_not_its_index(tmp_path: Path) -> None:
    """Regression: `fields: {id: key}` over records with no `key` (a typo for `qid`) ran
    every case under its index, '0', '1', ..., with no word: the report named cases the
    file does not hold."""
    path = tmp_path / "cases.jsonl"
    path.write_text('{"qid": "q-1", "prompt": "hi"}\n{"key": "q-2", "prompt": "yo"}\n')
    assert scan_problems(path, {"id": "key", "input": "prompt"}) == [
        f"{path}:1 [key]: missing key 'key' (the case's id)"]


def test_a_yaml_case_giving_a_key_twice_is_an_error_at_its_line(tmp_path: Path) -> None:
    """Regression: `expected: Paris` then `expected: Lyon` ran the case against 'Lyon'."""
    path = tmp_path / "cases.yaml"
    path.write_text("- id: a\n  input: q\n  expected: Paris\n  expected: Lyon\n")
    assert scan_problems(path) == [
        f"{path}:4: invalid YAML: key 'expected' appears twice (first on line 3)"]


def test_a_yaml_case_written_as_an_alias_is_named_by_the_aliass_line(tmp_path: Path) -> None:
    """Regression: `- *base` on line 5, a copy of the case on line 3, was refused as
    'duplicate id 'a' (first on line 3)' at line 3: the anchor's line, not its own."""
    path = tmp_path / "cases.yaml"
    path.write_text("shared: &base {id: a, input: q}\ncases:\n  - *base\n"
                    "  - {id: b, input: q}\n  - *base\n")
    assert scan_problems(path) == [f"{path}:5 [id]: duplicate id 'a' (first on line 3)"]


def test_a_required_key_that_is_null_is_called_null_not_missing(tmp_path: Path) -> None:
    """Regression: `"input": null` read "missing key 'input'" of a record that has it."""
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": null}\n')
    assert scan_problems(path) == [f"{path}:1 [input]: 'input' is null"]
    path.write_text('{"id": "b", "question": "q", "ground_truth": null}\n')
    assert scan_problems(path) == [
        f"{path}:1 [ground_truth]: 'ground_truth' is null (the case's expected)"]


@pytest.mark.parametrize("name", ["cases.jsonl", "cases.txt"])
def test_a_json_array_read_as_jsonl_is_one_problem_saying_to_read_it_as_json(
        tmp_path: Path, name: str) -> None:
    """Regression: an indented JSON array named `.jsonl` was refused with an 'invalid JSON'
    for each of its lines (251 of them for 50 cases), and one on a single line with 'each
    record must be an object', neither saying the file is JSON, not JSONL."""
    path = tmp_path / name
    cases = [{"id": f"c{n}", "input": "q"} for n in range(50)]
    for text, line in ((json.dumps(cases, indent=2), 1), ("\n" + json.dumps(cases), 2)):
        path.write_text(text)
        assert scan_problems(path) == [(
            f"{path}:{line}: this is a JSON array (it opens with '['), read as JSONL, which "
            "holds one object per line: name the file .json, or set its format: json")]
        assert len(Dataset(path, format="json")) == 50


def test_metadata_tags_and_difficulty_of_the_wrong_kind_are_errors_not_dropped(
        tmp_path: Path) -> None:
    """Regression: `"metadata": "note"` (or a list) was dropped unsaid, a null tag became
    the tag 'None', and a difficulty that is an object became its Python text."""
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in [
        {"id": "a", "input": "q", "metadata": "note"},
        {"id": "b", "input": "q", "tags": ["x", None]},
        {"id": "c", "input": "q", "tags": 3},
        {"id": "d", "input": "q", "difficulty": {"level": 2}},
        {"id": "e", "input": "q", "metadata": {"k": 1}, "tags": ["x", 2], "difficulty": 3}]))
    assert scan_problems(path) == [
        f"{path}:1 [metadata]: metadata must be an object of keys and values, not text",
        f"{path}:2 [tags]: tags must be a list of text: item 1 is null",
        f"{path}:3 [tags]: tags must be a list of text: not a number",
        f"{path}:4 [difficulty]: difficulty must be text or a number, not an object"]


def test_a_csv_with_blank_lines_before_its_header_reads_the_header_after_them(
        tmp_path: Path) -> None:
    """Regression: the blank first line was read as a header of no columns, and every row
    refused as 'this row has 3 cells but the header has 0'."""
    path = tmp_path / "cases.csv"
    path.write_text("\n\nid,input,expected\nc1,hi,yes\nc2,,no\n")
    assert scan_problems(path) == [f"{path}:5 [input]: the 'input' cell is empty"]
    path.write_text("\r\nid,input,expected\r\nc1,hi,yes\r\n")
    (case,) = open_dataset(path)
    assert (case.id, case.input, case.expected) == ("c1", "hi", "yes")


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_a_yaml_or_json_file_of_any_size_is_parsed_once_for_its_scan_and_its_cases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """A YAML file over 16 MB was parsed again for its cases after its scan, to save memory
    that a second parse of the whole file takes anyway: some 20 s more for 200,000 cases."""
    monkeypatch.setattr("assay.datasets.dataset.KEPT_BYTES", 0)  # as a file over it
    records = [{"id": f"c{i}", "input": f"q{i}", "expected": "a"} for i in range(5)]
    path = tmp_path / f"cases.{suffix}"
    path.write_text(json.dumps(records))  # JSON is YAML too
    dataset = open_dataset(path)
    dataset.scan()
    path.unlink()  # a second read would fail
    assert [case.id for case in dataset] == [f"c{i}" for i in range(5)]
