"""What the console prints of user text is that text, brackets and all."""

from __future__ import annotations

import io

from rich.console import Console

from assay.reports.console import print_table, print_warning


def test_a_warning_quoting_a_field_in_brackets_prints_the_brackets() -> None:
    """Regression: `cases.jsonl:8 [input]: ...` printed as `cases.jsonl:8 : ...`, rich reading
    `[input]` as a style, so the warning never named its field."""
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    print_warning(console, "cases.jsonl:8 [input]: replaced; KeyError: ['a'] [/bold]")
    assert out.getvalue() == "warning: cases.jsonl:8 [input]: replaced; KeyError: ['a'] [/bold]\n"


def test_a_table_too_wide_for_the_console_is_a_list_with_every_cell_whole() -> None:
    """Regression: the width check measured the table at the console's width, which it never
    exceeds, so at 40 columns the score table was printed with cells cut ('0.200 [0.…') and
    whole columns dropped (the scorer's, a calibration's value)."""
    out = io.StringIO()
    console = Console(file=out, width=40, highlight=False, soft_wrap=True)
    print_table(console, "scores", [("scorer", "left"), ("condition", "left"),
                                    ("mean [95% CI]", "right"), ("pass rate [95% CI]", "right")],
                [("contains", "memory", "0.200 [0.070–0.452]", "20.0% [7%–45%]")], keys=2)
    assert out.getvalue().splitlines() == [
        "scores", "  contains · memory: mean [95% CI] 0.200 [0.070–0.452], "
        "pass rate [95% CI] 20.0% [7%–45%]"]


def test_a_table_that_fits_is_printed_as_a_table() -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=80, highlight=False), "scores",
                [("scorer", "left"), ("mean", "right")], [("contains", "0.200")])
    assert "scorer" in out.getvalue() and "contains   0.200" in out.getvalue()
