"""Where intervals are drawn: a value on its scale's track, deltas on one axis around zero."""

from __future__ import annotations

import math

import pytest

from assay.reports.meters import axis_at, nice_axis, on_scale


@pytest.mark.parametrize(("x", "scale", "at"), [
    (7.0, (0.0, 10.0), 0.7), (3.0, (1.0, 5.0), 0.5), (12.0, (0.0, 10.0), 1.0),
    (-1.0, (0.0, 10.0), 0.0), (math.nan, (0.0, 1.0), 0.0), (1.0, (1.0, 1.0), 0.0)])
def test_a_value_stands_on_its_scales_track_and_never_off_it(
        x: float, scale: tuple[float, float], at: float) -> None:
    assert on_scale(x, scale) == pytest.approx(at)


def test_the_shared_axis_is_a_round_width_that_every_delta_fits_in() -> None:
    assert [nice_axis(r) for r in (0.0, 4.0, 11.0, 24.0, 60.0, 130.0)] == [
        5.0, 5.0, 20.0, 25.0, 100.0, 200.0]
    assert (axis_at(0.0, 10.0), axis_at(-10.0, 10.0), axis_at(30.0, 10.0)) == (0.5, 0.0, 1.0)
