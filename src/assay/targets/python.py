"""The `python` target: a function of yours, sync or async, called once per trial.

Whatever the function raises, `sys.exit()` and KeyboardInterrupt included, is
that trial's error (see `assay.config.user_code`), never the run's end.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from assay.case import Case
from assay.condition import Condition
from assay.errors import UserError
from assay.config.user_code import await_guarded, guarded, import_object
from assay.output import Output
from assay.registry import target
from assay.services import Services
from assay.targets.base import Target, TargetParams
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
    and Ctrl-C waits for it. Only for functions that cannot hang."""


@target("python")
class PythonTarget(Target):
    Params = PythonParams
    params: PythonParams

    def __init__(self, params: PythonParams, condition: Condition, services: Services) -> None:
        super().__init__(params, condition, services)
        self._call: Callable[[Case], Any] | None = None
        self._function: Any = None
        self._is_async = False

    async def validate(self) -> None:
        await self.start()

    async def start(self) -> None:
        function = self.params.function
        if isinstance(function, str):
            function = import_object(function, self.services.base_dir)
        if not callable(function):
            raise UserError(f"python target '{self.params.function}' is not callable")
        self._is_async = inspect.iscoroutinefunction(function)
        self._function = function
        self._call = guarded(_bind(function, self.condition, self.params.args), function)

    async def answer(self, case: Case) -> Output:
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


def _bind(function: Callable[..., Any], condition: Condition,
          args: dict[str, Any]) -> Callable[[Case], Any]:
    """Fix the condition and args once, so each call is just `f(case)`."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return lambda case: function(case, **args)
    parameters = signature.parameters
    wants_condition = "condition" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    try:
        if wants_condition:
            signature.bind(None, condition=condition, **args)
        else:
            signature.bind(None, **args)
    except TypeError as exc:
        raise UserError(f"python target {function.__qualname__}{signature} cannot take "
                        f"(case{', condition' if wants_condition else ''}"
                        f"{', ' + ', '.join(args) if args else ''}): {exc}") from None
    if wants_condition:
        return lambda case: function(case, condition=condition, **args)
    return lambda case: function(case, **args)
