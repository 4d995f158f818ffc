"""One thread that writes the response cache's replies to the store as they arrive.

A reply held in memory dies with a killed process, and the resume pays for its call
again; written on the event loop, one transaction per reply cost a quarter of a judged
run's time. So a thread of its own writes them: woken by each new reply, it writes every
reply held by then in one transaction, and the replies that arrive while it writes go
together in the next. A write that fails ends the thread: the replies stay held, and
the next `ResponseCache.save` (before the runner stores a batch of trials, and when the
pool closes) raises the store's error to its caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["ReplyWriter"]


class ReplyWriter:
    """Calls `save` in a thread of its own each time `wake` is called, once per wake at
    most (wakes during a write make one more write); started at the first wake."""

    def __init__(self, save: Callable[[], None]) -> None:
        self._save = save
        self._wake = threading.Event()
        self._starting = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def wake(self) -> None:
        """A reply is held: write it (and any other held) soon."""
        if self._closed:
            return
        if self._thread is None:
            with self._starting:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._serve, daemon=True,
                                                    name="assay-reply-writer")
                    self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread, after the write under way; the caller saves what is left."""
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _serve(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                self._save()
            except Exception:  # noqa: BLE001 - the replies stay held; the next save raises it
                self._closed = True
                return
