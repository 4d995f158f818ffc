"""One call in a process of its own, for reviews too big to compute beside the pages.

A review of a 100,000-trial run is seconds of pure Python. In the app's own
process it would hold the interpreter lock, and every page asked for in the
meantime would wait on it. In a spawned process it uses the other core, and
the pages stay quick. The process is started for the call and ends with it;
`kill` stops it early (when the app shuts down).
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

from assay.errors import AssayError


class WorkerDied(AssayError):
    """The worker process ended without handing back a result."""

    exit_code = 3


class Worker:
    """Runs `function(*args)` in a spawned process (module-level function, picklable args)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[Any] = set()
        self._closed = False

    def call(self, function: Callable[..., Any], *args: Any) -> Any:
        """Its result, or the exception it raised, raised here."""
        context = multiprocessing.get_context("spawn")
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(sender, function, args), daemon=True,
                                  name="assay-view-review")
        with self._lock:
            if self._closed:
                raise WorkerDied("the viewer is shutting down")
            process.start()
            self._running.add(process)
        sender.close()
        try:
            ok, value = receiver.recv()
        except EOFError:
            process.join()
            raise WorkerDied(f"the review process ended without a result "
                             f"(exit code {process.exitcode})") from None
        finally:
            receiver.close()
            with self._lock:
                self._running.discard(process)
        process.join()
        if not ok:
            raise value
        return value

    def kill(self) -> None:
        """Stop every call in flight; later calls are refused."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for process in running:
            process.kill()


def _child(sender: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        sender.send((True, function(*args)))
    except BaseException as exc:  # noqa: BLE001 - handed back to the caller, raised there
        sender.send((False, exc))
    finally:
        sender.close()
