"""The worker process of a `python` target with `isolation: process`: one function, many trials.

`python_pool` starts it as `python -P -m assay.targets.python_worker`, in a
session of its own, so nothing the function does can end assay or outlive the
trial: `os._exit`, a crash, a hang in a C call or a child left running only
ever end this process, and the pool starts another. The worker imports the
function once and then answers one trial at a time.

The protocol runs over the stdin and stdout the worker was started with, moved
at once to private descriptors: the function's `print()` then goes to stderr
and its `input()` reads nothing, so user code can neither corrupt nor read the
protocol, and the processes it starts do not inherit it. Every message, each
way, is a frame: 8 bytes of big-endian length, then that many bytes of JSON.

    assay -> worker: a `Setup` first, then {"case": {...}} per trial
    worker -> assay: {"ready": true} or {"fatal": "why"}, then per trial
                     {"output": {...}} or {"error": "ExceptionName: text"}
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import faulthandler
import inspect
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypedDict, cast

from assay.case import Case
from assay.condition import Condition
from assay.errors import UserError
from assay.output import Output, ToolCall, Usage
from assay.user_code.calls import (
    await_guarded,
    bind_case_call,
    describe_failure,
    guarded,
    import_object,
)
from assay.valid_text import cut_to_bytes

HEADER_BYTES = 8


class Setup(TypedDict):
    """What a worker needs before its first trial."""

    function: str
    """`module:function` or `file.py:function`."""
    base_dir: str
    """The config's directory, which relative references are resolved against."""
    sys_path: list[str]
    """assay's own import path, so the worker finds what assay found."""
    condition: dict[str, Any]
    args: dict[str, Any]
    max_output_bytes: int


def encode_frame(message: dict[str, Any]) -> bytes:
    """One message as a frame. Values JSON cannot hold (a datetime in metadata) are sent as
    their `str()`, as the store would keep them; lone surrogates travel escaped."""
    body = json.dumps(message, default=str).encode("ascii")
    return len(body).to_bytes(HEADER_BYTES, "big") + body


def frame_length(header: bytes) -> int:
    return int.from_bytes(header, "big")


def output_to_data(output: Output, max_output_bytes: int) -> dict[str, Any]:
    """The output as JSON-ready data, its text cut at `max_output_bytes` (and the cut noted
    as the runner notes it), so a 100 MB answer is not sent whole."""
    text, size = cut_to_bytes(output.text, max_output_bytes)
    if size > max_output_bytes and "truncated" not in output.metadata:
        output.metadata["truncated"] = {"bytes": size, "kept_bytes": max_output_bytes,
                                        "limit": "run.max_output_bytes"}
    output.text = text
    data = _fields(output)
    data["tool_calls"] = [_fields(call) for call in output.tool_calls]
    data["usage"] = _fields(output.usage)
    return data


def output_from_data(data: dict[str, Any]) -> Output:
    """The Output `output_to_data` described."""
    return Output(
        text=data["text"],
        tool_calls=[ToolCall(**call) for call in data.get("tool_calls") or []],
        transcript=data.get("transcript"),
        usage=Usage(**(data.get("usage") or {})),
        metadata=data.get("metadata") or {},
        error=data.get("error"),
        latency_ms=data.get("latency_ms"),
    )


def _fields(instance: Any) -> dict[str, Any]:
    """A dataclass's fields, not copied (`dataclasses.asdict` deep-copies, and fails on
    values that cannot be copied, such as a lock in metadata)."""
    return {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance)}


def main() -> None:
    requests, replies = _private_channels()
    faulthandler.enable(all_threads=False)  # a crash leaves the function's stack on stderr
    _end_with(os.getppid())
    setup = cast(Setup | None, _read(requests))
    if setup is None:
        return
    try:
        call, function = _load(setup)
    except UserError as exc:
        _write(replies, {"fatal": str(exc)})
        return
    _write(replies, {"ready": True})
    loop = asyncio.new_event_loop()  # one loop for every call: clients bound to it stay valid
    while (request := _read(requests)) is not None:
        _reap_children()
        reply = _answer(call, function, Case.from_dict(request["case"]), loop)
        try:
            frame = encode_frame(_bounded(reply, setup["max_output_bytes"]))
        except Exception as exc:  # noqa: BLE001 - e.g. a metadata dict that contains itself
            frame = encode_frame({"error": f"the answer cannot be sent to assay: "
                                           f"{describe_failure(exc)}"})
        replies.write(frame)
        replies.flush()


def _private_channels() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's pipes, moved off fds 0 and 1: fd 0 becomes /dev/null and fd 1 a copy
    of stderr. `os.dup` makes descriptors that child processes do not inherit."""
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as we do
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return requests, replies


def _end_with(parent: int) -> None:
    """If assay dies (kill -9) while the function is stuck, end this worker and what it
    started instead of running on as an orphan. An idle worker ends at its stdin's EOF."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        if os.getpgrp() == os.getpid():
            with contextlib.suppress(OSError):
                os.killpg(os.getpid(), signal.SIGKILL)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="assay-worker-watch").start()


def _load(setup: Setup) -> tuple[Callable[[Case], Any], Any]:
    """The function, imported as in-process mode does, bound to the condition and args."""
    for entry in setup["sys_path"]:
        if entry not in sys.path:
            sys.path.append(entry)
    function = import_object(setup["function"], Path(setup["base_dir"]), ctrl_c_reaches=False)
    if not callable(function):
        raise UserError(f"python target '{setup['function']}' is not callable")
    condition = Condition(**setup["condition"])
    return guarded(bind_case_call(function, condition, setup["args"]), function,
                   ctrl_c_reaches=False), function


def _answer(call: Callable[[Case], Any], function: Any, case: Case,
            loop: asyncio.AbstractEventLoop) -> Output | str:
    """One trial's Output, or its error. Whatever the function raises, `sys.exit()` and
    KeyboardInterrupt included (Ctrl-C does not reach this session), is the trial's error."""
    try:
        value = call(case)
        if inspect.isawaitable(value):  # an async function, or a sync one returning a coroutine
            value = loop.run_until_complete(
                await_guarded(value, function, ctrl_c_reaches=False))
        output = Output.from_value(value)
    except (Exception, asyncio.CancelledError) as exc:  # noqa: BLE001 - the trial's error
        return describe_failure(exc)
    return output


def _bounded(answer: Output | str, max_output_bytes: int) -> dict[str, Any]:
    if isinstance(answer, str):
        return {"error": answer}
    return {"output": output_to_data(answer, max_output_bytes)}


def _reap_children() -> None:
    """Collect the children the last trial's end killed, so they do not pile up as zombies."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _read(stream: BinaryIO) -> dict[str, Any] | None:
    """The next message, or None once assay closed the pipe."""
    header = stream.read(HEADER_BYTES)
    if len(header) < HEADER_BYTES:
        return None
    body = stream.read(frame_length(header))
    message: dict[str, Any] = json.loads(body)
    return message


def _write(stream: BinaryIO, message: dict[str, Any]) -> None:
    stream.write(encode_frame(message))
    stream.flush()


if __name__ == "__main__":
    main()
