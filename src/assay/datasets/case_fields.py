"""One record read into a Case: each field taken from where the layout's mapping says,
checked, and what is wrong with it named (file, line, field) instead of raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.case import Case
from assay.datasets.field_paths import missing_field
from assay.datasets.record_paths import is_path, lookup, steps, walk
from assay.datasets.refusals import input_problem
from assay.errors import ProblemList
from assay.wording import kind_of

ALIASES: dict[str, tuple[str, ...]] = {"expected_traits": ("expected_response_traits",)}
"""Other names a Case field goes by in files we read as they are (the agent-suite cases)."""

MAX_ID_CHARS = 300
"""The longest case id the store keeps (its key column's width on PostgreSQL)."""


@dataclass(frozen=True)
class Fields:
    """A layout's mapping worked out once per pass over the file, not once per record:
    which keys are required, and where each Case field is read from."""

    required: tuple[tuple[str, str], ...]
    """(Case field, key) that every record must have."""
    reads: tuple[tuple[str, str, str, tuple[str, ...]], ...]
    """(Case field, key, the key's first step, other names of a field read as it is)."""

    @classmethod
    def of(cls, layout: str, mapping: dict[str, str]) -> Fields:
        required = ["input"]
        # `expected` is required where the layout reads it from a key of another name (a
        # mapping to `response`, Knowledge Packs' `ground_truth`); under its own name it
        # is optional, as in assay's own layout. So is an id mapped to a key of another
        # name: a record without it would run under its index, unsaid
        if layout in ("knowledge-packs", "k-eval") or (
                layout == "mapped" and mapping.get("expected", "expected") != "expected"):
            required.append("expected")
        if layout == "mapped" and mapping.get("id", "id") != "id":
            required.append("id")
        return cls(
            tuple((name, mapping.get(name, name)) for name in required),
            tuple((name, key, steps(key)[0], ALIASES.get(name, ()) if key == name else ())
                  for name, key in mapping.items()))


def to_case(record: Any, index: int, line: int, fields: Fields, mapping: dict[str, str],
            file: str, problems: ProblemList) -> tuple[Case, bool] | None:
    """The record's Case, and whether the record gave its id (else its index is its id);
    None when a problem was added instead."""
    if not isinstance(record, dict):
        problems.add("each record must be an object", file=file, line=line)
        return None
    ok = True
    for name, key in fields.required:
        if lookup(record, key) is None:
            problems.add(missing_field(record, key, name, whose="case"), file=file, line=line,
                         field=key)
            ok = False
    if not ok:
        return None
    values: dict[str, Any] = {}
    used = {"id"}
    for name, key, root, aliases in fields.reads:
        value = record.get(key)
        if value is None:
            if key not in record and is_path(key):  # a path: `human.verdict`
                value = walk(record, steps(key))
            elif aliases:
                key = next((alias for alias in aliases if alias in record), key)
                root = key
                value = record.get(key)
        if value is not None:
            values[name] = value
            used.add(root)
    raw_id = values.get("id", record.get("id"))
    if isinstance(raw_id, bool | list | dict):
        problems.add(f"id must be text or a number, not {kind_of(raw_id)}", file=file, line=line,
                     field=mapping.get("id", "id"))
        return None
    id_given = raw_id is not None and raw_id != ""
    case_id = str(raw_id) if id_given else str(index)
    if len(case_id) > MAX_ID_CHARS:
        problems.add(f"id is {len(case_id)} characters long; the store keeps ids of up to "
                     f"{MAX_ID_CHARS}", file=file, line=line, field=mapping.get("id", "id"))
        return None
    input_value = values["input"]
    wrong = input_problem(input_value)
    if wrong:
        problems.add(wrong, file=file, line=line, field=mapping.get("input", "input"))
        return None
    metadata = {k: v for k, v in record.items() if k not in used}
    given_metadata = values.get("metadata")
    if isinstance(given_metadata, dict):
        metadata.pop(mapping.get("metadata", "metadata"), None)
        metadata.update(given_metadata)
    elif given_metadata is not None:  # else it would be dropped unsaid
        problems.add(f"metadata must be an object of keys and values, not "
                     f"{kind_of(given_metadata)}", file=file, line=line,
                     field=mapping.get("metadata", "metadata"))
        return None
    tags = values.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.replace(";", ",").split(",") if t.strip()]
    wrong = (f"not {kind_of(tags)}" if not isinstance(tags, list) else next(
        (f"item {n} is {kind_of(tag)}" for n, tag in enumerate(tags)
         if kind_of(tag) not in ("text", "a number")), None))
    if wrong:
        problems.add(f"tags must be a list of text: {wrong}", file=file, line=line,
                     field=mapping.get("tags", "tags"))
        return None
    calls = values.get("expected_tool_calls")
    if calls is not None and not (isinstance(calls, list)
                                  and all(isinstance(c, dict) and "name" in c for c in calls)):
        problems.add("expected_tool_calls must be a list of {name, args}", file=file,
                     line=line, field=mapping.get("expected_tool_calls"))
        return None
    traits = values.get("expected_traits")
    if isinstance(traits, str):
        traits = [traits]
    if traits is not None and not isinstance(traits, list):
        problems.add(f"expected traits must be a list of strings (got {type(traits).__name__})",
                     file=file, line=line, field=mapping.get("expected_traits"))
        return None
    difficulty = values.get("difficulty")
    if isinstance(difficulty, bool | list | dict):
        problems.add(f"difficulty must be text or a number, not {kind_of(difficulty)}",
                     file=file, line=line, field=mapping.get("difficulty", "difficulty"))
        return None
    # by position (a case per record, twice per run): id, input, expected,
    # expected_tool_calls, expected_traits, reference, tags, difficulty, metadata
    return Case(case_id, input_value if isinstance(input_value, list) else str(input_value),
                values.get("expected"), calls, traits, values.get("reference"),
                [str(t) for t in tags], None if difficulty is None else str(difficulty),
                metadata), id_given

