"""Cases side by side of one run: the filters read the run as its review does."""

from __future__ import annotations

import html
import re
from pathlib import Path

import httpx

from tests.view.page_text import page_text
from tests.view.stores import AGENT, BASELINE, FLIPPED, write_run


def _cases(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r'<tr class="case-row[^"]*" data-case="([^"]*)"',
                                                 page)]


def _store_with_baseline(tmp_path: Path, baseline: str | None) -> str:
    """One run whose AGENT condition fails the FLIPPED cases that BASELINE passes, its review
    having compared the conditions with `baseline` (`assay run --baseline`)."""
    from assay.store import Store

    url = str(tmp_path / "assay.db")
    store = Store(url)
    write_run(store, "run-b", started="2025-03-02T09:00:00+00:00", flips=FLIPPED)
    store.update_run("run-b", review={"gates": [], "warnings": [], "usage": {},
                                      "baseline": baseline})
    store.close()
    return url


def test_regressed_reads_the_baseline_the_run_was_compared_with(tmp_path: Path) -> None:
    """A run reviewed with `--baseline tools` said 'Conditions compared with tools' and
    0 losses on its page, while its 'regressed' link listed the cases that regressed against
    the first condition instead (2 cases the run's comparisons count as wins)."""
    from assay.testing.viewer import serving

    url = _store_with_baseline(tmp_path, AGENT)
    with serving(url) as viewer:
        page = httpx.get(f"{viewer}runs/run-b/cases", params={"show": "regressed"}).text
        chosen = httpx.get(f"{viewer}runs/run-b/cases",
                           params={"show": "regressed", "baseline": BASELINE}).text
    assert _cases(page) == [], _cases(page)
    assert f"baseline the run's ({AGENT})" in page_text(page)
    assert sorted(_cases(chosen)) == sorted(FLIPPED)


def test_regressed_reads_the_first_condition_of_a_run_compared_with_its_first(
        tmp_path: Path) -> None:
    from assay.testing.viewer import serving

    url = _store_with_baseline(tmp_path, None)
    with serving(url) as viewer:
        page = httpx.get(f"{viewer}runs/run-b/cases", params={"show": "regressed"}).text
    assert sorted(_cases(page)) == sorted(FLIPPED)
    assert f"baseline the run's ({BASELINE})" in page_text(page)


def test_a_run_stopped_before_its_summary_lists_its_conditions_as_its_review_does(
        tmp_path: Path) -> None:
    """An interrupted run of conditions `zeta` then `alpha` was compared with `zeta` (its
    trials came first) while its cases page ordered the conditions by name and read
    'regressed' against `alpha`: the cases it listed were the review's wins."""
    from assay.review.finish import review_stored
    from assay.store import Store
    from assay.testing.viewer import serving
    from tests.view.stores import trial

    url = str(tmp_path / "assay.db")
    store = Store(url)
    store.create_run(id="run-stopped", experiment="stopped", status="interrupted",
                     started_at="2025-03-03T09:00:00+00:00", total_trials=12,
                     config={"name": "stopped", "conditions": {"zeta": {}, "alpha": {}}})
    store.write_trials("run-stopped", [trial(i, "zeta", passed=True) for i in range(3)])
    store.write_trials("run-stopped", [trial(i, "alpha", passed=i != 1) for i in range(3)])
    run = store.get_run("run-stopped")
    assert run is not None
    compared_with = review_stored(store, run).comparisons.baseline
    store.close()
    with serving(url) as viewer:
        page = httpx.get(f"{viewer}runs/run-stopped/cases", params={"show": "regressed"}).text
    assert compared_with == "zeta"
    assert "baseline the run's (zeta)" in page_text(page)
    assert _cases(page) == ["case-1"]
