"""Output to a stream that cannot show every character: `LC_ALL=C`, `PYTHONIOENCODING=ascii`.

assay's lines hold arrows (`20.0% → 100.0%`), middle dots, dashes, sparklines,
and the case ids and answers of a dataset. Where the output's encoding has no
such character, the first one stopped the command with 'internal error:
UnicodeEncodeError', exit 3, a run whose trials were all stored reading as a
run that could not complete. Here a character the encoding lacks is written as
its nearest plain form instead (`->`, `-`, `...`, `e` for `é`), and as `?` when
it has none; rich already draws its tables with ASCII lines on such a stream.
The `assay` program writes its standard streams so (`write_plainly_where_unshowable`),
and the reports' console any stream it is given (`PlainlyWritten`). This module
imports only the standard library: the program installs it before the rest of
the command line is imported.
"""

from __future__ import annotations

import codecs
import sys
import unicodedata

TYPE_CHECKING = False  # `typing` is not imported until it is needed: `assay` starts sooner
if TYPE_CHECKING:
    from typing import Any, TextIO

HANDLER = "assay.plain"
"""The name of the codec error handler that writes a character as its plain form."""

PLAIN_FORMS = {
    "→": "->", "←": "<-", "↑": "^", "↓": "v", "·": "-", "•": "*", "…": "...",
    "–": "-", "—": "-", "‘": "'", "’": "'", "“": '"', "”": '"', "≠": "!=",
    "≤": "<=", "≥": ">=", "±": "+/-", "×": "x", "¦": "|", "²": "^2", "✓": "v",
    "✗": "x", "▁": "_", "▂": "_", "▃": "-", "▄": "-", "▅": "=", "▆": "=", "▇": "#",
    "█": "#", "\ufffd": "?",
}
"""The characters assay prints itself, each with the ASCII it reads as."""


def plain_form(character: str) -> str:
    """`character` in ASCII: its plain form, its letter without accents, or `?`."""
    if character in PLAIN_FORMS:
        return PLAIN_FORMS[character]
    if "\u2500" <= character <= "\u257f":  # box drawing: rules and table lines
        return _box_line(character)
    letters = unicodedata.normalize("NFKD", character).encode("ascii", "ignore").decode()
    return letters or "?"


def _box_line(character: str) -> str:
    name = unicodedata.name(character, "")
    if "HORIZONTAL" in name and "VERTICAL" not in name:
        return "-"
    if "VERTICAL" in name and "HORIZONTAL" not in name:
        return "|"
    return "+"


def _write_plainly(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return "".join(_encodable(plain_form(c), error.encoding) for c in text), error.end


def _encodable(text: str, encoding: str) -> str:
    try:
        text.encode(encoding)
    except (UnicodeError, LookupError):
        return "?" * len(text)
    return text


codecs.register_error(HANDLER, _write_plainly)


def shows_everything(stream: object) -> bool:
    """Whether the stream's encoding is a Unicode one, which has every character. A stream
    with no encoding holds text as it is (`io.StringIO`, what `contextlib.redirect_stdout`
    or a notebook gives `assay.cli.main`): written through `PlainlyWritten`, its first line
    was 'internal error: LookupError: unknown encoding: None', exit 3, after a run that
    had completed."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None:
        return True
    try:
        return codecs.lookup(str(encoding)).name.startswith("utf")
    except LookupError:
        return False


class PlainlyWritten:
    """A text stream that writes what its encoding lacks in its plain form."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        encoding = str(self._stream.encoding)
        self._stream.write(text.encode(encoding, HANDLER).decode(encoding))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # encoding, flush, isatty, ... of the stream
        return getattr(self._stream, name)


def write_plainly_where_unshowable() -> None:
    """Have the process's stdout and stderr write what their encoding lacks plainly."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not shows_everything(stream):
            try:
                reconfigure(errors=HANDLER)
            except (OSError, ValueError):  # a stream that cannot change its errors: as it was
                pass
