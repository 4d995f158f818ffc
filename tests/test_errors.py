"""A problem list reports every problem once, and counts past a few of one same kind."""

from __future__ import annotations

import pytest

from assay.errors import ProblemList, UserError

SHOWN = 10


def test_a_problem_of_every_record_is_listed_a_few_times_then_counted() -> None:
    """Regression: a typo in dataset.fields printed 'missing key' once per line, 5,000
    lines for a 5,000-case file (and a million, kept in memory, for a million)."""
    problems = ProblemList()
    for line in range(1, 5001):
        problems.add("missing key 'promt'", file="cases.jsonl", line=line, field="promt")
    problems.add("invalid JSON", file="cases.jsonl", line=7)
    with pytest.raises(UserError) as info:
        problems.raise_if_any("invalid dataset cases.jsonl")
    shown = [str(problem) for problem in info.value.problems]
    assert shown[:SHOWN] == [f"cases.jsonl:{line} [promt]: missing key 'promt'"
                                          for line in range(1, SHOWN + 1)]
    assert shown[SHOWN:] == [
        "cases.jsonl:7: invalid JSON",
        (f"cases.jsonl [promt]: ... and {5000 - SHOWN:,} more records with this "
         "same problem: missing key 'promt'")]
