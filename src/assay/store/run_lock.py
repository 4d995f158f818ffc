"""One process per run: a lock row in the store, with a heartbeat.

Two processes resuming one run would both run every missing trial (paid
twice) and collide on its keys. Whoever runs, resumes or rewrites a run
first inserts its row in `run_locks`; the run id is the table's primary key,
so on SQLite and PostgreSQL alike exactly one insert wins. The holder
refreshes `heartbeat_at` from a background thread while it works and
deletes the row when done.

A lock left by a process that died (`kill -9`, a lost machine) is taken
over: at once when its process is gone from this machine (same host, same
pid namespace), otherwise once its heartbeat is older than `EXPIRY_SECONDS`.
The takeover is an update conditioned on the dead holder's owner id, so two
processes taking over the same stale lock cannot both win. A holder whose
lock was taken over (it stalled past the expiry) learns so at its next
heartbeat and stops before writing another trial.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from sqlalchemy import Engine, and_, delete, select, update

from assay.errors import RunLocked, StoreError
from assay.store import schema
from assay.store.failures import RowRejected

HEARTBEAT_SECONDS = 10.0
EXPIRY_SECONDS = 60.0
"""A lock whose heartbeat is older than this is stale: its holder stopped working on it."""


def _now() -> datetime:
    return datetime.now(UTC)


def _pid_scope() -> str:
    """Where a pid means one process: this boot of the kernel and this pid namespace (two
    containers share a kernel but not their pids)."""
    boot = ""
    with contextlib.suppress(OSError):
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    namespace = ""
    with contextlib.suppress(OSError):
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    return f"{boot}:{namespace}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return not _exited(pid)
    except OSError:
        return True
    return not _exited(pid)


def _exited(pid: int) -> bool:
    """The process has ended and waits only to be reaped (a zombie): `kill -9` of assay whose
    parent died too leaves one in a container whose first process reaps late or never, and
    it would hold the run's lock until its heartbeat expired."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (macOS), or gone meanwhile: kill() has answered
        return False
    state = stat.rpartition(")")[2].split()[:1]  # the name in parentheses may hold spaces
    return state == ["Z"]


@dataclass(frozen=True)
class LockHolder:
    """Who holds a run's lock, as its row says."""

    owner: str
    pid: int | None
    host: str | None
    pid_scope: str | None
    taken_at: str
    heartbeat_at: str

    def seconds_since_heartbeat(self) -> float:
        try:
            beat = datetime.fromisoformat(self.heartbeat_at)
        except ValueError:
            return float("inf")
        if beat.tzinfo is None:
            beat = beat.replace(tzinfo=UTC)
        return (_now() - beat).total_seconds()

    def is_stale(self, expiry: float) -> bool:
        """Its process is gone from this machine, or it has not beaten for `expiry` seconds."""
        if self.seconds_since_heartbeat() > expiry:
            return True
        here = self.host == socket.gethostname() and self.pid_scope == _pid_scope()
        return here and self.pid is not None and not _alive(self.pid)

    def describe(self) -> str:
        age = self.seconds_since_heartbeat()
        seen = f"{age:.0f}s ago" if age != float("inf") else "at an unknown time"
        return f"process {self.pid} on {self.host}, since {self.taken_at[:19]}, last seen {seen}"


class RunLock:
    """This process's hold on one run (see the module notes). Not reentrant."""

    def __init__(self, engine: Engine, *, heartbeat_seconds: float = HEARTBEAT_SECONDS,
                 expiry_seconds: float = EXPIRY_SECONDS) -> None:
        self.engine = engine
        self.heartbeat_seconds = heartbeat_seconds
        self.expiry_seconds = expiry_seconds
        self.owner = secrets.token_hex(16)
        self.run_id: str | None = None
        self.lost_to: str | None = None
        """Set when another process took the lock over: who, as `LockHolder.describe` says."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- taking and giving back ---------------------------------------------------------

    def acquire(self, run_id: str) -> None:
        """Hold `run_id`'s lock, taking over a stale one; `RunLocked` when a live process
        holds it."""
        if self.run_id is not None:
            if self.run_id == run_id:
                return
            raise RuntimeError(f"this lock already holds run {self.run_id}")
        for _ in range(5):  # each round either wins, or sees a holder that just changed
            if self._insert(run_id):
                break
            holder = self.holder(run_id)
            if holder is None:
                continue  # released in between: try the insert again
            if not holder.is_stale(self.expiry_seconds):
                raise RunLocked(
                    f"run {run_id} is being run by another assay ({holder.describe()}); "
                    "wait for it to finish, or stop it and resume again")
            if self._take_over(run_id, holder):
                break
        else:
            raise RunLocked(f"run {run_id}: its lock kept changing hands; try again")
        self.run_id = run_id
        self._stop.clear()
        self._thread = threading.Thread(target=self._beat, name=f"assay-lock-{run_id}",
                                        daemon=True)
        self._thread.start()

    def release(self) -> None:
        """Give the lock back (a no-op when not held)."""
        if self.run_id is None:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        run_id, self.run_id, self._thread = self.run_id, None, None
        # a store gone away cannot keep a lock either
        with contextlib.suppress(StoreError), self.engine.begin() as conn:
            conn.execute(delete(schema.run_locks).where(self._mine(run_id)))

    def check(self) -> None:
        """Raise `RunLocked` when another process has taken this lock over."""
        if self.lost_to is not None:
            raise RunLocked(f"run {self.run_id}: another assay took over its lock "
                            f"({self.lost_to}); stopped so no trial is run twice")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()

    # -- the row ---------------------------------------------------------------------

    def holder(self, run_id: str) -> LockHolder | None:
        t = schema.run_locks
        with self.engine.connect() as conn:
            row = conn.execute(select(t).where(t.c.run_id == run_id)).first()
        if row is None:
            return None
        m = row._mapping
        return LockHolder(owner=m["owner"], pid=m["pid"], host=m["host"],
                          pid_scope=m["pid_scope"], taken_at=m["taken_at"],
                          heartbeat_at=m["heartbeat_at"])

    def holder_gone(self, run_id: str) -> bool:
        """`run_id`'s lock was left by a process that is gone or stopped beating: no one is
        running it, whatever its status says (False when there is no lock row)."""
        return self.is_gone(self.holder(run_id))

    def is_free(self, run_id: str) -> bool:
        """No live process holds `run_id`: no lock row, or one its process left behind."""
        holder = self.holder(run_id)
        return holder is None or self.is_gone(holder)

    def is_gone(self, holder: LockHolder | None) -> bool:
        """`holder` (a run's, from `holder`) is a process that is gone or stopped beating."""
        return holder is not None and holder.is_stale(self.expiry_seconds)

    def _values(self) -> dict[str, Any]:
        now = _now().isoformat(timespec="microseconds")
        return {"owner": self.owner, "pid": os.getpid(), "host": socket.gethostname()[:255],
                "pid_scope": _pid_scope(), "taken_at": now, "heartbeat_at": now}

    def _insert(self, run_id: str) -> bool:
        try:
            with self.engine.begin() as conn:
                conn.execute(schema.run_locks.insert().values(run_id=run_id, **self._values()))
        except RowRejected:  # the primary key: someone holds it
            return False
        return True

    def _take_over(self, run_id: str, stale: LockHolder) -> bool:
        t = schema.run_locks
        with self.engine.begin() as conn:
            taken = conn.execute(update(t).where(and_(t.c.run_id == run_id,
                                                      t.c.owner == stale.owner))
                                 .values(**self._values()))
        return taken.rowcount == 1

    def _mine(self, run_id: str) -> Any:
        t = schema.run_locks
        return and_(t.c.run_id == run_id, t.c.owner == self.owner)

    def beat(self) -> bool:
        """Refresh the heartbeat; False (and `lost_to` set) when the lock was taken over."""
        run_id = self.run_id
        if run_id is None or self.lost_to is not None:
            return self.lost_to is None
        try:
            with self.engine.begin() as conn:
                beat = conn.execute(update(schema.run_locks).where(self._mine(run_id))
                                    .values(heartbeat_at=_now().isoformat(
                                        timespec="microseconds")))
        except StoreError:
            return True  # a busy or briefly unreachable store: the next beat tries again
        if beat.rowcount == 0:
            holder = None
            with contextlib.suppress(StoreError):
                holder = self.holder(run_id)
            self.lost_to = holder.describe() if holder else "its lock row is gone"
            return False
        return True

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_seconds):
            if not self.beat():
                return
