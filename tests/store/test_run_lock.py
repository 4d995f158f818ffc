"""One process per run: a lock row in the store, refused while its holder lives, taken over
once it is dead or silent."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from assay.errors import RunLocked
from assay.store import Store, schema
from assay.store.run_lock import RunLock


def test_a_held_run_is_refused_to_another_holder_with_who_holds_it(store: Store) -> None:
    with store.run_lock() as first:
        first.acquire("r1")
        second = store.run_lock()
        with pytest.raises(RunLocked, match=r"run r1 is being run by another assay \(process "):
            second.acquire("r1")
        second.acquire("r2")  # another run is free
        second.release()
    with store.run_lock() as third:  # released: free again
        third.acquire("r1")


def test_a_holder_beats_while_it_holds_the_lock(store: Store) -> None:
    with RunLock(store.engine, heartbeat_seconds=0.05) as lock:
        lock.acquire("r1")
        first = lock.holder("r1")
        assert first is not None
        deadline = time.monotonic() + 10
        while (lock.holder("r1") or first).heartbeat_at == first.heartbeat_at:
            assert time.monotonic() < deadline, "no heartbeat"
            time.sleep(0.05)
    assert lock.holder("r1") is None


def test_a_lock_whose_heartbeat_stopped_is_taken_over_and_its_holder_learns_it(
        store: Store) -> None:
    stalled = RunLock(store.engine, heartbeat_seconds=3600)  # it will not beat on its own
    stalled.acquire("r1")
    long_ago = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    with store.engine.begin() as conn:  # last seen long ago, on another machine
        conn.execute(update(schema.run_locks).values(heartbeat_at=long_ago, host="elsewhere"))
    with store.run_lock() as successor:
        successor.acquire("r1")
        holder = successor.holder("r1")
        assert holder is not None and holder.owner == successor.owner
        assert stalled.beat() is False  # the stalled holder wakes up: the lock is gone
        with pytest.raises(RunLocked, match="another assay took over its lock"):
            stalled.check()
        stalled.release()  # giving back what it no longer holds leaves the successor's
        assert successor.holder("r1") == holder


@pytest.mark.parametrize("seen_seconds_ago, taken_over", [(30, False), (90, True)])
def test_a_lock_held_on_another_machine_is_taken_over_only_once_its_heartbeat_is_a_minute_old(
        store: Store, seen_seconds_ago: int, taken_over: bool) -> None:
    """No process on this machine can tell whether one elsewhere lives: its heartbeat says,
    and a holder that beat half a minute ago still holds the run."""
    elsewhere = RunLock(store.engine, heartbeat_seconds=3600)
    elsewhere.acquire("r1")
    seen = (datetime.now(UTC) - timedelta(seconds=seen_seconds_ago)).isoformat()
    with store.engine.begin() as conn:
        conn.execute(update(schema.run_locks).values(heartbeat_at=seen, host="elsewhere"))
    with store.run_lock() as successor:
        if taken_over:
            successor.acquire("r1")
            assert successor.holder("r1").owner == successor.owner  # type: ignore[union-attr]
        else:
            with pytest.raises(RunLocked, match=r"run r1 is being run by another assay "
                                                 r"\(process \d+ on elsewhere"):
                successor.acquire("r1")
    elsewhere.release()


def test_the_lock_of_a_process_that_died_on_this_machine_is_taken_over_at_once(
        store: Store) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    holder = RunLock(store.engine, heartbeat_seconds=3600)
    holder.acquire("r1")
    with store.engine.begin() as conn:  # as if the dead process had taken it just now
        conn.execute(update(schema.run_locks).values(pid=dead.pid))
    with store.run_lock() as successor:
        successor.acquire("r1")
        assert successor.holder("r1").pid != dead.pid


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states in /proc")
def test_the_lock_of_a_killed_process_not_yet_reaped_is_taken_over_at_once(
        store: Store) -> None:
    # kill -9 of assay whose parent died too leaves a zombie until the container's first
    # process reaps it: it was taken for a live holder and the resume refused for a minute
    exited = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 10
    while _state(exited.pid) != "Z":  # ended, and not waited for
        assert time.monotonic() < deadline, "the child did not end"
        time.sleep(0.02)
    holder = RunLock(store.engine, heartbeat_seconds=3600)
    holder.acquire("r1")
    with store.engine.begin() as conn:  # as if the killed process had taken it just now
        conn.execute(update(schema.run_locks).values(pid=exited.pid))
    try:
        with store.run_lock() as successor:
            successor.acquire("r1")
            assert successor.holder("r1").pid != exited.pid
    finally:
        exited.wait()


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def test_a_holder_is_gone_once_its_process_died_and_no_holder_is_never_gone(
        store: Store) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    locks = store.run_lock()
    assert not locks.is_gone(None) and not locks.holder_gone("r1")
    with store.run_lock() as live:
        live.acquire("r1")
        assert not locks.is_gone(locks.holder("r1")) and not locks.holder_gone("r1")
        with store.engine.begin() as conn:  # as if a process killed with kill -9 held it
            conn.execute(update(schema.run_locks).values(pid=dead.pid))
        assert locks.is_gone(locks.holder("r1")) and locks.holder_gone("r1")
