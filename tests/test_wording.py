"""Words for people: counts, and the kind of a value a file holds where another was wanted."""

from __future__ import annotations

import datetime
import os

from assay.wording import kind_of, path_text, plural


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
