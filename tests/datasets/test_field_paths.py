"""Where a `fields:` path finds nothing, said for a person."""

from __future__ import annotations

from assay.datasets.field_paths import where_path_stops


def test_a_path_that_steps_into_a_boolean_says_it_is_true_or_false() -> None:
    """It read 'a number or a boolean', where the record says which it holds."""
    stops = where_path_stops({"a": False, "n": 2}, "a.b"), where_path_stops({"n": 2}, "n.b")
    assert stops == ("'a' is true or false, not an object or a list",
                     "'n' is a number, not an object or a list")
