"""The console the reports print to, and tables that never cut a cell.

On a terminal, rich wraps text at the terminal's width, which is what a
reader wants. In a CI log or a pipe there is no width: rich would assume 80
columns, break sentences mid-phrase and cut table cells (`3,366/3…`). So
when the stream is not a terminal, text is never wrapped (`soft_wrap`), and
the console is wide (`PIPE_WIDTH`, or `COLUMNS` when set) so tables take
their natural width. A table too wide for the console is printed as a list,
one line per row, rather than cut.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO, cast

PIPE_WIDTH = 200
"""Columns assumed for a stream that is not a terminal (a table wider than this is a list)."""
RULE_WIDTH = 80


def make_console(*, stderr: bool = False) -> Any:
    """A rich Console for stdout (or stderr) that reads well on a terminal and in a log."""
    from rich.console import Console

    from assay.plain_characters import HANDLER, PlainlyWritten, shows_everything

    stream = sys.stderr if stderr else sys.stdout
    # a stream without every character (`LC_ALL=C`) gets `->` for `→`, not UnicodeEncodeError;
    # the `assay` program's own streams already write so
    plain = shows_everything(stream) or getattr(stream, "errors", None) == HANDLER
    file = None if plain else cast("TextIO", PlainlyWritten(stream))
    if _is_terminal(stream):
        return Console(stderr=stderr, file=file, highlight=False)
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else PIPE_WIDTH
    return Console(stderr=stderr, file=file, highlight=False, soft_wrap=True, width=width)


def print_warning(out: Any, text: str) -> None:
    """`warning: TEXT`, with TEXT printed as it is: it quotes datasets, user code and error
    messages, whose brackets (`[input]`, `['a']`) rich would otherwise read as markup."""
    from assay.reports.text import markup_free as escape

    out.print(f"[yellow]warning:[/yellow] {escape(text)}")


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def print_rule(console: Any, title: str) -> None:
    """A heading line, as wide as a terminal's or `RULE_WIDTH` in a log."""
    from rich.rule import Rule

    console.print(Rule(title), width=min(console.width, RULE_WIDTH) if console.soft_wrap
                  else None)


def print_table(console: Any, title: str, columns: Sequence[tuple[str, str]],
                rows: Sequence[Sequence[str]], *, keys: int = 1, group_first: bool = False,
                box: Any = None) -> None:
    """`rows` as a table when it fits the console, else as a list of `key: name value` lines.

    `columns` are (name, justify); the first `keys` cells name a row in the list layout.
    `group_first` leaves a first cell blank in the table when it repeats the row above.
    """
    for stacked in (False, True):  # headers on two lines save room where a cell is short
        table = _table(title, columns, rows, group_first=group_first, box=box,
                       stacked=stacked)
        if fits(console, table):
            console.print(table)
            return
    print_as_list(console, title, [name for name, _ in columns], rows, keys=keys)


def _table(title: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[str]], *,
           group_first: bool, box: Any, stacked: bool) -> Any:
    from rich import box as boxes
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box or boxes.SIMPLE_HEAD,
                  pad_edge=False, show_edge=False)
    for name, justify in columns:
        header = stacked_header(name) if stacked else name
        table.add_column(header, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    previous = None
    for row in rows:
        cells = list(row)
        if group_first and cells and cells[0] == previous:
            cells[0] = ""
        else:
            previous = cells[0] if cells else None
        table.add_row(*cells)
    return table


def stacked_header(name: str) -> str:
    """A header on two lines: `pass rate` over `[95% CI]`, `errored` over `trials`."""
    return name.replace(" [", "\n[", 1) if " [" in name else name.replace(" ", "\n", 1)


def print_as_list(console: Any, title: str, names: Sequence[str],
                  rows: Sequence[Sequence[str]], *, keys: int = 1) -> None:
    """A table's rows as `key: name value, ...` lines, for a console too narrow for it."""
    if title:
        console.print(title)
    for row in rows:
        key = " · ".join(str(cell) for cell in row[:keys])
        rest = ", ".join(f"{name} {cell}" for name, cell in zip(names[keys:], row[keys:])
                         if str(cell).strip())
        console.print(f"  {key}: {rest}")


def fits(console: Any, table: Any) -> bool:
    """Whether `table` prints at the console's width with every cell whole: a column that may
    not wrap needs its longest cell, one that wraps its longest word. (`console.measure`
    gives at most the console's width: a table too wide seemed to fit, and was printed
    with its cells cut and whole columns dropped.)"""
    unbounded = console.options.update_width(sys.maxsize // 2)
    need = int(table._extra_width)
    for column in table.columns:
        measured = table._measure_column(console, unbounded, column)
        need += measured.maximum if column.no_wrap else measured.minimum
    return bool(need <= console.width)
