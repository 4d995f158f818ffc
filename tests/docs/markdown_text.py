"""Text from the code (help, field docs) written into a Markdown page as it reads there."""

from __future__ import annotations


def one_line(text: str) -> str:
    """`text` on one line, each `<run-id>` outside a code span kept from reading as an HTML
    tag (inside one it already reads as written)."""
    parts = " ".join(text.split()).split("`")  # odd parts are inside code spans
    return "`".join(part if index % 2 else part.replace("<", "\\<").replace(">", "\\>")
                    for index, part in enumerate(parts))


def cell(text: str) -> str:
    """`text` as `one_line`, its `|` escaped so that it stays in its table cell."""
    return one_line(text).replace("|", "\\|")
