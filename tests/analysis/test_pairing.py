"""Lining two sides up by case: which cases are kept, and how the left-out ones are listed."""

from __future__ import annotations

from assay.analysis.pairing import in_id_order, pair_cases


def test_case_ids_are_put_in_the_order_people_number_them() -> None:
    assert in_id_order(["q10", "q2", "b", "q1", "a10", "a9"]) == (
        "a9", "a10", "b", "q1", "q2", "q10")


def test_left_out_cases_are_listed_in_id_order_whatever_order_they_were_read_in() -> None:
    """Regression: a case whose target failed was read after the scored ones and listed last
    ("errored in terse (every epoch) (3): ge_009, ge_010, ge_003")."""
    a = {"ge_009": [None, None], "ge_010": [None], "ge_001": [1.0], "ge_003": [None]}
    b = {"ge_009": [1.0], "ge_010": [1.0], "ge_001": [1.0], "ge_003": [1.0], "ge_100": [1.0],
         "ge_020": [0.0]}
    excluded = pair_cases(a, b).excluded
    assert excluded.errored_in_a == ("ge_003", "ge_009", "ge_010")
    assert excluded.only_in_b == ("ge_020", "ge_100")
