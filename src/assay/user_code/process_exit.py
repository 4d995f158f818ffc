"""`os._exit` called by user code running in assay's own process.

`sys.exit()` is an exception, which `user_code.guarded` turns into the trial's
error; `os._exit(0)` is not: it ends the process on the spot, so a target that
called it for one case ended assay with exit code 0 and left the run
unfinished, a failed run that read as a passing one. While a run holds
`exits_guarded()`, `os._exit` in this process is replaced:

- called while user code runs (`running_user_code()`, which `guarded` and
  `await_guarded` enter), it raises `ProcessExitCalled`, a BaseException that
  `except Exception` in the user's code does not catch, and writes the exit on
  that call's own record (`UserCall`). The record travels with the context, so
  an asyncio task the call started and never awaited writes on it too; when the
  call returns, `running_user_code` reads the record and fails the call
  (`called os._exit(0) in a task it started`) however the exception itself was
  swallowed or left unretrieved;
- called anywhere else in this process (a thread the user's code started, a
  module being imported, a task still running after the call that started it
  returned), it ends the process as asked, but never with 0: the run did not
  finish, so it exits 3 (the run could not complete) and says why;
- in another process (a child forked from this one, whose `os._exit` is how it
  ends) it is the real `os._exit`.

What is not an exception cannot be caught this way (a crash, `os.abort`, a
signal): those still end assay, and `isolation: process` is the mode that
survives them.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

UNFINISHED_EXIT = 3
"""The exit code of a run that could not complete (see the CLI's exit codes)."""


@dataclass
class UserCall:
    """One call into user code, while it runs: where it runs and the `os._exit` it made."""

    owner: object
    """The asyncio task or, outside one, the thread the call runs in."""
    exit_called: ProcessExitCalled | None = None
    """The first `os._exit` called in the call, or in a task or thread it handed its
    context to."""
    running: bool = True


_CALL: contextvars.ContextVar[UserCall | None] = contextvars.ContextVar(
    "assay_user_call", default=None)
_real_exit = os._exit
_lock = threading.Lock()
_holders = 0
_pid = 0


class ProcessExitCalled(BaseException):
    """User code called `os._exit(code)` in assay's process: that call's failure."""

    def __init__(self, code: int, where: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.where = where

    def __str__(self) -> str:
        return f"called os._exit({self.code!r})" + (f" {self.where}" if self.where else "")


def _running_in() -> object:
    """The asyncio task running now or, outside one, the current thread."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        task = None
    return task if task is not None else threading.current_thread()


@contextmanager
def running_user_code() -> Iterator[None]:
    """Mark the calls made inside as user code's (in this thread or task, what it awaits and
    the tasks it starts). An `os._exit` made there ends the block in `ProcessExitCalled`,
    even when the code caught it or a task it never awaited raised it."""
    call = UserCall(owner=_running_in())
    token = _CALL.set(call)
    try:
        yield
    except Exception as exc:
        if call.exit_called is not None:  # its os._exit came first, what it raised after
            raise call.exit_called from exc
        raise
    finally:
        call.running = False
        _CALL.reset(token)
    if call.exit_called is not None:
        raise call.exit_called


def _guarded_exit(status: int) -> NoReturn:
    if os.getpid() != _pid:
        _real_exit(status)
    call = _CALL.get()
    if call is not None and call.running:
        raise _recorded_on(call, status)
    try:
        sys.stderr.write(f"error: os._exit({status!r}) was called outside any trial (by code a "
                         "target or scorer started) and ended assay before its run finished; "
                         "`assay run CONFIG --resume` continues the run\n")
        sys.stderr.flush()
    finally:
        _real_exit(status if status else UNFINISHED_EXIT)


def _recorded_on(call: UserCall, status: int) -> ProcessExitCalled:
    """The exit to raise where `os._exit` was called, written on the call's record first. A
    task the call started and never awaited has its exception retrieved (the trial reports
    it), so asyncio does not print 'Task exception was never retrieved' about it."""
    here = _running_in()
    where = ""
    if here is not call.owner:
        where = "in a task it started" if isinstance(here, asyncio.Task) else (
            "in a thread it started")
        if isinstance(here, asyncio.Task):
            here.add_done_callback(_retrieve)
    called = ProcessExitCalled(status, where)
    if call.exit_called is None:
        call.exit_called = called
    return called


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


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
