"""PostgreSQL connections that wait a bounded time for the server's answer.

A server that stops answering a connection already open (a stopped or hung
process, whose host still acknowledges every packet, so TCP notices nothing)
held the statement, and with it `assay run`, its Ctrl-C and its exit, for
ever: libpq waits without end, and the connect and lock timeouts
(`store_address`) cover only a connection's start and another session's
locks. A statement's answer is now awaited `ANSWER_WAIT_SECONDS` at most;
then its connection is closed and the store has stopped answering. From then
on, for `SILENCE_KEPT_SECONDS`, every statement of that store fails at once
instead of waiting again, so ending the run (recording how it stopped,
releasing its lock) takes no wait per step; after that a statement tries the
server again, so a store that lives on (`assay view`, a Store a notebook
hands to each `assay.evaluate`) reads again once the server answers. Ctrl-C,
which cannot reach the event loop a statement holds, ends the statement's
wait too once it has lasted `STOPPED_WAIT_SECONDS`, and so
does a second Ctrl-C, at which psycopg closes the connection.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Generator
from typing import Any

from sqlalchemy import Engine, event

from assay.workers import served_loop

STOPPED_WAITING = "no answer to a statement before assay was stopped"

STOPPED_WAIT_SECONDS = 5.0
"""How long a statement may wait for its answer once Ctrl-C has asked assay to stop: a
healthy server's answer (the trials that finished, committed on the way out) comes in
time, a hung server's wait is given up."""

ANSWER_WAIT_SECONDS = 120.0
"""How long one statement may wait for the server's answer: well past a lock wait
(`store_address.LOCK_WAIT_SECONDS`, which the server itself ends) and any statement assay
makes (large reads stream in parts, each a statement's wait of its own)."""


SILENCE_KEPT_SECONDS = 10.0
"""How long after a statement got no answer the store's statements fail at once: ending a
run takes a few of them, well within it; a later page or evaluate tries the server again."""


def answering_within(engine: Engine) -> None:
    """Make `engine`'s psycopg connections give up on an answer after `ANSWER_WAIT_SECONDS`,
    and, for `SILENCE_KEPT_SECONDS` after one has not, fail at once (see the module)."""
    if engine.dialect.name != "postgresql" or engine.dialect.driver != "psycopg":
        return
    import psycopg

    silent: list[tuple[str, float]] = []
    """Why the server is taken to have stopped answering, and when, once it has."""

    def still_silent() -> str | None:
        """Why statements fail at once now; None once `SILENCE_KEPT_SECONDS` have passed."""
        if silent and time.monotonic() - silent[0][1] >= SILENCE_KEPT_SECONDS:
            silent.clear()
        return silent[0][0] if silent else None

    class NoAnswer(psycopg.OperationalError):
        """The server gave no answer in time: a driver's error, so SQLAlchemy drops the
        connection and the store names the failure (`failures.store_failure`)."""

    class Answering(psycopg.Connection):
        """A connection whose every wait for the server ends (see the module)."""

        def wait(self, gen: Any, *args: Any, **kwargs: Any) -> Any:
            if (reason := still_silent()) is not None:
                gen.close()
                self.pgconn.finish()
                raise NoAnswer(reason)
            try:
                return super().wait(_answered_within(gen, ANSWER_WAIT_SECONDS, NoAnswer),
                                    *args, **kwargs)
            except NoAnswer as exc:
                silent[:] = [(str(exc), time.monotonic())]
                self.pgconn.finish()  # its answer may still come, to a statement now gone
                raise
            except (KeyboardInterrupt, SystemExit):
                if self.closed and not silent:  # psycopg gave up on it at Ctrl-C
                    silent.append((STOPPED_WAITING, time.monotonic()))
                raise

    @event.listens_for(engine, "do_connect")
    def connect(dialect: Any, record: Any, cargs: Any, cparams: Any) -> Any:
        if (reason := still_silent()) is not None:
            raise NoAnswer(reason)
        return Answering.connect(*cargs, **cparams)



def _cancellations() -> int | None:
    """The cancellations pending over the tasks of this thread's running event loop, or of
    the loop this thread works for (a batch of trials committed, a cache lookup: see
    `workers.submit_serving`); None outside either. While a statement holds the loop, or
    the loop waits for the thread's statement, only a signal's handler (Ctrl-C, SIGTERM:
    the runner cancels its main task) can add to them."""
    try:
        tasks = asyncio.all_tasks()
    except RuntimeError:
        loop = served_loop()
        if loop is None or loop.is_closed():
            return None
        tasks = asyncio.all_tasks(loop)
    return sum(task.cancelling() for task in tasks)


def _answered_within(gen: Generator[Any, Any, Any], seconds: float,
                     no_answer: type[Exception]) -> Generator[Any, Any, Any]:
    """`gen` (psycopg's protocol: it yields what it waits on, is sent what is ready), ending
    in `no_answer` once `seconds` have passed without its finishing, or once Ctrl-C has
    asked the event loop this statement holds to stop and `STOPPED_WAIT_SECONDS` have
    passed. psycopg's waits wake at least ten times a second (to notice Ctrl-C), so either
    is seen on time."""
    started = time.monotonic()
    try:
        waiting_on = next(gen)
    except StopIteration as finished:  # done without waiting
        return finished.value
    cancelled: int | None = None
    """The cancellations pending in this thread's event loop when the server first kept it
    waiting (None: no loop, or not yet)."""
    while True:
        ready = yield waiting_on
        waited = time.monotonic() - started
        if waited >= seconds:
            gen.close()
            raise no_answer(f"no answer to a statement within {seconds:g}s")
        if not ready:  # a wake with nothing to read: the server keeps the loop waiting
            now = _cancellations()
            if cancelled is None:
                cancelled = now
            elif now is not None and now > cancelled and waited >= STOPPED_WAIT_SECONDS:
                gen.close()
                raise no_answer(STOPPED_WAITING)
        try:
            waiting_on = gen.send(ready)
        except StopIteration as finished:
            return finished.value
