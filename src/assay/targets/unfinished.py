"""What a target had done when its trial's deadline cut it short.

A trial that times out returns no Output, yet an agent may have made model
calls and tool calls by then, and may be waiting on one tool that hangs. The
runner watches each answer (`Unfinished`, a context variable, like the usage
meter); a target that can say what it has done so far registers a function
that builds that Output (`report_so_far`), called only if the deadline passes.
The trial then keeps the trajectory up to the cut, its tool calls count where
the run's counts are read, and its error says what the target was waiting on.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Self

from assay.output import Output, Usage

SoFar = Callable[[], Output]
"""The target's Output up to now; its `error`, if any, says what it was waiting on."""

_WATCHING: ContextVar[Unfinished | None] = ContextVar("assay_unfinished", default=None)


class Unfinished:
    """`with Unfinished() as watch:` around a target's answer; after a timeout,
    `watch.cut_short(...)` is the trial's Output."""

    __slots__ = ("_token", "so_far")

    def __init__(self) -> None:
        self.so_far: SoFar | None = None
        self._token: Token[Unfinished | None] | None = None

    def __enter__(self) -> Self:
        self._token = _WATCHING.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _WATCHING.reset(self._token)

    def cut_short(self, error: str, usage: Usage) -> Output:
        """The trial's Output: what the target reported so far (if anything) with `error`
        first and the usage the meter counted."""
        if self.so_far is None:
            return Output(error=error, usage=usage)
        output = self.so_far()
        output.error = f"{error}; {output.error}" if output.error else error
        output.usage = usage
        return output


def report_so_far(so_far: SoFar) -> None:
    """Register how to build the current trial's Output should its deadline pass (a no-op
    outside a watched trial)."""
    watching = _WATCHING.get()
    if watching is not None:
        watching.so_far = so_far
