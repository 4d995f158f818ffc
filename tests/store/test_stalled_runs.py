"""Which runs marked running have probably stopped: no progress for a while."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from assay.store.stalled_runs import STALE_AFTER, format_span, quiet_for


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
