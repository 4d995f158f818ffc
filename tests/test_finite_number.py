"""A number read from a file, as a finite float or none."""

from __future__ import annotations

import pytest

from assay.finite_number import finite_number


@pytest.mark.parametrize("value, number", [(8, 8.0), (8.5, 8.5), (-(10**300), -1e300),
                                           (10**400, None), (-(10**400), None),
                                           (float("nan"), None), (float("inf"), None),
                                           (True, None), ("8", None), (None, None)])
def test_a_json_number_is_a_finite_float_and_anything_else_is_none(value: object,
                                                                   number: float | None) -> None:
    """Regression: `float(10**400)` raised OverflowError out of every reader that took an
    integer past a float's range for a number."""
    assert finite_number(value) == number
