"""Which runs marked running have probably stopped: no progress for a while."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from assay.case import Case
from assay.output import Output
from assay.store import Store, schema
from assay.store.stalled_runs import STALE_AFTER, format_span, quiet_for, stalled_runs
from assay.trial import TrialResult


def test_progress_is_the_newest_trial_or_the_start() -> None:
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    class Run:
        started_at = "2026-01-01T10:00:00+00:00"

    assert quiet_for(Run(), None, now) == timedelta(hours=2)  # type: ignore[arg-type]
    assert quiet_for(Run(), "2026-01-01T11:55:00+00:00", now) is None  # type: ignore[arg-type]
    assert quiet_for(Run(), "2026-01-01T11:45:00+00:00", now) == timedelta(minutes=15)  # type: ignore[arg-type]
    at_limit = (now - STALE_AFTER).isoformat()
    assert quiet_for(Run(), at_limit, now) is None  # type: ignore[arg-type]
    assert [format_span(timedelta(minutes=m)) for m in (12, 119, 180, 3 * 24 * 60)] == [
        "12m", "119m", "3h", "3d"]


def test_a_run_resumed_long_after_it_stopped_is_not_quiet_while_its_resume_runs(
        store: Store) -> None:
    """Regression: a run killed a day ago and resumed read 'running? (no progress for 1d:
    killed?)' in assay runs and assay view until its resume stored a first trial, minutes
    on with a slow agent, though its resume held the run and was working."""
    day_ago = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    store.create_run(id="r1", experiment="e", status="running", started_at=day_ago)
    store.write_trials("r1", [TrialResult(Case(id="c1", input="q"), "a", 0, Output(text="x"))])
    with store.engine.begin() as conn:  # its trials stored the day it was stopped
        conn.execute(update(schema.trials).values(finished_at=day_ago))
    assert "r1" in stalled_runs(store, store.list_runs())  # stopped, nobody resumed it
    with store.run_lock() as resume:
        resume.acquire("r1")
        assert stalled_runs(store, store.list_runs()) == {}
