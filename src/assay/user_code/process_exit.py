"""`os._exit` called by user code running in assay's own process.

`sys.exit()` is an exception, which `user_code.guarded` turns into the trial's
error; `os._exit(0)` is not: it ends the process on the spot, so a target that
called it for one case ended assay with exit code 0 and left the run
unfinished, a failed run that read as a passing one. While a run holds
`exits_guarded()`, `os._exit` in this process is replaced:

- called while user code runs (`running_user_code()`, which `guarded` and
  `await_guarded` enter), it raises `ProcessExitCalled`, a BaseException that
  `except Exception` in the user's code does not catch, and that the guard
  then records as the call's failure (`called os._exit(0)`);
- called anywhere else in this process (a thread the user's code started, a
  module being imported), it ends the process as asked, but never with 0: the
  run did not finish, so it exits 3 (the run could not complete) and says why;
- in another process (a child forked from this one, whose `os._exit` is how it
  ends) it is the real `os._exit`.

What is not an exception cannot be caught this way (a crash, `os.abort`, a
signal): those still end assay, and `isolation: process` is the mode that
survives them.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

UNFINISHED_EXIT = 3
"""The exit code of a run that could not complete (see the CLI's exit codes)."""

_IN_USER_CODE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "assay_in_user_code", default=False)
_real_exit = os._exit
_lock = threading.Lock()
_holders = 0
_pid = 0


class ProcessExitCalled(BaseException):
    """User code called `os._exit(code)` in assay's process: that call's failure."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code

    def __str__(self) -> str:
        return f"called os._exit({self.code!r})"


@contextmanager
def running_user_code() -> Iterator[None]:
    """Mark the calls made inside as user code's (in this thread or task and what it awaits)."""
    token = _IN_USER_CODE.set(True)
    try:
        yield
    finally:
        _IN_USER_CODE.reset(token)


def _guarded_exit(status: int) -> NoReturn:
    if os.getpid() != _pid:
        _real_exit(status)
    if _IN_USER_CODE.get():
        raise ProcessExitCalled(status)
    try:
        sys.stderr.write(f"error: os._exit({status!r}) was called outside any trial (by code a "
                         "target or scorer started) and ended assay before its run finished; "
                         "`assay run CONFIG --resume` continues the run\n")
        sys.stderr.flush()
    finally:
        _real_exit(status if status else UNFINISHED_EXIT)


@contextmanager
def exits_guarded() -> Iterator[None]:
    """Hold `os._exit` replaced (see the module) while a run executes; nested holds share it."""
    global _holders, _pid
    with _lock:
        if _holders == 0:
            _pid = os.getpid()
            os._exit = _guarded_exit
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                os._exit = _real_exit
