"""The `command` target: a process per case, the case as JSON on stdin, the answer on stdout.

Each process starts in a session of its own, so a timeout or Ctrl-C ends the
whole process group: a shell script's children (`sleep`, a model client) go
with it instead of holding the trial open until they finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from assay.case import Case
from assay.errors import UserError
from assay.output import Output
from assay.registry import target
from assay.targets.base import Target, TargetParams


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

    async def check(self) -> None:
        self._program()

    async def start(self) -> None:
        self._program()

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
        name, cwd = argv[0], self._cwd()
        if not cwd.is_dir():
            raise UserError(f"command target: working directory '{cwd}' does not exist")
        if os.sep in name or (os.altsep and os.altsep in name):
            path = Path(name).expanduser()
            path = path if path.is_absolute() else cwd / path
            if not path.is_file():
                raise UserError(f"command target: program '{name}' not found "
                                f"(looked for {path})")
            if not os.access(path, os.X_OK):
                raise UserError(f"command target: program '{name}' is not executable "
                                f"(chmod +x {path})")
            return path
        found = shutil.which(name, path=self._env().get("PATH"))
        if found is None:
            hint = (f" (to run the file in {cwd}, write ./{name})"
                    if (cwd / name).is_file() else "")
            raise UserError(f"command target: program '{name}' not found on PATH{hint}")
        return Path(found)

    async def answer(self, case: Case) -> Output:
        params = self.params
        argv = self._argv()
        stdin = _stdin_bytes(case, params.stdin, self.condition.name)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=self._cwd(), env=self._env(), start_new_session=True,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            return Output(error=f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        try:
            out, err = await process.communicate(stdin)
        except asyncio.CancelledError:  # timeout or Ctrl-C: never leave a process behind
            await _end_group(process)
            raise
        if process.returncode != 0:
            tail = err.decode(errors="replace").strip()[-500:]
            return Output(error=f"exit code {process.returncode}" + (f": {tail}" if tail else ""))
        text = out.decode(errors="replace")
        if params.stdout == "json":
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                return Output(text=text, error=f"stdout is not JSON: {exc.msg}")
            try:
                return Output.from_value(value)
            except (TypeError, ValueError) as exc:
                return Output(text=text, error=f"stdout JSON: {exc}")
        return Output(text=text.rstrip("\n"))


async def _end_group(process: asyncio.subprocess.Process) -> None:
    """Kill the group, then let its pipes reach end of file so nothing outlives the trial."""
    _kill_group(process)
    await process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(TimeoutError, OSError, RuntimeError):
                async with asyncio.timeout(1):
                    await stream.read()
    await asyncio.sleep(0)  # the transport closes on the next turn of the loop


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the process and everything it started: its own session, so its own group."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        elif process.returncode is None:  # pragma: no cover - no process groups on Windows
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass  # the whole group is already gone


def _stdin_bytes(case: Case, mode: str, condition: str) -> bytes | None:
    if mode == "none":
        return None
    if mode == "text":
        return case.input_text.encode()
    payload: dict[str, Any] = {**case.to_dict(), "condition": condition}
    return json.dumps(payload, ensure_ascii=False).encode()
