"""Output whose reader has gone: `assay run ... | head` must still end with the run's verdict.

When the program reading assay's output exits early (`head`, a pager the user
quits), the next write fails with a broken pipe. Left to click, the command
stops there and the process exits 1, which reads as "a gate failed": a suite
stopped before its remaining configs ran and wrote no suite.json, and a run
whose gates all passed failed a `set -o pipefail` CI step. Here a broken pipe
only ends the output: the stream is pointed at the null device, the command
goes on to its end, and the exit code is the command's own. This module imports
only the standard library: it is installed before the rest of the command line
is imported.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


class ReaderMayLeave:
    """A text stream that stops writing, without an error, once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._discard_from_now_on()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._discard_from_now_on()

    def _discard_from_now_on(self) -> None:
        """Point the file descriptor at the null device, so that what is still buffered and
        the interpreter's last flush at exit go nowhere instead of failing again."""
        from assay.cli.closed_streams import point_at_null_device

        self.reader_gone = True
        try:
            point_at_null_device(self._stream.fileno())
        except (OSError, ValueError, AttributeError):  # no descriptor to redirect: none left
            pass

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, ... of the stream
        return getattr(self._stream, name)


def tolerate_closed_pipes() -> None:
    """Wrap the process's stdout and stderr (the `assay` program, not a caller's Python)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, ReaderMayLeave):
            setattr(sys, name, ReaderMayLeave(stream))
