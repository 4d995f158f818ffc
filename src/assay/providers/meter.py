"""The calls answered for one piece of work (a target's answer, a scorer's verdict) so far.

A target or a judge reports the usage of its calls when it returns. Work cut
short (its deadline passed, or it raised) returns nothing, yet the calls it
was answered were paid for and are in the run's ledger: the runner reads them
from the meter instead, so the trial's stored tokens and cost agree with what
was spent. The ledger counts every answered call into the meter of the work
that made it (a context variable, so a task the work starts counts too).
"""

from __future__ import annotations

from contextvars import ContextVar, Token

from assay.output import Usage

_METER: ContextVar[Usage | None] = ContextVar("assay_usage_meter", default=None)


class metered:
    """`with metered(usage):` every call answered inside (a cache hit too) is added to
    `usage`. A class rather than a generator: it wraps every trial and every awaited
    score, and costs a third as much."""

    __slots__ = ("_token", "usage")

    def __init__(self, usage: Usage) -> None:
        self.usage = usage
        self._token: Token[Usage | None] | None = None

    def __enter__(self) -> Usage:
        self._token = _METER.set(self.usage)
        return self.usage

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _METER.reset(self._token)


def count_call(usage: Usage) -> None:
    """Add one answered call's usage to the meter of the work that made it, if any."""
    meter = _METER.get()
    if meter is not None:
        meter.add(usage)
