"""Which runs marked `running` or `reviewing` have probably stopped: a guess from the outside.

A run killed with kill -9, or on a machine that went away, stays `running` (or
`reviewing`, killed while its report files were written) in the store. Its lock
tells whether the process that held it is gone (`run_lock`); a running run with
no stored trial for `STALE_AFTER` has probably been killed too (a review stores
no trial, so only its lock tells). `assay runs` marks such a run `running?` (or
`reviewing?`) and `assay view` shows it so, instead of following a progress
that will never come. The store is read, never changed: the run's status is
left for `--resume` to settle.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from assay.run_status import shown_status

if TYPE_CHECKING:
    from collections.abc import Iterable

    from assay.records import RunRecord
    from assay.store.store import Store

UNDER_WAY = ("running", "reviewing")
"""The statuses of a run some process is working on."""

STALE_AFTER = timedelta(minutes=10)
"""A `running` run with no stored trial for this long has probably been killed."""


@dataclass(frozen=True, slots=True)
class Stalled:
    """A run under way that nothing seems to be running, and why it seems so."""

    run_id: str
    status: str
    """`running` or `reviewing`, as its row says."""
    process_gone: bool
    """Its lock was left by a process that is gone (or stopped beating)."""
    quiet: timedelta | None
    """How long it has stored no trial, when that is over `STALE_AFTER`."""

    @property
    def shown_status(self) -> str:
        """`running?`: the status, doubted."""
        return shown_status(self.status, stalled=True)

    def reason(self) -> str:
        """`the process that ran it is gone: killed? resume with --resume ID`."""
        why = ("the process that ran it is gone" if self.process_gone or self.quiet is None
               else f"no progress for {format_span(self.quiet)}")
        return f"{why}: killed? resume with --resume {self.run_id}"


def stalled_runs(store: Store, runs: Iterable[RunRecord], now: datetime | None = None
                 ) -> dict[str, Stalled]:
    """The runs among `runs` marked `running` or `reviewing` that have probably stopped, by
    id."""
    now = now or datetime.now(UTC)
    locks = store.run_lock()
    found = {}
    for run in runs:
        if run.status not in UNDER_WAY:
            continue
        holder = locks.holder(run.id)
        gone = locks.is_gone(holder)
        quiet = (quiet_for(run, store.last_trial_at(run.id), now,
                           taken_at=holder.taken_at if holder else None)
                 if run.status == "running" else None)
        if gone or quiet is not None:
            found[run.id] = Stalled(run.id, run.status, gone, quiet)
    return found


def status_said(store: Store, run: RunRecord) -> str:
    """The run's status as a sentence may say it: as its row says (`running`, `aborted`),
    or, for a run that has probably stopped, `marked running, but the process that ran it
    is gone: killed? resume with --resume ID`. A run killed with kill -9 still reads
    `running`, and "the run is running" would say it is."""
    stalled = stalled_runs(store, [run]).get(run.id)
    return run.status if stalled is None else f"marked {run.status}, but {stalled.reason()}"


def quiet_for(run: RunRecord, last_trial_at: str | None, now: datetime,
              taken_at: str | None = None) -> timedelta | None:
    """How long a `running` run has made no progress, when that is over STALE_AFTER; else None.

    Progress is the newest stored trial, or the start for a run with none yet; a resumed
    run starts again when its resume took it (`taken_at`, its lock's), so one stopped a
    day ago does not read as quiet for a day while its resume waits for a first answer.
    """
    last = max(_parse(stamp) for stamp in (run.started_at, last_trial_at, taken_at) if stamp)
    quiet = now - last
    return quiet if quiet > STALE_AFTER else None


def format_span(span: timedelta) -> str:
    minutes = int(span.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes}m"
    return f"{minutes // 60}h" if minutes < 48 * 60 else f"{minutes // (24 * 60)}d"


def _parse(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
