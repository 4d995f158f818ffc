"""The `command` target: a process per case, the case as JSON on stdin, the answer on stdout."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from typing import Any, Literal

from pydantic import Field

from assay.case import Case
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

    async def answer(self, case: Case) -> Output:
        params = self.params
        argv = (shlex.split(params.command) if isinstance(params.command, str)
                else list(params.command)) + list(params.args)
        cwd = self.services.resolve_path(params.cwd) if params.cwd else self.services.base_dir
        env = {**os.environ, **params.env, "ASSAY_CONDITION": self.condition.name}
        stdin = _stdin_bytes(case, params.stdin, self.condition.name)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=env,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            return Output(error=f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        try:
            out, err = await process.communicate(stdin)
        except asyncio.CancelledError:  # timeout or Ctrl-C: never leave the process behind
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        if process.returncode != 0:
            tail = err.decode(errors="replace").strip()[-500:]
            return Output(error=f"exit code {process.returncode}" + (f": {tail}" if tail else ""))
        text = out.decode(errors="replace")
        if params.stdout == "json":
            try:
                return Output.from_value(json.loads(text))
            except json.JSONDecodeError as exc:
                return Output(text=text, error=f"stdout is not JSON: {exc.msg}")
        return Output(text=text.rstrip("\n"))


def _stdin_bytes(case: Case, mode: str, condition: str) -> bytes | None:
    if mode == "none":
        return None
    if mode == "text":
        return case.input_text.encode()
    payload: dict[str, Any] = {**case.to_dict(), "condition": condition}
    return json.dumps(payload, ensure_ascii=False).encode()
