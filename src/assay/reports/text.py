"""Text someone else wrote, made to fit one line of a report: flattened, capped, escaped.

A case's input, an answer, a scorer's reason, a file path or a question from
a session log can hold anything. Put into Markdown as it is, a newline
followed by `## ...` would start a section of its own (in `guidelines.md`,
outside the "Eval Insights" section assay manages, added again on every
run). `one_line` flattens and caps text for any format that escapes on its
own (HTML, XML); `inline` also escapes it for Markdown.

On a terminal the same text may keep its lines, but never its control
characters: an answer or case id holding `\x1b[2J` cleared the screen around
`assay run`'s summary, and a right-to-left override (U+202E) read the rest of
its line backwards. `shown_plainly` makes each such character a space.
"""

from __future__ import annotations

import re
from typing import TypeVar

_SPECIAL = re.compile(r"([\\`*|<>\[\]])")
_TERMINAL_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
"""C0 and C1 control characters but the line break and the tab: escape sequences start here."""
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Bidirectional embeddings, overrides and isolates: they reorder the text after them."""
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_UNSHOWN = re.compile(f"[{_TERMINAL_CONTROL}{BIDI_CONTROLS}]")
_CONTROL = re.compile(f"[\n\t\u2028\u2029{_TERMINAL_CONTROL}{BIDI_CONTROLS}]+")


def shown_plainly(text: object) -> str:
    """`text` with every control character but the line break and the tab, and every
    bidirectional override, made a space: what it says reaches the reader, no instruction
    to the terminal does."""
    return _UNSHOWN.sub(" ", str(text))


Text = TypeVar("Text")


def unreordered(value: Text) -> Text:
    """`value` with each bidirectional override made a space, when it is text (`Markup`
    stays `Markup`): the `finalize` of the HTML pages' templates, so a case id holding
    U+202E no longer reads the page's words after it backwards ("Case id under base")."""
    if isinstance(value, str) and _BIDI.search(value):
        return type(value)(_BIDI.sub(" ", value))
    return value


def one_line(text: object, limit: int | None = 300) -> str:
    """`text` on one line: line breaks, control characters and bidirectional overrides
    become single spaces, and the result is cut at `limit` characters (ending with `…`); never with `limit=None`."""
    flat = " ".join(_CONTROL.sub(" ", str(text)).split())
    return flat if limit is None or len(flat) <= limit else flat[: limit - 1] + "…"


def inline(text: object, limit: int | None = 200) -> str:
    """`text` as one line of Markdown that renders as the literal text: `one_line`, with
    Markdown's special characters escaped."""
    return _SPECIAL.sub(r"\\\1", one_line(text, limit))


def code(text: object, limit: int = 200) -> str:
    """`text` as one Markdown code span that shows it literally, backticks in it included:
    the span's fence is one backtick longer than the longest run inside."""
    flat = one_line(text, limit)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def markup_free(text: object) -> str:
    """`text` for a rich console, shown as written: a `[` that would open markup is escaped,
    and control characters are made spaces (`shown_plainly`)."""
    from rich.markup import escape

    return escape(shown_plainly(text))


def padded(text: object, columns: int) -> str:
    """`text` for a rich console (`markup_free`), followed by the spaces that make it
    `columns` wide on screen: a CJK character or an emoji takes two columns and a combining
    accent none, so counting characters misaligned the lines after such a name."""
    return markup_free(text) + " " * (columns - screen_width(text))


def screen_width(text: object) -> int:
    """The columns `text` takes on a terminal, as `padded` counts them."""
    from rich.cells import cell_len

    return cell_len(shown_plainly(text))
