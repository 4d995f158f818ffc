"""Output whose reader has gone: `assay run ... | head` must still end with the run's verdict.

When the program reading assay's output exits early (`head`, a pager the user
quits), the next write fails with a broken pipe. Left to click, the command
stops there and the process exits 1, which reads as "a gate failed": a suite
stopped before its remaining configs ran and wrote no suite.json, and a run
whose gates all passed failed a `set -o pipefail` CI step. Here a broken pipe
only ends the output: the stream is pointed at the null device, the command
goes on to its end, and the exit code is the command's own.

A stream that cannot be written at all (`assay report ... > out.json` on a full
disk, `> /dev/full`, an I/O error) ended the command with 'internal error:
OSError', exit 3, as if assay had a bug, and in the middle of a run. Such a
failure also only ends the output, and is kept (`failure`): the command goes
on to its end, then says what could not be written, and exits 3 where it would
have exited 0, since what it printed is lost. This module imports only the
standard library: it is installed before the rest of the command line is
imported.
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
        self.failure: OSError | None = None
        """Why the stream could not be written (not a reader gone): a full disk, an I/O
        error. What was printed from then on is lost."""

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._discard_from_now_on()
            except OSError as exc:
                self._fail(exc)
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._discard_from_now_on()
            except OSError as exc:
                self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        self.failure = exc
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


def unwritten_output(code: int) -> int:
    """The exit code once stdout or stderr failed to be written (`ReaderMayLeave.failure`):
    the failure said on stderr (when stderr still takes it), and 3 for a 0, since the
    output the command succeeded with is lost; `code` otherwise."""
    for name in ("stdout", "stderr"):
        failure = getattr(getattr(sys, name), "failure", None)
        if failure is None:
            continue
        try:
            sys.stderr.write(f"error: could not write assay's {name}: "
                             f"{failure.strerror or failure} (its output is incomplete)\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr gone too: the exit code still says it
            pass
        return code or 3
    return code


def tolerate_closed_pipes() -> None:
    """Wrap the process's stdout and stderr (the `assay` program, not a caller's Python)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, ReaderMayLeave):
            setattr(sys, name, ReaderMayLeave(stream))
