"""Text from session logs made safe to put into Markdown: one line, escaped, capped.

A file path, a question or a judge's finding comes from a log that someone
else wrote. Put into `eval-report.md` or `guidelines.md` as it is, a newline
followed by `## ...` would start a section of its own; in `guidelines.md`
that text would land outside the "Eval Insights" section assay manages, and
every later run would add it again. `inline` turns any text into one line
of literal Markdown.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*|<>\[\]])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]+")


def inline(text: object, limit: int = 200) -> str:
    """`text` as one line of Markdown that renders as the literal text: line breaks and
    control characters become spaces, Markdown's special characters are escaped, and the
    result is cut at `limit` characters (with `…`)."""
    flat = " ".join(_CONTROL.sub(" ", str(text)).split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return _SPECIAL.sub(r"\\\1", flat)
