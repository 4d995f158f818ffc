"""What the progress line says, and that it says no number it has not measured."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.progress import TimeRemainingColumn

from assay.providers.ledger import Stats, Tally
from assay.runner.pipeline import PipelineStats
from assay.runner.progress import Progress, ReviewProgress
from tests.python_project import write_python_project


def test_the_first_progress_line_shows_no_rate_measured_from_no_trials() -> None:
    """It read '0/30 trials (0%), 0 with an error, 0.0 trials/s' before any trial ended."""
    progress = Progress(30, "exp")
    assert progress.line() == "exp: 0/30 trials (0%), 0 with an error"
    assert progress._rate_shown() == ""  # the bar draws this


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


def stalled(progress: Progress, *, for_seconds: float) -> Progress:
    """`progress` as it stands when its last trial ended `for_seconds` ago, a second after
    the run began."""
    now = time.monotonic()
    progress._started, progress._last_ended = now - for_seconds - 1, now - for_seconds
    return progress


def test_a_run_waiting_on_a_hung_trial_says_so_in_place_of_an_eta() -> None:
    """Regression: with 3 of 4 trials ended in a second and the last one hung until its
    10 s timeout, the line read 'ETA 0s', then 'ETA 1s', ... 'ETA 3s', never knowing."""
    progress = Progress(4, "exp")
    progress.update(PipelineStats(done=3))
    assert "ETA" in progress.line()  # just ended: the rate still speaks
    line = stalled(progress, for_seconds=12).line()
    assert line.endswith(", waiting on the last trial for 12s"), line
    assert "ETA" not in line
    progress = Progress(40, "exp")
    progress.update(PipelineStats(done=3))
    assert stalled(progress, for_seconds=12).line().endswith(
        ", waiting on the trials in flight for 12s")


def test_the_bar_says_what_it_waits_on_though_no_trial_ends_to_update_it() -> None:
    progress = Progress(4, "exp", mode="bar")
    with progress:
        progress.update(PipelineStats(done=3))
        stalled(progress, for_seconds=12)
        task = progress._bar.tasks[0]
        shown = [str(column.render(task)) for column in progress._bar.columns
                 if not isinstance(column, str)]
    assert "waiting on the last trial for 12s" in shown
    assert "0.2 trials/s" in shown  # 3 trials in 13 s, not the rate when the third ended
    assert not any(isinstance(column, TimeRemainingColumn) for column in progress._bar.columns)


def test_the_bar_shows_the_experiments_name_as_written_never_as_markup() -> None:
    """Regression: on a terminal, an experiment named 'support [/] [v2]' ended `assay run`
    in 'internal error: MarkupError' (exit 3) once its trials were done, and '[v2]'
    vanished from the bar while they ran."""
    progress = Progress(4, "support [/] [v2]", mode="bar")
    with progress:
        progress.update(PipelineStats(done=4))
        task = progress._bar.tasks[0]
        shown = [str(column.render(task)) for column in progress._bar.columns
                 if not isinstance(column, str)]
    assert "support [/] [v2]" in shown
    with ReviewProgress("support [/] [v2]", 4, mode="bar") as reviewing:  # after the trials
        assert reviewing._status is not None


def test_a_count_whose_total_is_not_known_yet_claims_no_share_and_no_eta() -> None:
    """An `assay traces` judge learns how many answers there are only as it reads them."""
    progress = Progress(None, "judging answers", unit="answers")
    progress.update(PipelineStats(done=10, errors=1))
    line = progress.line()
    assert line.startswith("judging answers: 10 answers, 1 with an error, ")
    assert " answers/s" in line and "ETA" not in line and "%" not in line


def test_the_share_done_reads_100_percent_only_when_every_trial_has_ended() -> None:
    """Regression: 999 of 1,000 trials read '(100%)' and 1 of 1,000 '(0%)'."""
    progress = Progress(1000, "exp", already_done=999)
    assert progress.line() == "exp: 999/1,000 trials (99%), 0 with an error"
    assert Progress(1000, "exp", already_done=1).line().startswith("exp: 1/1,000 trials (<1%)")
    assert Progress(1000, "exp", already_done=1000).line().startswith(
        "exp: 1,000/1,000 trials (100%)")


def test_a_resumed_run_counts_its_stored_errors_and_says_whose_spending_it_shows() -> None:
    """Regression: a resume of a run with 2 errored trials read '6/10 trials (60%), 0 with an
    error', the 6 stored trials counted and their errors not, while the table below counted
    them; and its '$0.1615 so far' was the resume's own spending beside the run's 'total
    cost $0.2287'."""
    spent = Tally(calls=4, cost_usd=0.1615)
    progress = Progress(10, "exp", already_done=6, errored_before=2,
                        ledger=lambda: Stats(total=spent))
    assert progress.line() == ("exp: 6/10 trials (60%), 2 with an error, "
                               "$0.1615 spent by this resume")
    progress.update(PipelineStats(done=4, errors=1))
    assert ", 3 with an error, " in progress.line()
    assert progress._fields()["errors"] == "3"
    assert progress._fields()["calls"] == "$0.1615 spent by this resume"


def test_a_run_from_its_start_shows_its_spending_so_far() -> None:
    progress = Progress(10, "exp", ledger=lambda: Stats(total=Tally(calls=1, cost_usd=0.01)))
    assert progress.line() == "exp: 0/10 trials (0%), 0 with an error, $0.0100 so far"


def test_the_spending_so_far_reads_as_the_cost_table_below_it_reads_the_same_amount() -> None:
    """Regression: the line over the run's table rounded with Python's format, so $0.00525
    summed as 0.0052499999999999995 read '$0.0052 so far' above a table reading '$0.0053',
    and three hundredths of a cent read '$0.0000 so far', as if nothing were spent."""
    def line(cost: float) -> str:
        return Progress(10, "exp", ledger=lambda: Stats(total=Tally(calls=1, cost_usd=cost))).line()

    assert line(0.0052499999999999995).endswith(", $0.0053 so far")
    assert line(0.0000292).endswith(", $0.00003 so far")


AGENT = '''
def answer(case):
    if case.id in ("c2", "c5"):
        raise RuntimeError("no answer for " + case.id)
    return case.expected
'''


def test_resuming_a_run_that_stopped_on_its_errors_starts_from_their_count(
        tmp_path: Path) -> None:
    env = write_python_project(tmp_path, AGENT, name="stops", cases=10,
                               run="{concurrency: 1, batch_size: 1, max_errors: 2}")

    def assay(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)

    stopped = assay()
    assert stopped.returncode == 3, stopped.stderr
    assert "error budget reached: 2 trials failed" in stopped.stderr
    resumed = assay("--resume")
    assert resumed.returncode == 0, resumed.stderr
    lines = [line for line in resumed.stdout.splitlines() if line.startswith("stops: ")]
    assert lines[0] == "stops: 6/10 trials (60%), 2 with an error"
    assert lines[-2].startswith("stops: 10/10 trials (100%), 2 with an error")
    assert lines[-1] == "stops: reviewing 10 trials (summary, comparisons, report files)"


def test_the_review_after_the_trials_says_it_is_under_way(tmp_path: Path) -> None:
    """The bar or the last line stopped at '10/10 trials (100%)', and a 500,000-trial run's
    review then went on for half a minute or more with nothing shown."""
    env = write_python_project(tmp_path, "def answer(case):\n    return 'ok'\n",
                               name="reviewed", cases=10, run="{concurrency: 1}")
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("reviewed: ")]
    assert lines[-2].startswith("reviewed: 10/10 trials (100%)")
    assert lines[-1] == ("reviewed: reviewing 10 trials (summary, comparisons, report files)")


def test_a_long_review_says_every_few_seconds_that_it_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSAY_PROGRESS_SECONDS", "0.01")
    stream = io.StringIO()
    with ReviewProgress("exp", None, mode="lines", stream=stream):
        deadline = time.monotonic() + 10
        while len(stream.getvalue().splitlines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "exp: reviewing its trials (summary, comparisons, report files)"
    assert lines[1] == "exp: still reviewing, 0s so far"


def test_a_review_quicker_than_its_wait_says_nothing() -> None:
    """`assay report` of a small run stays as quiet as it is quick."""
    stream = io.StringIO()
    with ReviewProgress("exp", 10, mode="lines", stream=stream, after=5):
        pass
    assert stream.getvalue() == ""
