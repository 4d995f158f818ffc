"""Labels for the fake judge: what a label's words mean, and true labels read from a file.

A judge that answers with a label (`correct` / `partially_correct` /
`incorrect`, `pass` / `fail`, `grounded` / `hallucinated`, `better` /
`same` / `worse`) must know which labels are good news. The fake reads it
from the words: `polarity` gives 1 for a passing word, 0.5 for a partial
one, 0 for a failing one (a negation such as "not" turns it around), and
None when the words say nothing. A label saying two answers are equal
(`same`, `equivalent`) passes: as good as the other one; `is_equal` tells
it apart from a label saying better.

True labels, for a judge with planted agreement, come as a mapping from a
key to a label, or from a file: a JSON object `{key: label}`, or records
(a JSON array, JSONL or CSV) each with a key field (`key`, `input`,
`question`, `output`, `answer`, `id` or `case_id`: the first present) and a
label field (`label`, `human`, `verdict`, `score`, `passed` or `preference`).
A key applies to every judge request whose message contains it, so the
question text (or a case id the prompt shows) is a good key.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

PASSING = frozenset({
    "pass", "passed", "passing", "correct", "right", "yes", "true", "good", "accurate",
    "acceptable", "accept", "accepted", "grounded", "supported", "faithful", "relevant", "helpful",
    "safe", "complete", "consistent", "valid", "success", "ok", "okay", "approve", "approved",
    "excellent", "great", "fine", "better", "improved"
})
FAILING = frozenset({
    "fail", "failed", "failing", "incorrect", "wrong", "no", "false", "bad", "inaccurate",
    "unacceptable", "reject", "rejected", "ungrounded", "unsupported", "unfaithful", "irrelevant",
    "unhelpful", "unsafe", "harmful", "incomplete", "inconsistent", "invalid", "hallucinated",
    "hallucination", "hallucinates", "contradiction", "contradicts", "contradictory", "poor",
    "toxic", "error", "errors", "failure", "worse", "worsened", "regressed", "regression"
})
PARTIAL = frozenset({
    "partial", "partially", "partly", "mixed", "somewhat", "borderline", "unsure", "unclear",
    "maybe", "neutral", "ambiguous"
})
EQUAL = frozenset({"same", "equal", "equally", "equivalent", "unchanged"})
"""Words of a comparison saying the two answers are as good as each other."""
NEGATIONS = frozenset({"not", "non", "never"})

KEY_FIELDS = ("key", "input", "question", "output", "answer", "id", "case_id")
LABEL_FIELDS = ("label", "human", "verdict", "score", "passed", "preference")


def polarity(label: Any) -> float | None:
    """1.0 when `label` means a pass, 0.0 a fail, 0.5 partly; None when it says neither."""
    if isinstance(label, bool):
        return 1.0 if label else 0.0
    words = re.findall(r"[a-z]+", str(label).lower())
    if any(word in PARTIAL for word in words):
        return 0.5
    negated = any(word in NEGATIONS for word in words)
    for word in words:
        if word in PASSING or word in EQUAL:
            return 0.0 if negated else 1.0
        if word in FAILING:
            return 1.0 if negated else 0.0
    return None


def is_equal(label: Any) -> bool:
    """Whether `label` says two answers are as good as each other (`same`, `equivalent`)."""
    words = re.findall(r"[a-z]+", str(label).lower())
    return any(word in EQUAL for word in words) and not any(w in NEGATIONS for w in words)


def load_labels(path: str | Path) -> dict[str, Any]:
    """True labels by key, from a JSON object, a JSON array, JSONL or CSV file."""
    return load_mapping(path, KEY_FIELDS, LABEL_FIELDS)


def load_mapping(path: str | Path, key_fields: tuple[str, ...],
                 value_fields: tuple[str, ...]) -> dict[str, Any]:
    """Values by key from a JSON object `{key: value}`, or from records (a JSON array,
    JSONL or CSV) each read through the first present of `key_fields` and `value_fields`."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        records: list[Any] = list(csv.DictReader(text.splitlines()))
    elif path.suffix.lower() == ".jsonl":
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        data = json.loads(text)
        if isinstance(data, dict):
            return {str(key): value for key, value in data.items()}
        records = data
    mapping: dict[str, Any] = {}
    for number, record in enumerate(records, start=1):
        key = _first(record, key_fields)
        value = _first(record, value_fields)
        if key is None or value is None:
            raise ValueError(f"{path}: record {number} needs a key field "
                             f"({', '.join(key_fields)}) and a value field "
                             f"({', '.join(value_fields)})")
        mapping[str(key)] = value
    return mapping


def _first(record: Any, names: tuple[str, ...]) -> Any:
    if not isinstance(record, dict):
        return None
    return next((record[name] for name in names if record.get(name) not in (None, "")), None)
