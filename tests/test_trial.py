"""How a stored epoch (counted from 0) is named to people (counted from 1)."""

from __future__ import annotations

from assay.trial import epoch_label


def test_an_epoch_is_named_from_one_of_the_runs_epochs() -> None:
    assert [epoch_label(e, 3) for e in range(3)] == ["epoch 1 of 3", "epoch 2 of 3",
                                                     "epoch 3 of 3"]


def test_a_run_of_one_epoch_names_none_and_an_unknown_count_names_the_epoch_alone() -> None:
    assert epoch_label(0, 1) == ""
    assert epoch_label(0, None) == "epoch 1"
