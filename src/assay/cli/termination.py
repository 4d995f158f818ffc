"""SIGTERM stops assay as Ctrl-C does.

A cancelled CI job, `docker stop` or a plain `kill` sends SIGTERM, whose default
ends the process at once: no trial in flight is cleaned up, worker processes and
commands are not killed, the run stays `running` in the store though nothing runs
it, and nobody is told how to resume. Handled here, it takes Ctrl-C's path: the
run is recorded `interrupted` and the resume command is printed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM interrupts assay as SIGINT would; the handler before is put back
    after (a command run from Python, in a test, leaves its process as it found it). Only
    the main thread can handle signals: elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _as_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    """Hand the signal to whatever handles Ctrl-C now: asyncio's runner cancels its main task
    (so every trial's clean-up runs), Python's default raises KeyboardInterrupt."""
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt
