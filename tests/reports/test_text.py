"""Text someone else wrote, shown as written: on one line for reports, plainly on a terminal."""

from __future__ import annotations

from assay.reports.text import inline, markup_free, one_line, padded, shown_plainly


def test_a_right_to_left_override_in_a_report_line_cannot_reverse_what_follows_it() -> None:
    """Regression: a case id holding U+202E made the rest of its line in report.md (the
    condition, the scorer, the reason) read backwards wherever it was rendered."""
    assert inline("q\u202eid") == "q id"
    assert one_line("a\u2066b\u2069c\u202ad\u202ce") == "a b c d e"


def test_c1_control_characters_are_flattened_like_c0_ones() -> None:
    """\\x9b is a one-character escape sequence start on many terminals."""
    assert one_line("a\x9b31mb\x85c") == "a 31mb c"


def test_a_terminal_line_keeps_its_line_breaks_and_tabs_but_no_escape_sequence() -> None:
    assert shown_plainly("a\x1b[2Jb\r\x07\x00c\n\td") == "a [2Jb   c\n\td"
    assert markup_free("[red]x\x1b]8;;http://h\x1b\\ end") == "\\[red]x ]8;;http://h \\ end"


def test_emoji_joiners_and_combining_marks_are_kept() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467 e\u0301"
    assert shown_plainly(family) == family and one_line(family) == family


def test_padding_counts_the_columns_a_name_takes_on_screen_not_its_characters() -> None:
    """`assay history`'s metric names and `assay run`'s comparison lines line up so."""
    assert padded("漢字", 6) == "漢字  " and padded("e\u0301x", 4) == "e\u0301x  "
    assert padded("[b]", 4) == "\\[b] "
