"""One review as every renderer shows it, for tests that hold them all to the same figures.

A number a run prints must read the same wherever it is printed: the terminal, report.md,
report.html, results.json and the viewer's review of the run. Build the review once, then
ask each rendering for the phrase.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console

from assay.records import TrialRecord
from assay.reports.html import render_html
from assay.reports.markdown import render_markdown
from assay.reports.results_json import write_results_json
from assay.reports.terminal import print_review
from assay.review.result import Review
from assay.view.pages import render
from assay.view.run_page import SHOWS, review_context
from tests.view.page_text import page_text


def renderings(review: Review, trials: Sequence[TrialRecord] = ()) -> dict[str, str]:
    """Each renderer's text of `review`, by where a user reads it (HTML read as text)."""
    terminal = io.StringIO()
    print_review(Console(file=terminal, width=240), review, detail="verbose")
    results = io.StringIO()
    write_results_json(results, review, trials)
    viewer = render("review_part.html.j2", run=review.run, shows=SHOWS,
                    **review_context(review))
    return {
        "terminal": terminal.getvalue(),
        "report.md": render_markdown(review, trials),
        "report.html": page_text(render_html(review, trials)),
        "results.json": results.getvalue(),
        "assay view": page_text(bytes(viewer.body).decode()),
    }


def assert_every_rendering_shows(review: Review, *phrases: str,
                                 only: Sequence[str] | None = None) -> dict[str, str]:
    """Every rendering (or those named in `only`) holds every phrase; returns them all."""
    shown = renderings(review)
    missing = [f"{where}: {phrase!r}" for where, text in shown.items()
               if only is None or where in only for phrase in phrases if phrase not in text]
    assert not missing, "missing from: " + "; ".join(missing)
    return shown


def assert_no_rendering_shows(review: Review, *phrases: str) -> None:
    """No rendering holds any of the phrases."""
    found = [f"{where}: {phrase!r}" for where, text in renderings(review).items()
             for phrase in phrases if phrase in text]
    assert not found, "shown in: " + "; ".join(found)
