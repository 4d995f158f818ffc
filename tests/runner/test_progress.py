"""What the progress line says, and that it says no number it has not measured."""

from __future__ import annotations

import io

from assay.runner.pipeline import PipelineStats
from assay.runner.progress import Progress


def test_the_first_progress_line_shows_no_rate_measured_from_no_trials() -> None:
    """It read '0/30 trials (0%), 0 with an error, 0.0 trials/s' before any trial ended."""
    progress = Progress(30, "exp")
    assert progress.line() == "exp: 0/30 trials (0%), 0 with an error"
    assert progress._fields()["rate"] == ""


def test_a_resumed_run_shows_no_rate_before_its_own_first_trial() -> None:
    progress = Progress(30, "exp", already_done=12)
    assert progress.line() == "exp: 12/30 trials (40%), 0 with an error"


def test_a_rate_and_an_eta_once_trials_have_ended() -> None:
    stream = io.StringIO()
    progress = Progress(30, "exp", stream=stream)
    progress.update(PipelineStats(done=10, errors=1))
    line = progress.line()
    assert line.startswith("exp: 10/30 trials (33%), 1 with an error, ")
    assert " trials/s, ETA " in line


def test_the_share_done_reads_100_percent_only_when_every_trial_has_ended() -> None:
    """Regression: 999 of 1,000 trials read '(100%)' and 1 of 1,000 '(0%)'."""
    progress = Progress(1000, "exp", already_done=999)
    assert progress.line() == "exp: 999/1,000 trials (99%), 0 with an error"
    assert Progress(1000, "exp", already_done=1).line().startswith("exp: 1/1,000 trials (<1%)")
    assert Progress(1000, "exp", already_done=1000).line().startswith(
        "exp: 1,000/1,000 trials (100%)")
