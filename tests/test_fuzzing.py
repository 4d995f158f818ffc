"""The fuzz tests' own tools: a failing input or a one-sided set of inputs fails the test."""

from __future__ import annotations

import pytest

from tests.fuzzing import Tally, records_text, run_input


def _refuse(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    if x == 0:
        raise KeyError("zero")  # the kind of escape a fuzz test is there to find
    return x


def test_a_tally_counts_results_and_clear_errors_and_fails_on_anything_else() -> None:
    tally = Tally(4, accepted="loaded")
    assert [tally.record(f"input {x}", run_input(ValueError, _refuse, x))
            for x in (1, 2, -1, 0)] == [True, True, False, False]
    assert tally.outcomes == {"loaded": 2, "clear error": 1}
    assert tally.failures == ["input 0: KeyError: 'zero'"]
    with pytest.raises(AssertionError, match="1 of 4 inputs failed:\ninput 0: KeyError"):
        tally.check({"loaded": 0})


def test_a_tally_whose_inputs_reached_only_one_side_fails() -> None:
    tally = Tally(3, accepted="loaded")
    for x in (1, 2, 3):
        tally.record(f"input {x}", run_input(ValueError, _refuse, x))
    tally.check({"loaded": 2})
    with pytest.raises(AssertionError, match="too few"):
        tally.check({"loaded": 2, "clear error": 0})


def test_records_are_written_in_each_form_a_loader_reads() -> None:
    records = [{"id": "a", "n": 1}, {"id": "b", "tags": ["x"]}]
    assert records_text(records, "jsonl") == b'{"id": "a", "n": 1}\n{"id": "b", "tags": ["x"]}\n'
    assert records_text(records, "json").startswith(b'[{"id": "a"')
    assert records_text(records, "csv").splitlines() == [b"id,n,tags", b"a,1,", b'b,,"[""x""]"']
    assert records_text(records, "yaml").startswith(b"- id: a\n")
