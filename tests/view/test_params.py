"""A page's query read into what the store is asked for."""

from __future__ import annotations

from pathlib import Path

from assay.store import Store
from assay.view.params import run_filter


def test_a_time_with_an_offset_picks_runs_by_the_moment_it_names_not_its_clock_reading(
        tmp_path: Path) -> None:
    """Regression: `?until=2026-11-24T12:00+05:00` (07:00 UTC) listed a run started at
    10:36 UTC, and `?since=2026-11-24T08:00-05:00` (13:00 UTC) did too: the times were
    compared as text with start times kept in UTC."""
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="e", started_at="2026-11-24T10:36:39.830690+00:00")
    try:
        def listed(**query: str) -> list[str]:
            return [run.id for run in store.runs_page(run_filter(query))]

        assert listed(until="2026-11-24T12:00+05:00") == []
        assert listed(since="2026-11-24T08:00-05:00") == []
        assert listed(since="2026-11-24T15:00+05:00", until="2026-11-24T11:00+00:00") == ["r1"]
        assert listed(since="2026-11-24T10:36", until="2026-11-24T10:36") == ["r1"]
        assert listed(since="2026-11-24", until="2026-11-24") == ["r1"]
    finally:
        store.close()
