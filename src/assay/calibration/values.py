"""Reading a judgement written by a person or another tool: pass/fail, a score, a label, a preference.

Files say the same thing many ways: `true`, `"pass"`, `"yes"`, `1` for a
pass; `"A"`, `"model_a"`, `"[[A]]"`, `"Assistant A"` for a preference of
the first answer. This module reads them into one form per kind (True or
False, a number, a label, `a`/`b`/`tie`) and refuses what it cannot read,
naming it: a guessed judgement would be a lie in the calibration.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from assay.analysis.pairwise_verdicts import Choice
from assay.finite_number import finite_number

PASS_WORDS = frozenset({"pass", "passed", "yes", "y", "true", "correct", "good", "ok",
                        "acceptable", "accept", "accepted", "right", "1"})
FAIL_WORDS = frozenset({"fail", "failed", "no", "n", "false", "incorrect", "bad", "wrong",
                        "unacceptable", "reject", "rejected", "0"})
TIE_WORDS = frozenset({"tie", "tied", "draw", "equal", "same", "both", "neither", "none",
                       "c", "tie (bothbad)", "both_bad", "tie_bothbad", "bothbad"})
_FIRST = re.compile(r"(?:^|[\s_\-])(?:a|1|one|first)$")
_SECOND = re.compile(r"(?:^|[\s_\-])(?:b|2|two|second)$")
_DECORATION = " \t\r\n*_`'\".:;,!()[]{}"


class UnreadableValue(ValueError):
    """A value that does not say what its kind needs (the message says what it is)."""


def as_pass(value: Any) -> bool:
    """True for a pass, False for a fail: booleans, 0/1, and words like pass, yes, correct."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    word = str(value).strip(_DECORATION).lower()
    if word in PASS_WORDS:
        return True
    if word in FAIL_WORDS:
        return False
    raise UnreadableValue(f"{value!r} is not a pass or a fail")


def as_score(value: Any) -> float:
    """A number (or text that is one); never a boolean."""
    if isinstance(value, bool):
        raise UnreadableValue(f"{value!r} is true/false, not a score")
    if isinstance(value, (int, float)):
        number = finite_number(value)
        if number is None:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
            raise UnreadableValue(f"{shown} is not a finite score")
        return number
    try:
        number = float(str(value).strip(_DECORATION))
    except ValueError:
        raise UnreadableValue(f"{value!r} is not a score") from None
    if not math.isfinite(number):
        raise UnreadableValue(f"{value!r} is not a finite score")
    return number


def as_label(value: Any) -> str:
    """A label as text (a boolean reads as pass or fail)."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if isinstance(value, (dict, list)):
        raise UnreadableValue(f"{value!r} is not a label")
    return str(value).strip()


def as_choice(value: Any) -> Choice:
    """Which answer was preferred: `a`, `b` or `tie`."""
    text = str(value).strip(_DECORATION).lower()
    text = re.sub(r"[\s]+", " ", text)
    if text in TIE_WORDS or text.startswith("tie"):
        return "tie"
    if _FIRST.search(text) or text in ("a", "1"):
        return "a"
    if _SECOND.search(text) or text in ("b", "2"):
        return "b"
    raise UnreadableValue(f"{value!r} names neither answer nor a tie")


def swap(choice: Choice) -> Choice:
    """The same choice read from the other order: the first shown is now the other answer."""
    return "b" if choice == "a" else "a" if choice == "b" else "tie"


def guess_kind(values: Iterable[Any]) -> str:
    """The kind the values are written as: pass_fail, score, preference, or label."""
    seen = [v for v in values if v is not None]
    if not seen:
        return "label"
    if all(_reads(as_pass, v) and not _is_number_beyond_binary(v) for v in seen):
        return "pass_fail"
    if all(_reads(as_score, v) for v in seen):
        return "score"
    if all(_reads(as_choice, v) for v in seen) and any(
            str(v).strip(_DECORATION).lower() not in TIE_WORDS for v in seen):
        return "preference"
    return "label"


def _reads(reader: Any, value: Any) -> bool:
    try:
        reader(value)
    except UnreadableValue:
        return False
    return True


def _is_number_beyond_binary(value: Any) -> bool:
    """0 and 1 may be pass/fail; a file of 0s, 1s and 2s is a score."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value not in (0, 1)
