"""Ctrl-C and SIGTERM, from the first instant of `assay` to the last.

A cancelled CI job, `docker stop` or a plain `kill` sends SIGTERM, whose default
ends the process at once: no trial in flight is cleaned up, worker processes and
commands are not killed, the run stays `running` in the store though nothing runs
it, and nobody is told how to resume. While a command works, SIGTERM takes
Ctrl-C's path: the run is recorded `interrupted` and the resume command is printed.

Once the command's exit code is known (a run completed and reviewed, an error
reported: `decided`), neither signal may change it: the process still has to close
the store and shut down (join threads, free its modules), and a signal then ended
it by the signal (143, SIGTERM's default), in a KeyboardInterrupt traceback or
with 130, though the run was stored `completed`. From then on either signal ends
the process with that code at once, and in the last moments of the interpreter's
shut-down, where Python runs no handler, both are ignored. This module imports
only the standard library: it is in place before the rest of the command line is
imported.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C or SIGTERM (128 + SIGINT)."""

_STOPPING = (signal.SIGINT, signal.SIGTERM)


class Signals:
    """The process's handling of Ctrl-C and SIGTERM while a command runs (see the module)."""

    def __init__(self, *, owns_process: bool) -> None:
        self.owns_process = owns_process
        self._before: dict[int, Any] = {}

    def interrupting(self) -> None:
        """SIGTERM interrupts as Ctrl-C does (Ctrl-C itself raises KeyboardInterrupt)."""
        self._set(signal.SIGINT, signal.default_int_handler)
        self._set(signal.SIGTERM, _as_interrupt)

    def exiting_with(self, code: int) -> None:
        """From now on Ctrl-C and SIGTERM end the process with `code` at once: the command
        is over and only the process's shut-down is left."""
        def exit_now(signum: int, frame: FrameType | None) -> None:
            os._exit(code)

        for signum in _STOPPING:
            self._set(signum, exit_now)

    def restore(self) -> None:
        """Put back the handlers found (a command run from Python leaves its process as it
        found it)."""
        for signum, handler in self._before.items():
            signal.signal(signum, handler)
        self._before.clear()

    def _set(self, signum: int, handler: Any) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # only the main thread can handle signals: elsewhere nothing changes
        if self._before.get(signum, signal.getsignal(signum)) is signal.SIG_IGN:
            return  # ignored by whoever started assay (`nohup`, a background job): kept so
        before = signal.signal(signum, handler)
        self._before.setdefault(signum, before)


_active: list[Signals] = []


@contextmanager
def signals_handled(*, owns_process: bool) -> Iterator[Signals]:
    """The command's `Signals`. A command run from Python gets the handlers it found back at
    the end; the `assay` program keeps its last ones until the process is gone."""
    signals = Signals(owns_process=owns_process)
    signals.interrupting()
    if owns_process:  # registered first, so run last, after every other exit function
        atexit.register(_ignore_stopping_signals)
    _active.append(signals)
    try:
        yield signals
    finally:
        if not owns_process:
            _active.remove(signals)
            signals.restore()


def decided(code: int) -> None:
    """The command's exit code is known: from now on Ctrl-C and SIGTERM end the process with
    it at once (a command run from Python: until the command returns)."""
    if _active:
        _active[-1].exiting_with(code)


def _ignore_stopping_signals() -> None:
    """Python code has stopped running: the interpreter resets its handlers to the defaults
    and frees its modules, where a signal would still end the process by the signal."""
    if threading.current_thread() is threading.main_thread():
        for signum in _STOPPING:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, signal.SIG_IGN)


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    """Hand the signal to whatever handles Ctrl-C now: asyncio's runner cancels its main task
    (so every trial's clean-up runs), Python's default raises KeyboardInterrupt."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt
