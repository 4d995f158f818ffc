"""Judgements written by people or other tools, read into one form per kind, or refused."""

from __future__ import annotations

import pytest

from assay.calibration.values import (
    UnreadableValue,
    as_choice,
    as_pass,
    as_score,
    guess_kind,
)


@pytest.mark.parametrize("value, passed", [(True, True), ("PASS", True), ("yes", True),
                                           (1, True), ("correct", True), (False, False),
                                           ("Fail", False), ("no", False), (0, False)])
def test_pass_and_fail_are_read_from_the_usual_words(value: object, passed: bool) -> None:
    assert as_pass(value) is passed


@pytest.mark.parametrize("value, choice", [("A", "a"), ("[[B]]", "b"), ("model_1", "a"),
                                           ("model_b", "b"), ("Assistant A", "a"),
                                           ("tie", "tie"), ("tie (bothbad)", "tie"),
                                           ("second", "b")])
def test_preferences_are_read_in_the_layouts_tools_write(value: str, choice: str) -> None:
    assert as_choice(value) == choice


def test_what_cannot_be_read_is_refused_never_guessed() -> None:
    for reader, value in ((as_pass, "maybe"), (as_score, "high"), (as_score, True),
                          (as_score, 10**400), (as_choice, "data")):  # 10**400: OverflowError
        with pytest.raises(UnreadableValue):
            reader(value)


def test_the_kind_is_read_from_the_values() -> None:
    assert guess_kind(["pass", "fail", True]) == "pass_fail"
    assert guess_kind([1, 0, 1]) == "pass_fail"
    assert guess_kind([1, 2, 5, "4"]) == "score"
    assert guess_kind(["A", "B", "tie"]) == "preference"
    assert guess_kind(["correct", "partially_correct", "incorrect"]) == "label"
