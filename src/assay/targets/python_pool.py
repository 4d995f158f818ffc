"""Worker processes for a `python` target with `isolation: process`: assay's side.

In assay's own process a function can end assay (a crash), hold its stdout
through a child it leaves running, or hang in a way no deadline can stop. Run
in a worker (`python_worker`), each of these costs one trial. A worker answers
one trial at a time, so there are as many as there are trials in flight; each
is started in a session of its own with a `ProcessTree` token:

- at a trial's end, every process the function started during the trial is
  killed (what its module started at import lives as long as the worker);
- at the trial's deadline or on Ctrl-C, the worker's whole tree is killed and
  the next trial gets a fresh worker;
- a worker that dies while answering (`os._exit(0)`, a crash) makes that trial
  an error naming how it ended, never assay's exit and never a score of 0.

The worker's stderr (where the function's `print()` goes) is copied to
assay's stderr, and its end is kept to explain a worker's death.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import sys
from typing import Any

from assay.case import Case
from assay.errors import UserError
from assay.output import Output
from assay.targets.capture import Captured
from assay.targets.process_tree import (
    ProcessTree,
    exit_code,
    newest_pid,
    reaped,
    signal_name,
)
from assay.targets.python_worker import (
    HEADER_BYTES,
    Setup,
    encode_frame,
    frame_length,
    output_from_data,
)
from assay.workers import run_blocking

WORKER_COMMAND = (sys.executable, "-P", "-m", "assay.targets.python_worker")
"""`-P`: the working directory is not put on the worker's import path (`assay` run from a
console script does not have it either); the config's directory is, as in assay."""
STDERR_TAIL_BYTES = 2_000
"""The end of a worker's stderr kept to say why it died."""
STDERR_SHOWN_CHARS = 500
"""How much of it the trial's error quotes."""
EXIT_GRACE_SECONDS = 1.0
"""How long a worker whose pipe closed may take to report its exit code."""


class WorkerLost(Exception):
    """The worker ended, or broke the protocol, before it replied: the trial's error."""


class Worker:
    """One worker process: its pipes, its process tree and the end of its stderr."""

    def __init__(self, process: asyncio.subprocess.Process, tree: ProcessTree,
                 frame_limit: int) -> None:
        self.process = process
        self.tree = tree
        self.frame_limit = frame_limit
        self.spared: set[int] = set()
        """Processes the function's module started at import: they outlive trials."""
        self._newest_pid: int | None = None
        self.stderr = Captured(STDERR_TAIL_BYTES, keep="tail")
        self._copying = asyncio.ensure_future(_copy_stderr(process.stderr, self.stderr))

    @classmethod
    async def spawn(cls, frame_limit: int) -> Worker:
        tree = ProcessTree()
        process = await asyncio.create_subprocess_exec(
            *WORKER_COMMAND, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,
            env=tree.env(dict(os.environ)))
        tree.adopt(process.pid)
        return cls(process, tree, frame_limit)

    async def set_up(self, setup: Setup) -> None:
        """Have the worker import the function; a UserError if it cannot."""
        reply = await self._exchange(dict(setup), f"importing {setup['function']}")
        if "fatal" in reply:
            raise UserError(str(reply["fatal"]))
        self.spared = self.tree.members()

    async def ask(self, case: Case) -> Output:
        self._newest_pid = newest_pid()
        reply = await self._exchange({"case": case.to_dict()}, "answering")
        if "error" in reply:
            return Output(error=str(reply["error"]))
        return output_from_data(reply["output"])

    async def end_trial(self) -> None:
        """Kill what the function started during the trial; the worker stays. Reading /proc
        costs a few milliseconds, so it is skipped when no process at all was started."""
        if self._newest_pid is None or newest_pid() != self._newest_pid:
            await run_blocking(self.tree.end_all_but, self.spared)

    def kill(self) -> None:
        """Kill the worker and every process of its tree. Not `process.kill()`: it polls the
        process first, reaping it behind asyncio's back (which then logs "Unknown child")."""
        self.tree.end()
        self._copying.cancel()

    async def _exchange(self, message: dict[str, Any], doing: str) -> dict[str, Any]:
        """Send `message` and return the reply, or raise WorkerLost saying how the worker
        ended while `doing`. Its exit is watched as well as the pipe: a child that forked
        from it may still hold the pipe open after the worker died."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(encode_frame(message))
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise WorkerLost(await self._ending(doing)) from None
        reading = asyncio.ensure_future(self._reply())
        exiting = asyncio.ensure_future(exit_code(self.process))
        try:
            await asyncio.wait({reading, exiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exiting.cancel()
            reading.cancel()
        if reading.done() and not reading.cancelled():
            failure = reading.exception()
            if failure is None:
                return reading.result()
            if isinstance(failure, WorkerLost):
                raise failure
        raise WorkerLost(await self._ending(doing))

    async def _reply(self) -> dict[str, Any]:
        stdout = self.process.stdout
        assert stdout is not None
        length = frame_length(await stdout.readexactly(HEADER_BYTES))
        if length > self.frame_limit:
            raise WorkerLost(f"the answer is {length:,} bytes of JSON, more than the "
                             f"{self.frame_limit:,} a python target reads from its worker "
                             f"process (8 times run.max_output_bytes, plus 1 MiB)")
        reply: dict[str, Any] = json.loads(await stdout.readexactly(length))
        return reply

    async def _ending(self, doing: str) -> str:
        """`the python target's worker process exited with code 0 while answering`, with
        the end of its stderr."""
        try:
            async with asyncio.timeout(EXIT_GRACE_SECONDS):
                code = await exit_code(self.process)
        except TimeoutError:
            return f"the python target's worker process closed its pipe while {doing}"
        self.tree.end()  # what it left running may hold stderr open
        await asyncio.wait({self._copying}, timeout=0.5)
        tail = _last_words(self.stderr.text())
        return (f"the python target's worker process {_how_it_ended(code)} while {doing}"
                + (f"; its stderr ended with: {tail}" if tail else ""))


class WorkerProcesses:
    """The workers of one python target (one condition), started as trials need them."""

    def __init__(self, setup: Setup, import_timeout: float | None = None) -> None:
        self.setup = setup
        self.import_timeout = import_timeout
        """How long the first worker may take to import the function (None: no limit); the
        workers started later import within their trial's deadline."""
        self.frame_limit = 8 * setup["max_output_bytes"] + (1 << 20)
        self._idle: list[Worker] = []
        self._live: set[Worker] = set()
        self._reaping: set[asyncio.Future[None]] = set()

    async def start(self) -> None:
        """Start the first worker: a function that cannot be imported, or whose module is
        still importing at `import_timeout`, is a UserError now, with the message in-process
        mode gives (the failed worker reaped first)."""
        try:
            async with asyncio.timeout(self.import_timeout):
                self._idle.append(await self._new_worker())
        except BaseException as exc:
            await self.close()
            if isinstance(exc, WorkerLost):
                raise UserError(str(exc)) from None
            if isinstance(exc, TimeoutError):
                raise UserError(
                    f"the python target's worker process did not import "
                    f"{self.setup['function']} within {self.import_timeout:g}s; does its "
                    "module wait for something while imported?") from None
            raise

    async def answer(self, case: Case) -> Output:
        try:
            worker = self._idle_worker() or await self._new_worker()
        except (UserError, WorkerLost) as exc:  # a worker after the first failed to start
            return Output(error=str(exc))
        try:
            output = await worker.ask(case)
            await worker.end_trial()
        except WorkerLost as exc:
            self._discard(worker)
            return Output(error=str(exc))
        except BaseException:  # the trial's deadline or Ctrl-C: the function may still run
            self._discard(worker)
            raise
        self._idle.append(worker)
        return output

    async def close(self) -> None:
        """Kill every worker and what it started, and reap them."""
        for worker in list(self._live):
            self._discard(worker)
        self._idle.clear()
        if self._reaping:
            await asyncio.gather(*self._reaping, return_exceptions=True)

    def _idle_worker(self) -> Worker | None:
        """An idle worker that still runs (one may have died between trials)."""
        while self._idle:
            worker = self._idle.pop()
            if worker.process.returncode is None:
                return worker
            self._discard(worker)
        return None

    async def _new_worker(self) -> Worker:
        worker = await Worker.spawn(self.frame_limit)
        self._live.add(worker)
        try:
            await worker.set_up(self.setup)
        except BaseException:
            self._discard(worker)
            raise
        return worker

    def _discard(self, worker: Worker) -> None:
        worker.kill()
        self._live.discard(worker)
        reaping = asyncio.ensure_future(reaped(worker.process))
        self._reaping.add(reaping)
        reaping.add_done_callback(self._reaping.discard)


async def _copy_stderr(stream: asyncio.StreamReader | None, tail: Captured) -> None:
    """Copy the worker's stderr to assay's as it comes, keeping its end in `tail`."""
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while chunk := await stream.read(1 << 16):
        tail.add(chunk)
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(decoder.decode(chunk))
            sys.stderr.flush()


def _last_words(stderr: str) -> str:
    """What explains a worker's death: from the start of Python's crash report when there is
    one (it names the function's line first), else the last lines it wrote."""
    crash = stderr.rfind("Fatal Python error")
    if crash >= 0:
        return stderr[crash:].strip()[:STDERR_SHOWN_CHARS]
    return stderr.strip()[-STDERR_SHOWN_CHARS:]


def _how_it_ended(code: int) -> str:
    if code >= 0:
        return f"exited with code {code}"
    return f"was killed by {signal_name(-code)}"
