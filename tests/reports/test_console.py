"""What the console prints of user text is that text, brackets and all."""

from __future__ import annotations

import io

from rich.console import Console

from assay.reports.console import print_warning


def test_a_warning_quoting_a_field_in_brackets_prints_the_brackets() -> None:
    """Regression: `cases.jsonl:8 [input]: ...` printed as `cases.jsonl:8 : ...`, rich reading
    `[input]` as a style, so the warning never named its field."""
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False)
    print_warning(console, "cases.jsonl:8 [input]: replaced; KeyError: ['a'] [/bold]")
    assert out.getvalue() == "warning: cases.jsonl:8 [input]: replaced; KeyError: ['a'] [/bold]\n"
