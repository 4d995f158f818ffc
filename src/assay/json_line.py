"""One line of a JSONL file read into a value, or a reason a person can act on.

orjson reads a line several times faster than `json`, but it refuses what
`json` reads (a lone surrogate escape such as `"\\ud83d"`, which JavaScript's
`JSON.stringify` writes for text cut inside an emoji; NaN), reads an integer
past 64 bits as a float, and words its refusals for a parser's author: every
line is its `line 1`, and any byte that is not UTF-8 is at its `column 1`.
What orjson cannot read goes through `json`, which reads it or says what is
wrong and at which column of the line.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import orjson

_LONG_NUMBER = re.compile(rb"[0-9]{20}")
"""Digits enough for an integer past 64 bits, which orjson would read as a float."""


class BadJsonLine(ValueError):
    """The line holds no JSON value; the message says why, with the column."""


def read_json_line(raw: bytes) -> Any:
    """The JSON value on one line of bytes; `BadJsonLine` saying why when there is none.

    The line goes through orjson unless it holds a run of 20 digits; what orjson
    refuses goes through `json`, which reads it or names what is wrong.
    """
    if not _LONG_NUMBER.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadJsonLine(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                          f"{exc.start + 1})") from None
    except json.JSONDecodeError as exc:
        raise BadJsonLine(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except (RecursionError, ValueError) as exc:  # nesting too deep, a huge integer
        raise BadJsonLine(f"invalid JSON: {beyond_limits(exc)}") from None


_STRING = r'"(?:[^"\\]+|\\.)*"'
_BRACKETS = re.compile(_STRING + r"|[\[\]{}]")


def where_beyond_limits(text: str, exc: BaseException) -> int | None:
    """The line of a JSON document at which `beyond_limits(exc)` is, where a parser that
    reads the document whole gives no line: where its nesting is deepest, or its first
    integer too long to read; None when it cannot be told."""
    if isinstance(exc, RecursionError):
        return _deepest_line(text)
    digits = sys.get_int_max_str_digits()
    if not digits:
        return None
    integers = re.compile(_STRING + rf"|(?<![.eE0-9])[0-9]{{{digits + 1},}}(?![.eE0-9])")
    found = next((m for m in integers.finditer(text) if m.group()[0] != '"'), None)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def _deepest_line(text: str) -> int | None:
    deepest = depth = 0
    position = None
    for token in _BRACKETS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > deepest:
                deepest, position = depth, token.start()
        elif mark in "]}":
            depth -= 1
    return None if position is None else text.count("\n", 0, position) + 1


def beyond_limits(exc: BaseException) -> str:
    """Why a parser gave up on a well-formed value: nested too deeply, a number too long."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc).split(";")[0]  # e.g. "Exceeds the limit (4300 digits) for integer ..."
