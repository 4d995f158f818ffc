"""The suite's title counts its experiments in words a reader expects."""

from __future__ import annotations

import pytest

from assay.reports.suite import title


@pytest.mark.parametrize(("evaluated", "sample", "expected"), [
    (1, None, "suite: 1 experiment"),
    (3, None, "suite: 3 experiments"),
    (2, 5, "suite: 2 experiments, sample 5 each"),
])
def test_the_title_says_experiment_for_one_and_experiments_for_more(
        evaluated: int, sample: int | None, expected: str) -> None:
    """Regression: a suite where one of two configs failed said "suite: 1 experiments"."""
    assert title({"packs_evaluated": evaluated, "sample_per_pack": sample}) == expected
