"""Krippendorff's alpha against his published worked example and the `krippendorff` package."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from assay.analysis.krippendorff import krippendorff_alpha

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers
# (rows) code twelve units (columns), some units left uncoded.
PUBLISHED = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
])


def by_item(data: np.ndarray) -> list[list[int | None]]:
    return [[None if math.isnan(v) else int(v) for v in column] for column in data.T]


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815),
                                              ("interval", 0.849)])
def test_the_published_example_gives_the_published_alphas(level: str, published: float) -> None:
    alpha = krippendorff_alpha(by_item(PUBLISHED), level=level)  # type: ignore[arg-type]
    assert alpha.value == pytest.approx(published, abs=5e-4)
    assert alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=PUBLISHED, level_of_measurement=level), abs=1e-12)
    assert alpha.items == 11  # the unit coded once carries no information on agreement


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_matches_the_package_on_five_raters_with_gaps(level: str) -> None:
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 6, 80).astype(float)
    data = np.clip(truth + rng.integers(-1, 2, (5, 80)), 0, 5).astype(float)
    data[rng.random((5, 80)) < 0.2] = NAN
    ours = krippendorff_alpha(by_item(data), level=level)  # type: ignore[arg-type]
    assert ours.value == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12)
    assert ours.interval is not None and ours.interval.low < ours.value < ours.interval.high


def test_labels_that_are_not_numbers_work_at_the_nominal_level() -> None:
    items = [["pass", "pass", "fail"], ["fail", "fail", None], ["pass", "pass", "pass"],
             ["fail", "pass", "fail"]]
    codes = {"pass": 1.0, "fail": 0.0}
    data = np.array([[codes[v] if v else NAN for v in row] for row in items]).T
    assert krippendorff_alpha(items).value == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_alpha_is_undefined_when_every_value_is_the_same() -> None:
    alpha = krippendorff_alpha([[3, 3], [3, 3, 3]], level="interval")
    assert alpha.value is None and "same" in alpha.note
