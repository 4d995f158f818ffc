"""How a run ended, and which unfinished run a new one of the same experiment should name."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import update

from assay.store import Store, schema
from assay.store.run_ending import how_unfinished, left_unfinished
from assay.store.run_lock import RunLock


def test_a_completed_latest_run_leaves_nothing_unfinished(store: Store) -> None:
    store.create_run(id="r1", experiment="e", status="interrupted",
                     started_at="2026-01-01T00:00:00")
    store.create_run(id="r2", experiment="e", status="completed",
                     started_at="2026-01-02T00:00:00")
    assert left_unfinished(store, "e") is None
    assert left_unfinished(store, "another") is None


def test_an_interrupted_latest_run_is_named_with_how_it_ended(store: Store) -> None:
    store.create_run(id="r1", experiment="e", status="interrupted", total_trials=40)
    unfinished = left_unfinished(store, "e")
    assert unfinished is not None
    assert (unfinished.run.id, unfinished.how, unfinished.stored) == (
        "r1", "it was interrupted", 0)


@pytest.mark.parametrize("status", ["running", "reviewing"])
def test_a_run_under_way_is_unfinished_only_once_its_process_is_gone(
        store: Store, status: str) -> None:
    # reviewing: killed while its report files were written, it read 'it was reviewing' in
    # the note of the next run, and so did one whose files a live assay was writing
    store.create_run(id="r1", experiment="e", status=status)
    with store.run_lock() as live:
        live.acquire("r1")
        assert left_unfinished(store, "e") is None  # another assay is running it
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    holder = RunLock(store.engine, heartbeat_seconds=3600)
    holder.acquire("r1")
    with store.engine.begin() as conn:  # as if a process killed with kill -9 held it
        conn.execute(update(schema.run_locks).values(pid=dead.pid))
    unfinished = left_unfinished(store, "e")
    assert unfinished is not None and unfinished.how == "its process is gone"


def test_how_a_run_stands_says_still_running_stopped_with_its_resume_or_nothing_once_done(
        store: Store) -> None:
    store.create_run(id="live", experiment="e", status="running", total_trials=40)
    store.create_run(id="stopped", experiment="e", status="aborted", config_path="a.yaml")
    store.create_run(id="done", experiment="e", status="completed")
    with store.run_lock() as live:
        live.acquire("live")
        running = how_unfinished(store, store.get_run("live"))  # type: ignore[arg-type]
    assert running is not None
    assert (running.how, running.stored_trials) == ("still running", "0 of 40 trials")
    stopped = how_unfinished(store, store.get_run("stopped"))  # type: ignore[arg-type]
    assert stopped is not None
    assert (stopped.how, stopped.stored_trials) == (
        "aborted; resume with: assay run a.yaml --resume stopped", "0 trials")
    assert how_unfinished(store, store.get_run("done")) is None  # type: ignore[arg-type]


def test_a_run_stopped_by_its_programs_exit_is_interrupted_not_failed() -> None:
    """A program's SIGTERM handler calling sys.exit(5) while `assay.evaluate` ran stored the
    run as failed ('SystemExit: 5'), as though the run itself had broken; user code's own
    sys.exit is its trial's error and never ends a run."""
    from assay.store.run_ending import ending

    assert ending(SystemExit(5)) == ("interrupted",
                                     "stopped as the program exited (sys.exit(5))")
    assert ending(KeyboardInterrupt()) == ("interrupted", "interrupted by the user")
    assert ending(ValueError("x"))[0] == "failed"
