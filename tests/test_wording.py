"""Words for people: counts, and the kind of a value a file holds where another was wanted."""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable

import pytest

from assay.wording import kind_of, name_text, part_of, path_text, plural, the_last


def test_a_value_of_each_kind_is_named_in_the_same_words_everywhere() -> None:
    values = [None, True, 3, 1.5, "x", [1], {"a": 1}, datetime.date(2026, 1, 2)]
    assert [kind_of(value) for value in values] == [
        "null", "true or false", "a number", "a number", "text", "a list", "an object",
        "a date"]


def test_one_of_a_count_reads_as_one_and_a_plural_not_an_s_is_kept() -> None:
    assert [plural(1, "case"), plural(2, "case"), plural(1_200, "case")] == [
        "1 case", "2 cases", "1,200 cases"]
    assert [plural(1, "retry", "retries"), plural(0, "retry", "retries")] == [
        "1 retry", "0 retries"]


def test_a_path_that_is_not_utf8_reads_with_a_replacement_character_not_an_escape() -> None:
    assert path_text(os.fsdecode(b"out/r\xff.md")) == "out/r\ufffd.md"
    assert path_text("out/résumé.md") == "out/résumé.md"


def _stopped_rejudge(**budget: int) -> str:
    """The reason a rejudge stopped after one judge failure, under the budget given."""
    from assay.case import Case
    from assay.output import Output
    from assay.rejudge.trials import JudgeBudget, JudgeTally
    from assay.score import Score
    from assay.trial import TrialResult

    tally = JudgeTally()
    tally.count(TrialResult(case=Case(id="a", input="q"), condition="default", epoch=1,
                            output=Output(text="a"),
                            scores={"judge_score": Score.failure("HTTP 400")}),
                JudgeBudget(**budget))
    return str(tally.stats.stopped_reason)


def _nothing_to_pair() -> str:
    from assay.analysis.paired import NothingToPair, compare_paired

    try:
        compare_paired({"q1": 1}, {"q1": None}, kind="pass_fail", label_a="A", label_b="B")
    except NothingToPair as exc:
        return str(exc)
    raise AssertionError("one case errored on one side, so nothing pairs")


def _power_with_one_case() -> str:
    from assay.analysis.effect import measure
    from assay.analysis.pass_rate_delta import DiscordantPairs
    from assay.analysis.power import advise

    return advise(measure("pass_rate", DiscordantPairs(1, 0, 1), 0.05)).summary()


def _alpha_of_one_item() -> str:
    from assay.analysis.krippendorff import krippendorff_alpha

    return krippendorff_alpha([[1, 2]]).note


@pytest.mark.parametrize("said, one", [
    (lambda: the_last(1, "trial"), "the last trial"),
    (lambda: the_last(3, "trial"), "the last 3 trials"),
    (lambda: part_of(1, 1, "trial"), "1 of 1 trial"),
    (lambda: part_of(1, 3, "trial", of="of its"), "1 of its 3 trials"),
    (lambda: part_of(1, None, "trial"), "1 trial"),
    (lambda: _stopped_rejudge(max_consecutive_errors=1), "the judges failed on the last answer "),
    (lambda: _stopped_rejudge(max_errors=1), "the judges failed on 1 answer "),
    (_nothing_to_pair, "(1 case in A, 1 in B"),
    (_power_with_one_case, "wide with 1 case;"),
    (_alpha_of_one_item, "no interval from 1 item: it needs three"),
], ids=["the-last-one", "the-last-many", "one-of-one", "one-of-its-many", "of-unknown",
        "rejudge-streak", "rejudge-budget", "paired", "power", "krippendorff"])
def test_a_count_of_one_is_said_as_one_wherever_it_is_said(said: Callable[[], str],
                                                            one: str) -> None:
    """Regression: these read 'the last 1 trials', '1 of 1 trials', 'the last 1 answers',
    '1 answers', '1 cases in A', 'with 1 cases', 'from 1 items'."""
    assert one in said()


def test_a_name_shows_each_character_no_one_can_see_as_its_code_point() -> None:
    assert name_text("a\u200bb\u200f\x07\u00a0c d é") == "a\\u200bb\\u200f\\u0007\\u00a0c d é"
