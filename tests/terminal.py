"""Child processes started as from a terminal, whatever state the test runner leaves."""

from __future__ import annotations

import signal


def as_at_a_terminal() -> None:
    """`preexec_fn` of a child that is sent Ctrl-C: SIGINT delivered and handled as at a
    terminal, though the test runner's process may have left it ignored or blocked (both are
    inherited by a child)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
