"""Dataset files' records: JSONL lines read fast (orjson) and exactly as `json` reads them,
odd numbers included; a JSON file that holds no list of cases says what it holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.datasets import files, written_ids
from assay.datasets.files import json_records, jsonl_records, yaml_records
from assay.errors import ProblemList

LINES = [
    '{"id": "a", "input": "q", "n": 123456789012345678901234567890}',  # past 64 bits
    '{"id": "b", "input": "q", "u": 18446744073709551615, "i": -9223372036854775808}',
    '{"id": "c", "input": "q", "x": 1.5e-7, "inf": 1e400, "nan": NaN}',
    '{"id": "d", "input": "caf\\u00e9 \\u2603", "dup": 1, "dup": 2}',
]


def test_every_line_reads_as_json_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    problems = ProblemList()
    records = [record for _line, record in jsonl_records(path, problems)]
    assert not problems
    expected = [json.loads(line) for line in LINES]
    assert repr(records) == repr(expected)  # 123...890 stays an int, not a float
    assert type(records[0]["n"]) is int


def test_a_broken_line_is_named_as_json_names_it(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b'{"id": "a", "input": "q"}\n{"id": "b", "input": \n{"id": "\xff"}\n')
    problems = ProblemList()
    assert [line for line, _record in jsonl_records(path, problems)] == [1]
    assert [(p.line, p.message) for p in problems.problems] == [
        (2, "invalid JSON: Expecting value (column 1)"),
        (3, "not UTF-8 text (byte 0xff at column 9)")]


def test_a_json_file_that_holds_a_number_or_a_boolean_says_which(tmp_path: Path) -> None:
    """Both read 'this file holds a number or a boolean'."""
    problems = ProblemList()
    for name, text in (("number.json", "3"), ("flag.json", "true")):
        (tmp_path / name).write_text(text)
        assert list(json_records(tmp_path / name, problems)) == []
    assert [problem.message.rsplit("; ", 1)[1] for problem in problems.problems] == [
        "this file holds a number", "this file holds true or false"]


class _ScanCountingText(str):
    """Text that adds up how many characters its newline counts read."""

    scanned = 0

    def count(self, sub: str, start: object = None, end: object = None) -> int:  # type: ignore[override]
        begin = 0 if start is None else int(start)  # type: ignore[call-overload]
        stop = len(self) if end is None else int(end)  # type: ignore[call-overload]
        _ScanCountingText.scanned += max(0, stop - begin)
        return super().count(sub, begin, stop)


def test_a_json_array_is_walked_once_to_name_each_items_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting each item's line from the top of the file read 200,000 cases in ~5 minutes."""
    items = [{"id": f"c{i}", "input": "q"} for i in range(300)]
    text = "[\n" + ",\n".join(json.dumps(item) for item in items) + "\n]\n"
    path = tmp_path / "cases.json"
    path.write_text(text)
    monkeypatch.setattr(files, "_read_text",
                        lambda path, problems, encoding="utf-8-sig": _ScanCountingText(text))
    _ScanCountingText.scanned = 0
    records = list(json_records(path, ProblemList()))
    assert [line for line, _record in records] == list(range(2, 302))
    assert _ScanCountingText.scanned <= len(text)


class _CountingDecoder(json.JSONDecoder):
    """`written_ids.AS_WRITTEN`, counting the values it decodes."""

    decoded = 0

    def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
        _CountingDecoder.decoded += 1
        return super().raw_decode(s, idx)


def test_a_json_arrays_items_are_each_read_once_as_written_for_their_ids(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each item was decoded once more to find where it ends, and again when its id was a
    float or a zero; its id's text now comes from the one reading as written."""
    counting = _CountingDecoder(parse_float=str, parse_int=str, parse_constant=str)
    monkeypatch.setattr(files, "AS_WRITTEN", counting)
    monkeypatch.setattr(written_ids, "AS_WRITTEN", counting)
    path = tmp_path / "cases.json"
    path.write_text('[{"id": 1e2, "input": "q"}, {"id": -0, "input": "q"},\n'
                    ' {"meta": {"key": 1.50}, "input": "q"}, {"id": "c", "input": "q"}]')
    _CountingDecoder.decoded = 0
    records = list(json_records(path, ProblemList(), id_key="id"))
    assert [record.get("id") for _line, record in records] == ["1e2", "-0", None, "c"]
    assert _CountingDecoder.decoded == 4
    _CountingDecoder.decoded = 0
    records = list(json_records(path, ProblemList(), id_key="meta.key"))
    assert records[2][1]["meta"]["key"] == "1.50"
    assert _CountingDecoder.decoded == 4


@pytest.mark.parametrize(("nested", "line"), [
    ("[" * 100_000 + "]" * 100_000, 3),  # its nesting, deepest on the case's line
    ("[" * 100_000, 3),  # never closed
    ('"' + "[" * 5000 + '", "n": ' + "1" * 5000, 3),  # an integer too long, after a string
])
def test_a_json_dataset_beyond_the_parsers_limits_is_refused_at_its_line(
        tmp_path: Path, nested: str, line: int) -> None:
    """Regression: 100,000 `[` in a JSON array's case was refused as 'cases.json: invalid
    JSON: nested too deeply', naming no line, where a JSONL or YAML file names it."""
    path = tmp_path / "cases.json"
    path.write_text('[\n{"id": "a", "input": "q"},\n{"id": "b", "input": ' + nested + "}\n]\n")
    problems = ProblemList()
    assert list(json_records(path, problems)) == []
    [problem] = problems.problems
    assert problem.line == line and problem.message.startswith("invalid JSON: "), problem


def test_a_nul_in_a_yaml_dataset_is_named_with_its_line(tmp_path: Path) -> None:
    """Regression: the problem read 'invalid YAML: unacceptable character #x0000: special
    characters are not allowed in "<unicode string>", position 38', with no line."""
    path = tmp_path / "cases.yaml"
    path.write_text("- id: a\n  input: q\n- id: b\n  input: q\x00\n")
    problems = ProblemList()
    assert list(yaml_records(path, problems)) == []
    (problem,) = problems.problems
    assert (problem.file, problem.line) == (str(path), 4)
    assert problem.message.startswith("invalid YAML: a NUL character (U+0000)")
