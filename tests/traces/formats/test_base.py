"""Reading a log's lines: each JSON object kept, each line that holds none counted with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.traces.formats.base import ParseStats, cost_amount, iter_objects, token_count


def _read(tmp_path: Path, data: bytes) -> tuple[list[tuple[int, dict[str, object]]], ParseStats]:
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    stats = ParseStats(str(path))
    return list(iter_objects(path, stats)), stats


def test_a_lone_surrogate_escape_is_read_not_dropped_as_malformed(tmp_path: Path) -> None:
    """Regression: a line holding `"\\ud83d"` (valid JSON, as Node's JSON.stringify writes
    text cut inside an emoji) was skipped as 'invalid JSON: no low surrogate in string',
    losing the answer on it; it is read, the half character made U+FFFD."""
    objects, stats = _read(tmp_path, b'{"role": "assistant", "content": "done \\ud83d"}\n')
    assert stats.malformed == []
    assert objects == [(1, {"role": "assistant", "content": "done \ufffd"})]


def test_a_line_with_bytes_not_utf8_names_the_byte_and_its_column(tmp_path: Path) -> None:
    """Regression: it read 'invalid JSON: str is not valid UTF-8: surrogates not allowed:
    line 1 column 1 (char 0)' on line 2, whatever the column of the byte."""
    objects, stats = _read(tmp_path, b'{"a": 1}\n{"b": "\xff"}\n')
    assert [n for n, _ in objects] == [1]
    assert stats.malformed == [(2, "not UTF-8 text (byte 0xff at column 8)")]


def test_a_last_line_cut_short_says_so_not_line_1_of_a_later_line(tmp_path: Path) -> None:
    """Regression: a log's last line, cut off while it was written, read 'line 3: invalid
    JSON: unexpected end of data: line 1 column 9 (char 8)', two line numbers at odds."""
    _, stats = _read(tmp_path, b'{"a": 1}\n{"b": 2}\n{"c": "ab')
    assert stats.malformed == [(3, "cut short (the log was cut off or is still being written)")]


def test_a_last_line_cut_short_inside_a_text_says_so_in_a_log_whose_copies_are_dropped(
        tmp_path: Path) -> None:
    """Regression: a Claude Code or pi log (whose readers drop a line repeating the one
    before) cut off inside a text read 'invalid JSON: Invalid control character at (column
    9)': the newline added to compare it with the line before was parsed with it."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"uuid": 1}\n{"uuid": 2}\n{"c": "ab')
    stats = ParseStats(str(path))
    assert [n for n, _ in iter_objects(path, stats, ("uuid",))] == [1, 2]
    assert stats.malformed == [(3, "cut short (the log was cut off or is still being written)")]


def test_invalid_json_names_the_column_of_the_line(tmp_path: Path) -> None:
    _, stats = _read(tmp_path, b'{"a": 1}\n{"b" 2}\n')
    assert stats.malformed == [(2, "invalid JSON: Expecting ':' delimiter (column 6)")]
    assert "line 1" not in stats.malformed[0][1]


@pytest.mark.parametrize("value", [-3, 1.5, "12", True, float("nan"),
                                   pytest.param(10**400, id="10**400"), 2**63])
def test_a_token_count_that_is_not_a_whole_number_is_left_out_and_said(value: object) -> None:
    """Regression: a usage field of -3 was added as it stood ('tokens per question -3'), and
    1.5, "12" or true were dropped without a word; each is now left out as a line problem.
    A count of 10**400 stopped `assay traces` with 'OverflowError: integer division result
    too large for a float' when the tokens per question were worked out."""
    stats = ParseStats("log.jsonl")
    assert token_count({"input": value}, ("input",), 7, stats, "message.usage") == 0
    assert stats.malformed_count == 1
    [(line, reason)] = stats.malformed
    assert line == 7 and reason.startswith("`message.usage.input` is ")
    assert reason.endswith("not a token count: left out")


def test_a_whole_token_count_is_read_whatever_its_json_number_form() -> None:
    stats = ParseStats("log.jsonl")
    usage = {"prompt_tokens": None, "input_tokens": 12.0, "output_tokens": 5}
    assert token_count(usage, ("prompt_tokens", "input_tokens"), 1, stats) == 12
    assert token_count(usage, ("output_tokens",), 1, stats) == 5
    assert stats.malformed_count == 0


@pytest.mark.parametrize("value", ["0.5", -1, False, float("inf"),
                                   pytest.param(10**400, id="10**400")])
def test_a_cost_that_is_not_dollars_is_left_out_and_said(value: object) -> None:
    """Regression: a cost of 10**400 (a JSON integer past a float's range) raised
    OverflowError out of the log's reading: `assay traces` stopped with an internal error."""
    stats = ParseStats("log.jsonl")
    assert cost_amount(value, "cost_usd", 3, stats) is None
    assert stats.malformed[0][0] == 3
    assert "`cost_usd` is " in stats.malformed[0][1]


def test_a_line_with_two_problems_counts_as_one_malformed_line() -> None:
    stats = ParseStats("log.jsonl")
    stats.bad_line(4, "`usage.input` is -1, not a token count: left out")
    stats.bad_line(4, "`cost_usd` is \"1\", not a dollar amount: left out")
    stats.bad_line(5, "cut short")
    assert stats.malformed_count == 2
    assert stats.malformed[0] == (4, ("`usage.input` is -1, not a token count: left out; "
                                      "`cost_usd` is \"1\", not a dollar amount: left out"))


def test_a_line_the_same_as_the_one_before_and_holding_its_time_is_skipped_as_a_copy(
        tmp_path: Path) -> None:
    """Only the line before is compared (memory stays flat); the last line, with no line
    end, is still a copy; a blank line between does not hide one; a line with no time or
    id of its own may well repeat, so it is kept."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"t": 1}\n{"t": 1}\n\n{"t": 1}\n{"k": 2}\n{"k": 2}\n{"t": 1}\n'
                     b'{"t": 1}')
    stats = ParseStats(str(path))
    assert [n for n, _ in iter_objects(path, stats, copy_keys=("t",))] == [1, 5, 6, 7]
    assert (stats.repeats, stats.first_repeat) == (3, 2)
    assert stats.repeated() == "3 lines the same as the line before (from line 2), skipped as copies"
    assert [n for n, _ in iter_objects(path, ParseStats(str(path)))] == [1, 2, 4, 5, 6, 7, 8]
