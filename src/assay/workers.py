"""Worker threads for blocking calls (a sync target, a sync scorer), owned by the run.

A run gets a `WorkerPool` of its own instead of replacing the event loop's
default executor, so a caller's loop (Jupyter, an app that awaits
`assay.evaluate_async`) is left as it was found. The pool's threads are daemon
threads: Python cannot interrupt a thread, so a call that never returns (a user
function stuck in a loop) only costs its trial a timeout error, and neither
blocks the process at exit nor takes a worker away from the other trials (the
pool lends a new thread in its place until it returns). Lending is bounded:
once more calls than `MIN_LENT` (or 4 per concurrent call) are stuck at once,
the run stops (`RunFailed`, exit 3) rather than queue every later call behind
them, where each would be cut at its deadline without ever running, a timeout
the function never had. The pool in use is found through a
context variable, so targets and scorers need no reference to the runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from typing import Any, TypeVar

from assay.errors import RunFailed
from assay.wording import plural

R = TypeVar("R")

MIN_LENT = 64
"""Stuck calls a pool always lends a thread for, however small its concurrency (4 per
concurrent call above 16)."""

_CURRENT: contextvars.ContextVar[WorkerPool | None] = contextvars.ContextVar(
    "assay_worker_pool", default=None)


class WorkerPool(Executor):
    """Up to `size` daemon threads, started as work arrives; `lend` adds one for a stuck call."""

    def __init__(self, size: int, *, name: str = "assay", max_lent: int | None = None) -> None:
        self._size = max(1, size)
        self._max_lent = max_lent if max_lent is not None else max(4 * self._size, MIN_LENT)
        self._stuck = 0
        """Calls running past their deadline now, each holding its thread."""
        self._name = name
        self._work: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]] | None] = \
            queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Future[R]:
        future: Future[R] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is shut down")
            if self._stuck > self._max_lent:
                raise RunFailed(
                    f"user code (a python target's or scorer's) has {plural(self._stuck, 'call')} "
                    "still running past the timeout, each call holding a thread of assay's; "
                    "later calls would wait behind them and be cut without running. With "
                    "`isolation: process`, a python target's call is killed at its timeout")
            self._work.put((future, lambda: fn(*args, **kwargs)))
            if not self._idle.acquire(blocking=False) and len(self._threads) < self._size:
                thread = threading.Thread(target=self._serve, daemon=True,
                                          name=f"{self._name}-{len(self._threads)}")
                self._threads.append(thread)
                thread.start()
        return future

    def lend(self, call: Future[Any]) -> None:
        """`call` outlived its deadline and keeps its thread: another thread takes its place
        until it returns."""
        with self._lock:
            self._stuck += 1
            self._size += 1
        call.add_done_callback(self._returned)

    def _returned(self, call: Future[Any]) -> None:
        with self._lock:
            self._stuck -= 1
            self._size -= 1

    def _serve(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            future, call = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(call())
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                    future.set_exception(exc)
            del item, future, call
            self._idle.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in threads:
            self._work.put(None)
        if wait:
            for thread in threads:
                thread.join()


@contextmanager
def using(pool: WorkerPool) -> Iterator[WorkerPool]:
    """Make `pool` the one `run_blocking` uses in this context (and the tasks it starts)."""
    token = _CURRENT.set(pool)
    try:
        yield pool
    finally:
        _CURRENT.reset(token)


async def run_blocking(function: Callable[..., R], *args: Any) -> R:
    """Call `function(*args)` in a worker thread of the run's pool and await its result.

    Outside a run (no pool in this context) the loop's default executor is used,
    as `asyncio.to_thread` does. If the awaiting task is cancelled (a timeout)
    while the call runs, its thread is lent away: the call goes on unseen.
    """
    pool = _CURRENT.get()
    context = contextvars.copy_context()
    if pool is None:
        return await asyncio.to_thread(_passable, function, *args)
    future = pool.submit(context.run, _passable, function, *args)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        if not future.cancel():  # already running: its thread is held until it returns
            pool.lend(future)
        raise


def _passable(function: Callable[..., R], *args: Any) -> R:
    """`function(*args)`, with a StopIteration it raises made a RuntimeError: an asyncio
    future cannot take a StopIteration, so the awaiting trial would wait for its deadline
    (Python turns a coroutine's StopIteration into a RuntimeError the same way)."""
    try:
        return function(*args)
    except StopIteration as exc:
        raise RuntimeError("the function raised StopIteration") from exc


_SERVING = threading.local()
"""The event loop the current thread works for, while it runs a job `submit_serving` gave it."""


def submit_serving(executor: Executor, function: Callable[..., R], *args: Any) -> Future[R]:
    """`executor.submit(function, *args)`, the thread marked, while it runs it, as working
    for the running event loop (`served_loop`)."""
    loop = asyncio.get_running_loop()

    def serve() -> R:
        _SERVING.loop = loop
        try:
            return function(*args)
        finally:
            _SERVING.loop = None

    return executor.submit(serve)


def served_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop this thread works for (see `submit_serving`): a wait of its own that
    Ctrl-C is to end (a store's statement, see `store.answer_wait`) watches that loop."""
    return getattr(_SERVING, "loop", None)


def on_loop_when_done(future: Future[R], call: Callable[[Future[R]], None]) -> None:
    """`call(future)` on the running event loop once `future`, run in a thread, ends; not
    at all if the loop has closed by then (a thread ending after the run)."""
    loop = asyncio.get_running_loop()

    def ended(done: Future[R]) -> None:
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(call, done)

    future.add_done_callback(ended)
