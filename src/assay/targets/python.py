"""The `python` target: a function of yours, sync or async, called once per trial.

Whatever the function raises, `sys.exit()` and KeyboardInterrupt included, is
that trial's error (see `assay.user_code.calls`; `os._exit()` too, see
`assay.user_code.process_exit`), never the run's end; only
Ctrl-C pressed while it runs on the event loop (`threaded: false`) stops the
run, as it stops any other. By
default the function runs in assay's own process, which is cheap; with
`isolation: process` it runs in worker processes (`python_pool`), where
`os._exit`, a crash, a hang or a child process left running cost only the
trial.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from assay.case import Case
from assay.condition import Condition
from assay.errors import UserError
from assay.output import Output
from assay.registry import target
from assay.services import Services
from assay.targets.base import Target, TargetParams
from assay.targets.capture import output_limit
from assay.targets.python_pool import WorkerProcesses
from assay.targets.python_worker import Setup
from assay.user_code.calls import (
    await_guarded,
    bind_case_call,
    guarded,
    import_object,
    reference_of,
)
from assay.workers import run_blocking


class PythonParams(TargetParams):
    function: str | SkipJsonSchema[Callable[..., Any]]
    """`module:function` or `file.py:function`, relative to the config file. It receives the
    case (and the condition, if it has a `condition` parameter) and returns a string, a dict
    with output/tool_calls/usage/metadata, or an `assay.Output`. From Python
    (`assay.evaluate`), the function itself."""

    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments passed to the function; conditions may override them."""

    threaded: bool = True
    """Run a sync function in a worker thread so it cannot block other trials. Set false
    for fast, CPU-only functions to save the thread hop: the function then runs on the
    run's event loop, where nothing can interrupt it, so `run.timeout` cannot stop it
    and Ctrl-C waits for it. Only for functions that cannot hang. Ignored with
    `isolation: process`."""

    isolation: Literal["none", "process"] = "none"
    """`none`: the function runs in assay's own process (cheapest). `process`: in worker
    processes, one per trial in flight, each importing the function once; `os._exit`, a
    crash or a hang at `run.timeout` then costs only that trial (its worker is killed and
    replaced), and every process the function starts is killed at the trial's end. `args`
    must then be JSON values, and a function given from Python must be importable by name
    (a module-level function, not a lambda or one defined in `__main__`)."""


@target("python")
class PythonTarget(Target):
    Params = PythonParams
    params: PythonParams
    checked_key = "function"

    def __init__(self, params: PythonParams, condition: Condition, services: Services) -> None:
        super().__init__(params, condition, services)
        self._call: Callable[[Case], Any] | None = None
        self._function: Any = None
        self._is_async = False
        self._workers: WorkerProcesses | None = None

    async def validate(self) -> None:
        await self.start()
        if self._workers is not None:
            await self.close()

    async def start(self) -> None:
        if self.params.isolation == "process":
            self._workers = WorkerProcesses(self._setup(), _import_timeout(self.services))
            await self._workers.start()
            return
        function = self.params.function
        if isinstance(function, str):
            function = import_object(function, self.services.base_dir)
        if not callable(function):
            raise UserError(f"python target '{self.params.function}' is not callable")
        self._is_async = inspect.iscoroutinefunction(function)
        self._function = function
        self._call = guarded(bind_case_call(function, self.condition, self.params.args),
                             function)

    async def answer(self, case: Case) -> Output:
        if self._workers is not None:
            return await self._workers.answer(case)
        assert self._call is not None, "start() was not called"
        if self._is_async:
            value = await await_guarded(self._call(case), self._function)
        elif self.params.threaded:
            value = await run_blocking(self._call, case)
        else:
            value = self._call(case)
        if inspect.isawaitable(value):  # a sync function that returned a coroutine
            value = await await_guarded(value, self._function)
        return Output.from_value(value)

    async def close(self) -> None:
        workers, self._workers = self._workers, None
        if workers is not None:
            await workers.close()

    def _setup(self) -> Setup:
        """What each worker process needs: the function by name, and the args as JSON."""
        try:
            json.dumps(self.params.args)
        except (TypeError, ValueError) as exc:
            raise UserError(f"python target (condition '{self.condition.name}'): with "
                            f"isolation: process, `args` are sent to a worker process as "
                            f"JSON and must be JSON values: {exc}") from None
        return Setup(function=_importable_name(self.params.function),
                     base_dir=str(self.services.base_dir.resolve()), sys_path=list(sys.path),
                     condition=dataclasses.asdict(self.condition), args=self.params.args,
                     max_output_bytes=output_limit(self.services))


IMPORT_SECONDS = 60.0
"""The least time the first worker is given to import the function, however short
`run.timeout` is: a module that imports a large library may take longer than a trial."""


def _import_timeout(services: Services) -> float | None:
    """How long the first worker may take to import the function: `run.timeout`, at least
    `IMPORT_SECONDS`; no limit when the run has none (or outside a configured run)."""
    run = getattr(getattr(services, "config", None), "run", None)
    timeout: float | None = getattr(run, "timeout", None)
    return None if timeout is None else max(timeout, IMPORT_SECONDS)


def _importable_name(function: str | Callable[..., Any]) -> str:
    """The `module:function` a worker process imports; a UserError for a function given from
    Python that cannot be found again by name."""
    if isinstance(function, str):
        return function
    name = reference_of(function)
    module = getattr(function, "__module__", None)
    if (not inspect.isfunction(function) or "<" in function.__qualname__
            or module in (None, "__main__")):
        raise UserError(
            f"python target {name}: with isolation: process the function is imported again "
            "in a worker process, so it must be a module-level function of an importable "
            "module (or given as 'module:function' or 'file.py:function'); a lambda, a "
            "nested function, a method, another callable or a function defined in __main__ "
            "(a script or a notebook) cannot be")
    return name
