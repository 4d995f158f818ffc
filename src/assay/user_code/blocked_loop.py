"""One Ctrl-C stops a run whose user code is blocking the event loop.

asyncio's first Ctrl-C only cancels the run's task, which runs again only when the loop
does: a `threaded: false` target or an `async def` that calls `time.sleep(60)` (or any
blocking call) holds the loop, so the press did nothing visible for a minute and only a
second one, raising KeyboardInterrupt where the code stood, stopped the run. Here the
first press also asks the loop to answer; when it has not within `ANSWER_SECONDS` and
user code is what holds it (a guarded call is on the main thread's stack), the press is
made the second one, at once: the KeyboardInterrupt lands in the user code, which
`calls.guarded` knows as Ctrl-C's, and the run ends as interrupted (its finished trials
stored, `--resume` goes on). When assay's own work holds the loop, nothing is raised into
it; a line says a second Ctrl-C stops the run at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

ANSWER_SECONDS = 1.0
"""How long the loop has to answer after Ctrl-C before it is taken as blocked."""
USER_CALL_FRAMES = {"call", "await_guarded"}
"""The frames of `calls.guarded`'s wrapper and `calls.await_guarded`: on the main thread's
stack only while user code runs there."""
CALLS_FILE = "calls.py"


@contextlib.contextmanager
def blocked_loop_stopped(loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While the loop runs a run, a Ctrl-C it cannot answer because user code holds it
    stops that code (see the module)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    found = signal.getsignal(signal.SIGINT)
    if not callable(found):  # ignored by whoever started assay, or not Python's to handle
        yield
        return
    ended = threading.Event()
    wrapper = _watching(found, loop, ended)
    signal.signal(signal.SIGINT, wrapper)
    try:
        yield
    finally:
        ended.set()
        if signal.getsignal(signal.SIGINT) is wrapper:  # else someone else's since
            signal.signal(signal.SIGINT, found)


def _watching(handler: Callable[[int, FrameType | None], Any], loop: asyncio.AbstractEventLoop,
              ended: threading.Event) -> Callable[[int, FrameType | None], Any]:
    """`handler`, which on the first press also starts the watch of the loop, until the run
    has `ended`."""
    started = threading.Event()

    def on_ctrl_c(signum: int, frame: FrameType | None) -> Any:
        if not started.is_set():
            started.set()
            threading.Thread(target=_stop_if_blocked, args=(loop, threading.main_thread(), ended),
                             name="assay-ctrl-c", daemon=True).start()
        return handler(signum, frame)

    return on_ctrl_c


def _stop_if_blocked(loop: asyncio.AbstractEventLoop, main: threading.Thread,
                     ended: threading.Event) -> None:
    """Wait for the loop's answer; unanswered, stop the user code holding it, or say that
    a second Ctrl-C stops the run at once (nothing once the run has ended: a loop that
    stopped answers no more)."""
    answered = threading.Event()
    try:
        loop.call_soon_threadsafe(answered.set)
    except RuntimeError:  # the loop is closed: the run has stopped
        return
    if answered.wait(ANSWER_SECONDS) or ended.is_set() or main.ident is None:
        return
    if user_code_holds(main.ident) and hasattr(signal, "pthread_kill"):
        _say("Ctrl-C: the target's code is blocking the event loop (a blocking call in an "
             "`async def` or a `threaded: false` function), so the run could not stop "
             "between trials; stopping it there")
        signal.pthread_kill(main.ident, signal.SIGINT)  # as a second Ctrl-C
        return
    _say(f"Ctrl-C: stopping; the run has not answered for {ANSWER_SECONDS:g}s "
         "(work that blocks the event loop is in progress): press Ctrl-C again to stop it "
         "at once")


def user_code_holds(thread_id: int) -> bool:
    """A call into user code is on the thread's stack: that code is what runs there now."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        code = frame.f_code
        if code.co_name in USER_CALL_FRAMES and code.co_filename.endswith(CALLS_FILE) \
                and frame.f_globals.get("__name__") == "assay.user_code.calls":
            return True
        frame = frame.f_back
    return False


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed or gone
        pass
