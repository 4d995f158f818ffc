"""A Ctrl-C the event loop cannot answer: user code holding the loop is stopped at once, as
by a second press; assay's own work holding it is never interrupted, and a line says so."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType

import pytest

from assay.user_code.blocked_loop import blocked_loop_stopped
from assay.user_code.calls import guarded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _presses_while(blocking: Callable[[], None]) -> list[int]:
    """The SIGINTs a handler that raises nothing saw when one Ctrl-C came as `blocking` (run
    on the loop) began."""
    presses: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        presses.append(signum)

    async def main() -> None:
        with blocked_loop_stopped(asyncio.get_running_loop()):
            signal.raise_signal(signal.SIGINT)
            blocking()

    before = signal.signal(signal.SIGINT, handler)
    try:
        asyncio.run(main())
    finally:
        signal.signal(signal.SIGINT, before)
    return presses


def test_user_code_holding_the_loop_gets_the_second_press_at_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    presses = _presses_while(guarded(lambda: time.sleep(2)))
    assert presses == [signal.SIGINT, signal.SIGINT]
    assert "Ctrl-C: the target's code is blocking the event loop" in capsys.readouterr().err


def test_assays_own_work_holding_the_loop_is_not_interrupted_and_a_second_press_is_asked(
        capsys: pytest.CaptureFixture[str]) -> None:
    presses = _presses_while(lambda: time.sleep(2))
    assert presses == [signal.SIGINT]
    assert ("Ctrl-C: stopping; the run has not answered for 1s (work that blocks the event "
            "loop is in progress): press Ctrl-C again to stop it at once") in \
        capsys.readouterr().err

