"""Tolerant reading of a judge's reply: JSON, a number, or a label.

Judges asked for JSON sometimes wrap it in a code fence, add a sentence
before it, or answer "Score: 8/10". These functions find the judgement in
those shapes and return None when the reply is ambiguous or absent: a
guess is never made, because a guessed judgement would be a lie in the
results. Callers turn None into a retry and, in the end, a judge error.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from assay.finite_number import finite_number

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*+\s*+(.*?)```", re.DOTALL)
"""A fenced block, the whitespace after its opening taken whole: a fence never closed
before 100,000 spaces was tried at every split of them (minutes a reply)."""
_NUMBER = r"(?<![\d.])[-+]?\d++(?:\.\d++)?"
"""A number that starts where a run of digits starts, its digits taken whole: tried from
inside a run of 5,000 digits, a search backtracked over every split of the run (seconds)."""
_OUT_OF = re.compile(rf"({_NUMBER})\s*(?:/|out\s+of|of)\s*({_NUMBER})", re.IGNORECASE)
_LABELLED = re.compile(
    r"\b(?:score|rating|grade|verdict)\b[\s*_:=\-\u2013\u2014]*(?:(?:is|of)\b[\s*_:]*)?"
    r"(\d+(?:\.\d+)?)(?:\s*(?:/|out\s+of)\s*(\d+(?:\.\d+)?))?", re.IGNORECASE)
"""`Score: 8`, with the scale it names when it names one (`Rating: 2 out of 5`)."""
_DECORATION = " \t\r\n*_`'\".:;,!()[]"

SCORE_KEYS = ("score", "rating", "grade", "value", "verdict")
REASON_KEYS = ("reason", "reasoning", "explanation", "rationale", "justification")


def extract_json(text: str) -> Any | None:
    """The JSON value in `text`: the whole reply, a fenced block, or the first object in prose."""
    stripped = text.strip()
    candidates = [stripped] + [block.strip() for block in _FENCE.findall(text)]
    for candidate in candidates:
        try:
            return json.loads(candidate, object_pairs_hook=_one_value_a_key)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            continue
    return _first_embedded_object(text)


def _one_value_a_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose every key has one value: `{"score": 8, "score": 3}` holds no one
    judgement, where `json` kept the last (3) unsaid."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data and data[key] != value:
            raise ValueError(f"the key {key!r} is given twice, with different values")
        data[key] = value
    return data


def _first_embedded_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder(object_pairs_hook=_one_value_a_key)
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def extract_object(text: str) -> dict[str, Any] | None:
    """The JSON object in `text`, or None when there is none."""
    value = extract_json(text)
    return value if isinstance(value, dict) else None


def pick(data: dict[str, Any], keys: Iterable[str]) -> Any | None:
    """The first of `keys` present in `data`, matched case-insensitively; None when it is
    absent, or given in two cases with two values (`{"Score": 8, "score": 3}`)."""
    for key in keys:
        found = [value for name, value in data.items() if str(name).lower() == key.lower()]
        if found:
            return found[0] if all(value == found[0] for value in found) else None
    return None


def as_number(value: Any, *, high: float | None = None) -> float | None:
    """A JSON value read as a number: 8, 8.5, "8", "8/10"; never a bool. With `high`, a
    string naming another scale ("4/5" for a 0-10 score) is no number of this one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        number = _number_from_prose(value, high=high)
        return number if number is not None and math.isfinite(number) else None  # 1e999
    return finite_number(value)  # NaN, 10**400: none


def extract_number(text: str, *, high: float | None = None,
                   keys: Iterable[str] = SCORE_KEYS) -> float | None:
    """The one judgement number in `text`, or None when there is none or several disagree.

    Accepted shapes, in order: JSON (`{"score": 8}`, a bare `8`), "8/10" or
    "8 out of 10" (the denominator must be `high` when given), "Score: 8",
    a reply that is only a number (`**8**`), and reasoning whose last line
    is only a number. A score given on another scale than `high` ("Rating: 2
    out of 5" for a 0-10 judge) is none: read as 2 of 10, it would be a lie.
    """
    data = extract_json(text)
    if isinstance(data, dict):
        found = pick(data, keys)
        return as_number(found, high=high) if found is not None else None
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return as_number(data)
    return as_number(_number_from_prose(text, high=high))


def _number_from_prose(text: str, *, high: float | None) -> float | None:
    out_of = {float(num) for num, den in _OUT_OF.findall(text)
              if high is None or float(den) == float(high)}
    if out_of:
        return out_of.pop() if len(out_of) == 1 else None
    labelled_found = _LABELLED.findall(text)
    if high is not None and any(den and float(den) != float(high) for _, den in labelled_found):
        return None  # "Score: 4/5" on a 0-10 scale is not a 4 of 10
    labelled = {float(num) for num, _ in labelled_found}
    if labelled:
        return labelled.pop() if len(labelled) == 1 else None
    whole = _bare_number(text)
    if whole is not None:
        return whole
    lines = [line for line in text.splitlines() if line.strip()]
    return _bare_number(lines[-1]) if len(lines) > 1 else None


def _bare_number(text: str) -> float | None:
    core = text.strip(_DECORATION)
    return float(core) if re.fullmatch(_NUMBER, core) else None


def extract_label(text: str, labels: Iterable[str],
                  keys: Iterable[str] = ("label", "verdict", "answer", "grade", "result")
                  ) -> str | None:
    """The one label of `labels` that `text` names, or None when none or several are named.

    Matching ignores case, markdown and surrounding punctuation. A label that
    is part of a longer named label ("correct" inside "partially correct")
    does not count on its own, and prose that negates or hedges the label it
    names ("not correct", "partially correct" where that is no label, "does
    not pass") names none: read as the label, it would be the opposite verdict.
    """
    options = list(labels)
    data = extract_object(text)
    if data is not None:
        found = pick(data, keys)
        return _match_exact(str(found), options) if found is not None else None
    exact = _match_exact(text, options)
    if exact is not None:
        return exact
    return _match_in_prose(text, options)


def _normal(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.strip(_DECORATION)).lower()


def _match_exact(text: str, options: list[str]) -> str | None:
    wanted = _normal(text)
    for option in options:
        if _normal(option) == wanted:
            return option
    return None


_QUALIFIERS = frozenset({"not", "never", "hardly", "barely", "partially", "partly", "mostly",
                         "largely", "somewhat", "almost", "nearly"})
"""Words that, just before a label, say the reply means something else than the label."""


def _match_in_prose(text: str, options: list[str]) -> str | None:
    normal_text = re.sub(r"[\s_-]+", " ", text).lower()
    spans: list[tuple[int, int, str]] = []
    for option in options:
        pattern = r"(?<![\w])" + re.escape(_normal(option)) + r"(?![\w])"
        spans += [(m.start(), m.end(), option) for m in re.finditer(pattern, normal_text)]
    kept = _outermost(spans)
    if any(_qualified(normal_text, start) for start, _ in kept):
        return None  # "not correct", "partially correct": not the label it names
    named = {option for _, option in kept}
    return named.pop() if len(named) == 1 else None


def _outermost(spans: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    """(start, option) of each span not inside a longer one ("correct" inside "partially
    correct"), in one sweep: a reply naming a label 20,000 times ("a", for a pairwise
    judge's A) was compared span by span with every other, 20 s a reply."""
    kept = []
    widest: tuple[int, int] | None = None  # (start, end) of the span reaching furthest yet
    for start, end, option in sorted(spans, key=lambda span: (span[0], -span[1])):
        if widest is not None and widest[1] >= end and widest[1] - widest[0] > end - start:
            continue
        kept.append((start, option))
        if widest is None or end > widest[1]:
            widest = (start, end)
    return kept


_WORD_LOOKED_AT = 64
"""How many characters before a label the word that may qualify it is read from: a
qualifier is short, and a search back to the start of a reply without spaces, from each
of a million labels, took minutes."""


def _qualified(text: str, start: int) -> bool:
    """Whether the word before `start` negates or hedges the label there ("not", "isn't",
    "partially"). `text` has its whitespace made single spaces."""
    end = start - 1 if start and text[start - 1] == " " else start
    begin = max(0, end - _WORD_LOOKED_AT)
    word = text[text.rfind(" ", begin, end) + 1 or begin:end]
    word = word.strip(_DECORATION).replace("\u2019", "'")
    return word in _QUALIFIERS or word.endswith("n't")


def extract_reason(data: dict[str, Any] | None, text: str, *, limit: int = 500) -> str:
    """The judge's stated reason: a reason field of the JSON, else the reply itself, trimmed."""
    if data is not None:
        found = pick(data, REASON_KEYS)
        if found is not None:
            return str(found).strip()
    reply = text.strip()
    if _bare_number(reply) is not None:
        return ""  # a number-only reply states no reason
    return reply if len(reply) <= limit else reply[: limit - 1] + "…"
