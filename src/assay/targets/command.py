"""The `command` target: a process per case, the case as JSON on stdin, the answer on stdout.

The answer is what the command printed by the time it exited: a child it left
running (`sleep 777 &`) and that still holds stdout does not turn a finished
answer into a timeout. At the trial's end (an answer, a timeout or Ctrl-C)
every process the command started is killed, daemons included (see
`process_tree`); if assay itself is killed, the target's `orphan_guard` kills
them. stdout is read up to `run.max_output_bytes` and the rest is dropped and
counted, so a command that prints without end fills no memory and still ends
at `run.timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from assay.case import Case
from assay.errors import UserError
from assay.input_files import find_program
from assay.output import Output
from assay.redaction import redact
from assay.registry import target
from assay.targets.base import Target, TargetParams
from assay.targets.capture import Captured, output_limit
from assay.targets.orphan_guard import OrphanGuard
from assay.targets.process_tree import ProcessTree, exit_code, reaped, signal_name


class CommandParams(TargetParams):
    command: list[str] | str
    """The program and its arguments; a string is split like a shell would (no shell runs)."""

    args: list[str] = Field(default_factory=list)
    """Extra arguments appended to the command; conditions use this for their flags."""

    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables added for the process."""

    cwd: str | None = None
    """Working directory, relative to the config file (default: the config's directory)."""

    stdin: Literal["json", "text", "none"] = "json"
    """What the process reads: the case as JSON, the input text alone, or nothing."""

    stdout: Literal["text", "json"] = "text"
    """How stdout is read: the answer as text, or JSON with output/tool_calls/usage/metadata."""


@target("command")
class CommandTarget(Target):
    Params = CommandParams
    params: CommandParams
    honours = frozenset[str]()
    checked_key = "command"

    _guard: OrphanGuard | None = None
    """Started with the target: ends its commands if assay is killed."""

    async def validate(self) -> None:
        self._program()

    async def start(self) -> None:
        self._program()
        self._guard = await OrphanGuard.start()

    async def close(self) -> None:
        if self._guard is not None:
            await self._guard.close()
            self._guard = None

    def _argv(self) -> list[str]:
        params = self.params
        return (shlex.split(params.command) if isinstance(params.command, str)
                else list(params.command)) + list(params.args)

    def _cwd(self) -> Path:
        return (self.services.resolve_path(self.params.cwd) if self.params.cwd
                else self.services.base_dir)

    def _env(self) -> dict[str, str]:
        return {**os.environ, **self.params.env, "ASSAY_CONDITION": self.condition.name}

    def _program(self) -> Path:
        """The executable the process would run, found as the OS finds it; a UserError if none.

        A name with a slash is relative to the process's working directory; a bare
        name is looked up on the PATH the process gets.
        """
        argv = self._argv()
        if not argv or not argv[0]:
            raise UserError(f"command target (condition '{self.condition.name}'): "
                            "`command` is empty")
        cwd = self._cwd()
        if not os.path.isdir(cwd):  # never raises, unlike Path.is_dir on a name too long
            raise UserError(f"command target: working directory '{cwd}' does not exist")
        return find_program(argv[0], cwd=cwd, path=self._env().get("PATH"),
                            who="command target")

    async def answer(self, case: Case) -> Output:
        params = self.params
        argv = self._argv()
        stdin = _stdin_bytes(case, params.stdin, self.condition.name)
        tree = ProcessTree(token=self._guard.token()) if self._guard else ProcessTree()
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=self._cwd(), env=tree.env(self._env()), start_new_session=True,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            return Output(error=f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        tree.adopt(process.pid)
        out = Captured(output_limit(self.services))
        err = Captured(STDERR_TAIL_BYTES, keep="tail")
        tasks = [asyncio.create_task(_read(process.stdout, out)),
                 asyncio.create_task(_read(process.stderr, err))]
        if stdin is not None:
            tasks.append(asyncio.create_task(_feed(process.stdin, stdin)))
        try:
            code = await exit_code(process)
            # Children left running (`sleep 777 &`) may hold the pipes open: the answer is
            # what the command wrote by the time it exited, plus a moment to drain the pipes.
            await asyncio.wait(tasks[:2], timeout=DRAIN_SECONDS)
        finally:  # an answer, a timeout or Ctrl-C: nothing the command started outlives it
            # The command itself too, as its group's leader. Not `process.kill()`: it polls
            # the process first, reaping it behind asyncio's back, which then logs
            # "Unknown child process pid ..." on the terminal.
            tree.end()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await reaped(process)
        if code != 0:
            tail = redact(err.text().strip()[-500:], self.params.env.values())
            ended = f"exit code {code}" if code > 0 else f"killed by {signal_name(-code)}"
            return Output(error=ended + (f": {tail}" if tail else ""))
        text, invalid = out.decoded()
        if params.stdout == "json":
            if out.cut:
                return Output(text=text, error=f"stdout is not JSON: more than "
                              f"{out.limit:,} bytes (run.max_output_bytes)")
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                return Output(text=text, error=f"stdout is not JSON: {exc.msg}")
            try:
                output = Output.from_value(value)
            except (TypeError, ValueError) as exc:
                return Output(text=text, error=f"stdout JSON: {exc}")
        else:
            output = Output(text=text.rstrip("\n"))
        out.annotate(output, invalid)
        return output


DRAIN_SECONDS = 0.5
"""How long the pipes may still deliver output after the command exited."""
STDERR_TAIL_BYTES = 64_000
"""The end of stderr kept to explain a failure."""


async def _read(stream: asyncio.StreamReader | None, into: Captured) -> None:
    if stream is None:
        return
    while chunk := await stream.read(1 << 16):
        into.add(chunk)


async def _feed(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write the case to stdin and close it; a command that does not read it is fine."""
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
        stream.close()


def _stdin_bytes(case: Case, mode: str, condition: str) -> bytes | None:
    if mode == "none":
        return None
    if mode == "text":
        return case.input_text.encode()
    payload: dict[str, Any] = {**case.to_dict(), "condition": condition}
    return json.dumps(payload, ensure_ascii=False).encode()
