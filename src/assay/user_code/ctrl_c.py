"""Ctrl-C told apart from user code's own KeyboardInterrupt.

Python raises Ctrl-C's KeyboardInterrupt in whatever code runs in the main thread, user
code on the event loop (`threaded: false`, an `async def`, a module being imported)
included; user code may also raise KeyboardInterrupt itself. Ctrl-C stops the run, the
user code's own is that call's error, and only the signal tells them apart: while user
code runs in the main thread, the SIGINT handler found there is wrapped in one that
counts each press before it does what it did. SIGTERM, which takes Ctrl-C's path, is
counted by a wrapper of its own: with SIGINT ignored (assay started in the background by a
script, `cmd &`), SIGTERM raises KeyboardInterrupt itself, and uncounted it read as the user
code's own, that trial's error, the run going on. Calls that overlap (async user code
awaiting) share the wrappers, put back when the last of them ends.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, Self

_presses = 0
"""SIGINTs and SIGTERMs handled while a `CtrlC` watched, in this process's life."""
_from_signal: BaseException | None = None
"""What the last counted signal's handler raised, when not a KeyboardInterrupt: a program's
own SIGTERM handler calling `sys.exit()` is how it asks to stop, not user code's exit.
Dropped when the next outermost watch opens."""
_watchers = 0
"""`CtrlC` watches open in the main thread."""
_wrapped: list[tuple[int, Any, Any]] = []
"""(the signal, the handler found, its counting wrapper) while the wrappers are in place."""

COUNTED = (signal.SIGINT, signal.SIGTERM)
"""The signals that stop a run: each is counted as a press."""


class CtrlC:
    """Whether Ctrl-C (or SIGTERM) arrived while one call into user code ran: a context
    manager (`ctrl_c_watched`) whose `raised` tells the press's KeyboardInterrupt from the
    code's own. Only the first watch open in the main thread swaps the handler; the others
    note the count, so a run of fast trials, inside the loop-wide watch of `run_loop`, pays
    no `signal.signal` per call (two of them cost such a trial half its time)."""

    __slots__ = ("at", "reaches")

    def __init__(self, reaches: bool) -> None:
        self.reaches = reaches
        """False where Ctrl-C never arrives (a worker thread, a worker process in a session
        of its own): every KeyboardInterrupt there is the user code's own."""
        self.at = _presses

    def __enter__(self) -> Self:
        global _watchers, _from_signal
        if not self.reaches:
            return self
        if threading.current_thread() is not threading.main_thread():
            self.reaches = False
            return self
        if _watchers == 0:
            _from_signal = None
            for signum in COUNTED:
                found = signal.getsignal(signum)
                if callable(found):  # SIG_IGN / SIG_DFL / None: it raises no KeyboardInterrupt
                    wrapper = counting(found)
                    signal.signal(signum, wrapper)
                    _wrapped.append((signum, found, wrapper))
        _watchers += 1
        self.at = _presses
        return self

    def __exit__(self, *exc_info: object) -> None:
        global _watchers
        if not self.reaches:
            return
        _watchers -= 1
        if _watchers == 0:
            for signum, found, wrapper in _wrapped:
                if signal.getsignal(signum) is wrapper:  # else someone else's since
                    signal.signal(signum, found)
            _wrapped.clear()

    def raised(self, exc: BaseException) -> bool:
        """`exc` is Ctrl-C's KeyboardInterrupt, or what the program's own SIGINT or SIGTERM
        handler raised (`sys.exit()` in it): it stops the run, and is not the user code's."""
        return self.reaches and _presses > self.at and (
            isinstance(exc, KeyboardInterrupt) or raised_by_signal(exc))


def ctrl_c_watched(*, reaches: bool = True) -> CtrlC:
    """The `CtrlC` of one call into user code (or of a whole event loop's, `run_loop`),
    counting presses while it runs; calls that overlap (async user code awaiting) share
    the one counting handler, put back when the last of them ends."""
    return CtrlC(reaches)


def raised_by_signal(exc: BaseException) -> bool:
    """`exc` is what the program's own SIGINT or SIGTERM handler raised (`sys.exit()` in it),
    wherever it surfaced: the program stopping, never a trial's error."""
    return exc is _from_signal


def counting(handler: Callable[[int, FrameType | None], Any]
             ) -> Callable[[int, FrameType | None], Any]:
    """`handler`, counting each signal first (what it raises is then known as a press)."""
    def counted(signum: int, frame: FrameType | None) -> Any:
        global _presses, _from_signal
        _presses += 1
        try:
            return handler(signum, frame)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            _from_signal = exc
            raise

    return counted
