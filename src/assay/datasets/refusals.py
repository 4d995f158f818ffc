"""What a dataset's refusals say: an input that is no input, a duplicate id, a file read
as JSONL that is not, a file that changed while it was read. Each names what is wrong
and what to do about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.errors import ProblemList, UserError

ROLES = ("system", "developer", "user", "assistant", "tool")
"""The chat roles the providers accept: a message in another role would fail every trial."""


def input_problem(value: Any) -> str | None:
    """Why `value` is not an input (text, or a list of chat messages), or None."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return None
    if not (isinstance(value, list) and value and all(
            isinstance(m, dict) and "role" in m and "content" in m for m in value)):
        return "input must be text or a list of {role, content} messages"
    for index, message in enumerate(value):
        if message["role"] not in ROLES:
            return (f"input[{index}].role is {message['role']!r}; a message's role is one of "
                    f"{', '.join(ROLES)}")
        if not isinstance(message["content"], (str, list)) and message["content"] is not None:
            return (f"input[{index}].content must be text or a list of content parts, "
                    f"not {type(message['content']).__name__}")
    return None


def duplicate_id(case_id: str, first_line: int, first_given: bool, given: bool) -> str:
    """A duplicate id, saying which of the two records has no id and took its index."""
    if not given:
        return (f"duplicate id '{case_id}' (first on line {first_line}): this record has no "
                f"id, so its index, {case_id}, stands in for one; give it an id")
    if not first_given:
        return (f"duplicate id '{case_id}' (first on line {first_line}, a record with no id "
                "whose index stands in for one): give that record an id")
    return f"duplicate id '{case_id}' (first on line {first_line})"


def ids_alike(case_id: str, other: str, other_line: int, given: bool = True) -> str:
    """Two ids that differ only by spaces at their ends: two cases that every report shows
    under what reads as one id."""
    index = "" if given else " (this record has no id, so its index stands in for one)"
    return (f"id {case_id!r}{index} differs from {other!r} on line {other_line} only by "
            "spaces at its ends, so the two cases would read alike in every report: remove "
            "the spaces, or give each an id of its own")


JSON_ARRAY_AS_JSONL = ("this is a JSON array (it opens with '['), read as JSONL, which holds "
                       "one object per line: name the file .json, or set its format: json")
"""A JSON array read as JSONL, said once instead of once per line of the array."""


def not_jsonl(problems: ProblemList, path: Path) -> ProblemList:
    """A file read as JSONL for want of a known suffix, none of whose lines is JSON: one
    problem that says how it was read, not one per line (a CSV file named `.txt`)."""
    located = [p for p in problems.problems if p.line is not None]
    if not located or located[0].message == JSON_ARRAY_AS_JSONL:
        return problems
    suffix = f"ends in '{path.suffix}'" if path.suffix else "has no suffix"
    first = located[0]
    one = ProblemList(notes=problems.notes)
    one.add(f"no line of it is JSON ({first.message}): it was read as JSONL, since its name "
            f"{suffix}; name its format with dataset.format: jsonl, json, yaml, csv or parquet",
            file=str(path), line=first.line)
    return one


def changed_while_read(path: Path) -> UserError:
    """A file that is no longer the one the scan checked and hashed: its cases would run
    under the hash of another file."""
    return UserError(f"dataset {path} changed while it was read: it is no longer the file "
                     "that was checked and hashed (its size or modification time differ), so "
                     "its cases cannot be trusted; run again once nothing writes to it")
