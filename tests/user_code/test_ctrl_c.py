"""Ctrl-C's KeyboardInterrupt told apart from one that user code raises itself."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from assay.user_code.ctrl_c import CtrlC, ctrl_c_watched

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def interrupting() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as in a fresh Python process."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def caught(ctrl_c: CtrlC, press: bool) -> bool:
    """Whether `ctrl_c` takes what the code it watches raised for Ctrl-C."""
    try:
        if press:
            signal.raise_signal(signal.SIGINT)
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        return ctrl_c.raised(exc)


@pytest.mark.usefixtures("interrupting")
def test_a_keyboard_interrupt_raised_in_code_is_not_ctrl_c_but_one_a_press_raises_is() -> None:
    with ctrl_c_watched() as ctrl_c:
        assert not caught(ctrl_c, press=False)
    with ctrl_c_watched() as ctrl_c:
        assert caught(ctrl_c, press=True)


@pytest.mark.usefixtures("interrupting")
def test_a_press_before_the_call_began_is_not_this_calls() -> None:
    with ctrl_c_watched(), pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    with ctrl_c_watched() as ctrl_c:
        assert not caught(ctrl_c, press=False)


@pytest.mark.usefixtures("interrupting")
def test_where_ctrl_c_never_arrives_every_keyboard_interrupt_is_the_codes_own() -> None:
    with ctrl_c_watched(reaches=False) as ctrl_c:
        assert not caught(ctrl_c, press=True)
    seen: list[bool] = []

    def in_a_thread() -> None:
        with ctrl_c_watched() as ctrl_c:
            seen.append(ctrl_c.raised(KeyboardInterrupt()))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [False]


def test_the_handler_found_is_back_once_the_last_overlapping_call_ends() -> None:
    """Async calls overlap (one awaits while another runs): the handler the first found is
    put back when the last ends, whatever order they end in."""
    presses: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        presses.append(signum)

    before = signal.signal(signal.SIGINT, handler)
    try:
        first, second = ctrl_c_watched(), ctrl_c_watched()
        first.__enter__()
        second.__enter__()
        assert signal.getsignal(signal.SIGINT) is not handler
        first.__exit__(None, None, None)
        signal.raise_signal(signal.SIGINT)  # still counted and still handled
        assert presses == [signal.SIGINT]
        second.__exit__(None, None, None)
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("interrupting")
def test_calls_inside_an_open_watch_swap_no_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's event loop is watched throughout (`run_loop`), so each trial's call only
    notes the count: swapping the handler around every call cost fast trials half their
    time. A press is still told apart in each call."""
    with ctrl_c_watched():
        swaps: list[int] = []
        real_signal = signal.signal
        monkeypatch.setattr(signal, "signal", lambda *a: swaps.append(1) or real_signal(*a))
        for _ in range(100):
            with ctrl_c_watched() as ctrl_c:
                assert not caught(ctrl_c, press=False)
        with ctrl_c_watched() as ctrl_c:
            assert caught(ctrl_c, press=True)
        assert swaps == []
        monkeypatch.undo()


@pytest.mark.usefixtures("interrupting")
def test_a_run_loop_swaps_handlers_as_often_for_a_hundred_calls_as_for_ten(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.user_code.calls import guarded, run_loop

    real_signal = signal.signal

    def swaps_for(calls: int) -> int:
        swaps: list[int] = []
        monkeypatch.setattr(signal, "signal", lambda *a: swaps.append(1) or real_signal(*a))
        call = guarded(lambda: None)

        async def trials() -> None:
            for _ in range(calls):
                call()

        run_loop(trials())
        monkeypatch.undo()
        return len(swaps)

    assert swaps_for(100) == swaps_for(10)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
