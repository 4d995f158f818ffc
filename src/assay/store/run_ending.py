"""How a run ended, recorded on its row: one mapping from what stopped it to its status.

`assay run` and `assay rejudge` both record their runs this way, so a run
stopped by the error budget reads `aborted`, one stopped by Ctrl-C, or by the
exit of the program that runs it (its own SIGTERM handler calling `sys.exit`), reads
`interrupted`, and anything else `failed` with its cause, whichever command made it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from assay.errors import RunFailed, StoreError
from assay.records import RunRecord
from assay.store.rows import now_iso
from assay.store.stalled_runs import UNDER_WAY, status_said
from assay.store.store import Store
from assay.wording import part_of

REVIEWING = "reviewing"
"""Every trial is stored; the review (summary, comparisons, files) comes next."""


def ending(exc: BaseException) -> tuple[str, str]:
    """(status, error) of a run that `exc` stopped."""
    if isinstance(exc, RunFailed):
        return "aborted", str(exc)
    if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
        return "interrupted", "interrupted by the user"
    if isinstance(exc, SystemExit):  # user code's own exit is its trial's error, never here:
        # this is the program around `assay.evaluate` exiting (its SIGTERM handler)
        return "interrupted", f"stopped as the program exited (sys.exit({exc.code!r}))"
    return "failed", f"{type(exc).__name__}: {exc}"


def record_end(store: Store, run_id: str, status: str, error: str | None) -> None:
    """Record how the run ended; when it failed, a store that fails too does not hide why."""
    try:
        store.update_run(run_id, status=status, finished_at=now_iso(), error=error)
    except StoreError:
        if status == REVIEWING:
            raise


@contextmanager
def ended_if_stopped(store: Store, run_id: str) -> Iterator[None]:
    """Whatever stops the review of a run (a bad gate, a file that cannot be written, Ctrl-C)
    records how the run ended, so no run is left `reviewing`; a resume reviews it again."""
    try:
        yield
    except BaseException as exc:
        record_end(store, run_id, *ending(exc))
        raise


@dataclass(frozen=True, slots=True)
class Unfinished:
    """An experiment's latest run, which did not finish and which no live process holds."""

    run: RunRecord
    how: str
    """`its process is gone`, or `it was interrupted` (aborted, failed); for
    `how_unfinished`, `still running`, `marked running, but ...` or `aborted; resume with:
    ...`."""
    stored: int
    """Its trials stored so far."""

    @property
    def stored_trials(self) -> str:
        """`120 of 500 trials`: its trials stored so far, of all it plans (when that is
        known)."""
        return part_of(self.stored, self.run.total_trials, "trial")


def left_unfinished(store: Store, experiment: str) -> Unfinished | None:
    """The experiment's latest eval run when it did not finish and nothing is running it
    (killed with kill -9, stopped by Ctrl-C or an error); None otherwise, and for a run
    another process still holds or whose end is not yet known."""
    latest = store.list_runs(experiment, kind="eval", limit=1)
    return unfinished_latest(store, latest[0] if latest else None)


def unfinished_latest(store: Store, run: RunRecord | None) -> Unfinished | None:
    """`left_unfinished`, of an experiment's latest eval run already read (None: it has
    none)."""
    if run is None or run.status == "completed":
        return None
    if run.status in UNDER_WAY:  # killed while it ran, or while its files were written
        if not store.run_lock().holder_gone(run.id):
            return None
        how = "its process is gone"
    else:
        how = f"it was {run.status}"
    return Unfinished(run, how, store.count_trials(run.id)[0])


def how_unfinished(store: Store, run: RunRecord) -> Unfinished | None:
    """How a run that did not complete stands, whoever holds it (None once completed): under
    way, under way by its status but probably stopped (`stalled_runs`: a run killed with
    kill -9 still reads `running`), or stopped, with the command that resumes it."""
    if run.status == "completed":
        return None
    said = status_said(store, run)
    if said != run.status:
        how = said
    elif run.status in UNDER_WAY:
        how = f"still {run.status}"
    else:
        how = f"{run.status}; resume with: {run.resume_command}"
    return Unfinished(run, how, store.count_trials(run.id)[0])
