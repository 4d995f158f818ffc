"""What the console prints of user text is that text, brackets and all."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console

from assay.reports.console import make_console, print_table, print_warning


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
        "scores", ("  contains · memory: mean [95% CI] 0.200 [0.070–0.452], "
        "pass rate [95% CI] 20.0% [7%–45%]")]


def test_a_table_that_fits_is_printed_as_a_table() -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=80, highlight=False), "scores",
                [("scorer", "left"), ("mean", "right")], [("contains", "0.200")])
    assert "scorer" in out.getvalue() and "contains   0.200" in out.getvalue()


SCORES = [("scorer", "left"), ("condition", "left"), ("n", "right"),
          ("mean [95% CI]", "right"), ("pass rate [95% CI]", "right"),
          ("errored trials", "right")]
QUICKSTART = [("contains", "memory", "15", "0.200 [0.070–0.452]", "20.0% [7%–45%]", "0"),
              ("contains", "docs", "15", "1.000 [0.796–1.000]", "100.0% [80%–100%]", "0")]


def test_at_80_columns_the_score_table_stays_a_table_with_its_headers_on_two_lines() -> None:
    """The quickstart's table needs 85 columns with its headers on one line: at 80 it became
    a list of lines, though with `pass rate` over `[95% CI]` every cell fits."""
    out = io.StringIO()
    print_table(Console(file=out, width=80, highlight=False), "scores", SCORES, QUICKSTART,
                keys=2)
    lines = out.getvalue().splitlines()
    assert lines[1].split() == ["mean", "pass", "rate", "errored"]
    assert lines[2].split() == ["scorer", "condition", "n", "[95%", "CI]", "[95%", "CI]",
                                "trials"]
    assert "0.200 [0.070–0.452]" in lines[4] and "100.0% [80%–100%]" in lines[5]
    assert max(map(len, lines)) <= 80


def test_a_wide_console_keeps_each_header_on_one_line() -> None:
    out = io.StringIO()
    print_table(Console(file=out, width=120, highlight=False), "scores", SCORES, QUICKSTART,
                keys=2)
    assert "pass rate [95% CI]" in out.getvalue() and "errored trials" in out.getvalue()


def test_the_console_of_an_ascii_stream_prints_plainly_instead_of_raising(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, `assay.evaluate(..., verbose=True)` under `PYTHONIOENCODING=ascii` raised
    UnicodeEncodeError at the table title's '·', after the run was stored."""
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii"))
    console = make_console()
    console.print("quickstart · run r1: 20.0% → 100.0%")
    print_table(console, "", [("case", "left"), ("pass", "right")], [("café", "1")])
    sys.stdout.flush()
    printed = raw.getvalue().decode("ascii")
    assert "quickstart - run r1: 20.0% -> 100.0%" in printed and "cafe" in printed
