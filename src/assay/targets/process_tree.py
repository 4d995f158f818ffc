"""All the processes a command started, found and ended when its trial ends.

A command runs in a session of its own, so its process group and session hold
the shell script's children. A daemon leaves both (`setsid sleep 778 &`), so
each command also gets a token in its environment (`ASSAY_PROCESS_TOKEN`),
which every descendant inherits unless it clears its environment. At the
trial's end every process of the group, of the session, or carrying the token
is killed. No cgroup is needed: on Linux the members are found in /proc; where
there is no /proc only the process group is ended. A long-lived process (the
worker of a python target with `isolation: process`) keeps its tree between
trials and has only what each trial started ended (`end_all_but`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

TOKEN_VARIABLE = "ASSAY_PROCESS_TOKEN"
PROC = Path("/proc")


@dataclass
class ProcessTree:
    """The processes of one command: its session (led by `leader`) and its token."""

    token: str = field(default_factory=lambda: secrets.token_hex(12))
    leader: int | None = None
    started: int | None = None
    """The leader's start time (clock ticks since boot): only processes started after it
    can carry the token, so only their environments are read."""

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """`base` with this tree's token, for the command's environment."""
        return {**base, TOKEN_VARIABLE: self.token}

    def adopt(self, pid: int) -> None:
        """The command was started as `pid`, the leader of a new session."""
        self.leader = pid
        stat = _stat(pid)
        self.started = stat[3] if stat else None

    def members(self) -> set[int]:
        """Every live process of the tree (zombies are already dead and not listed)."""
        if self.leader is None or not PROC.is_dir():
            return set()
        found: set[int] = set()
        own = os.getpid()
        for entry in os.scandir(PROC):
            if not entry.name.isdigit() or int(entry.name) == own:
                continue
            pid = int(entry.name)
            stat = _stat(pid)
            if stat is None or stat[0] in "ZX":
                continue
            _state, group, session, start = stat
            in_session = self.leader in (group, session)
            newer = self.started is None or start >= self.started
            if in_session or (newer and self._carries_token(pid)):
                found.add(pid)
        return found

    def end(self) -> None:
        """Kill every process of the tree (repeated while forks keep appearing)."""
        if self.leader is None:
            return
        if hasattr(os, "killpg"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.leader, signal.SIGKILL)
        self._kill_members(spared=set())

    def end_all_but(self, keep: Collection[int]) -> None:
        """Kill every process of the tree except the leader and `keep`: what one trial
        started, while the long-lived process that ran it (and what it started before) goes on."""
        self._kill_members(spared={self.leader, *keep})

    def _kill_members(self, spared: set[int | None]) -> None:
        """Kill the members not `spared`, again while forks keep appearing (10 rounds)."""
        for _ in range(10):
            members = self.members() - spared
            if not members:
                return
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def _carries_token(self, pid: int) -> bool:
        return _token_of(pid) == self.token


def end_token_carriers(prefix: str) -> None:
    """Kill every process whose token begins with `prefix` (again while forks keep appearing,
    10 rounds): what is left of the trees of a process that can no longer end them."""
    if not PROC.is_dir():
        return
    own = os.getpid()
    for _ in range(10):
        carriers = [int(entry.name) for entry in os.scandir(PROC)
                    if entry.name.isdigit() and int(entry.name) != own
                    and (_token_of(int(entry.name)) or "").startswith(prefix)]
        if not carriers:
            return
        for pid in carriers:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def _token_of(pid: int) -> str | None:
    """The `ASSAY_PROCESS_TOKEN` in the environment `pid` started with; None if none."""
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    marker = f"{TOKEN_VARIABLE}=".encode()
    for entry in environ.split(b"\0"):
        if entry.startswith(marker):
            return entry[len(marker):].decode(errors="replace")
    return None


def newest_pid() -> int | None:
    """The pid most recently given to a new process in this pid namespace (None where
    unknown). Unchanged between two readings, no process was started in between, so there
    is nothing new to look for in /proc."""
    try:
        return int((PROC / "loadavg").read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def signal_name(number: int) -> str:
    """`SIGSEGV` for 11: how a process killed by a signal ended, in the words people know."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


async def exit_code(process: asyncio.subprocess.Process) -> int:
    """The process's exit code as soon as it exits. `process.wait()` would also wait for
    every child that holds its pipes, so the return code is polled instead."""
    delay = 0.001
    while process.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return process.returncode


async def reaped(process: asyncio.subprocess.Process) -> None:
    """Reap the process and release its pipes now, even if a process that escaped its tree
    (a cleared environment and a new session) still holds them. Left open, they would be
    closed by the garbage collector, on an event loop that may be closed by then, which
    prints a traceback ("Event loop is closed") under assay's own error."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(2):
            await process.wait()
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, process group, session, start time) of `pid` from /proc; None if unknown."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces or parentheses itself.
    fields = text[text.rfind(")") + 2:].split()
    try:
        return fields[0], int(fields[2]), int(fields[3]), int(fields[19])
    except (IndexError, ValueError):
        return None
