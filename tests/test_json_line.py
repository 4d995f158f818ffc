"""One JSONL line read into a value, or a reason with the column."""

from __future__ import annotations

import pytest

from assay.json_line import BadJsonLine, read_json_line


def test_what_orjson_refuses_or_misreads_is_read_by_json() -> None:
    assert read_json_line(b'{"a": "x\\ud83d"}') == {"a": "x\ud83d"}
    assert read_json_line(b'{"n": 123456789012345678901234}') == {"n": 123456789012345678901234}


@pytest.mark.parametrize(("raw", "reason"), [
    (b'{"a": "\xff"}', "not UTF-8 text (byte 0xff at column 8)"),
    (b'{"a" 1}', "invalid JSON: Expecting ':' delimiter (column 6)"),
    (b"[" * 100_000, "invalid JSON: nested too deeply"),
])
def test_a_line_with_no_json_value_says_why_and_where(raw: bytes, reason: str) -> None:
    with pytest.raises(BadJsonLine) as refused:
        read_json_line(raw)
    assert str(refused.value) == reason
