"""Custom scorers: a user's Python function `(case, output, **args)`, named `module:function`.

What `output` is depends on how the function declares it: a parameter
annotated `str` receives the answer text; one annotated `Output` receives the
whole `assay.Output` (text, tool calls, usage, metadata); an unannotated one
receives an `AnswerText`, the text itself that also carries the Output's
fields, so `output == case.expected` and `output.tool_calls` both work.

The function is imported when the scorer is built, before the first trial,
so a typo fails at once with exit code 2 instead of after the first paid answer. It may be sync or
async and may return a Score, a bool, a number or a dict; an exception it
raises while scoring (`sys.exit()` too) is that trial's scorer error, never a
score of 0 and never the end of the run. So is a
result that cannot be a score: a value that is not a finite number inside its
scale (a mean of 7.0 on a 0..1 scale would mislead every report after it).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from assay.case import Case
from assay.errors import UserError
from assay.output import Output
from assay.registry import scorer
from assay.score import Score
from assay.scorers._expected import CheckParams
from assay.scorers.answer_text import AnswerText
from assay.scorers.base import CheckScorer, param_error
from assay.services import Services
from assay.user_code.calls import (
    UserCodeExit,
    await_guarded,
    guarded,
    import_object,
    reference_of,
)


@scorer("python")
class PythonScorer(CheckScorer):
    """Scores with a user's function `(case, output, **args)`."""

    class Params(CheckParams):
        function: (Annotated[str, Field(pattern=r"^[^:]+:[^:]+$")]
                   | SkipJsonSchema[Callable[..., Any]])
        """`module:function` (or `file.py:function`); modules are found in the config's directory
        first. The function receives `(case, output, **args)` (`output` is the answer text when
        the parameter is annotated `str`, the `assay.Output` when annotated `Output`, and
        unannotated the text carrying the Output's fields), may be async, and returns a
        Score, a bool, a number or a dict with value, passed, reason and details. From Python
        (`assay.evaluate`), the function itself."""

        args: dict[str, Any] = Field(default_factory=dict)
        """Keyword arguments passed to the function on every call."""

        threshold: float | None = None
        """For a numeric result without a verdict: passed when value >= threshold.
        Without it such a result has no pass/fail reading."""

        scale: tuple[float, float] = (0.0, 1.0)
        """The (min, max) range of the function's numeric values. A value outside it is a
        scorer error. A returned Score keeps its own scale, except the default (0, 1), which is
        read as this one."""

        @field_validator("scale")
        @classmethod
        def _ordered(cls, scale: tuple[float, float]) -> tuple[float, float]:
            low, high = scale
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"scale must be two finite numbers [min, max] with min < max, "
                                 f"got {list(scale)}")
            return scale

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        self.label = reference_of(params.function)  # how messages and identity name it
        self.function = params.function
        if isinstance(params.function, str):
            try:
                self.function = import_object(params.function, services.base_dir,
                                              what="python scorer")
            except UserError as exc:
                message = str(exc)
                if params.function not in message:
                    message = f"python scorer '{params.function}': {message}"
                raise param_error("function", message) from None
        if not callable(self.function):
            raise param_error("function", f"python scorer '{self.label}' is not callable")
        if inspect.iscoroutinefunction(self.function):
            # An async function cannot run on the synchronous path; the runner awaits `score`.
            setattr(self, "is_sync", False)  # noqa: B010
        self.wants = wanted_output(self.function)
        self._call = guarded(self.function)

    def identity(self) -> dict[str, Any]:
        return {"type": self.params.type, "function": self.label}

    def check(self, case: Case, output: Output) -> Score:
        try:
            result = self._call(case, self._argument(output), **self.params.args)
        except Exception as exc:  # noqa: BLE001 - what user code raises is the score's error
            return self._raised(exc)
        if inspect.isawaitable(result):
            close = getattr(result, "close", None)
            if close is not None:
                close()
            return Score.failure(f"{self.label} is async; it must be awaited via score()")
        return self._to_score(result)

    async def score(self, case: Case, output: Output) -> Score:
        try:
            result = self._call(case, self._argument(output), **self.params.args)
            if inspect.isawaitable(result):
                result = await await_guarded(result, self.function)
        except Exception as exc:  # noqa: BLE001 - what user code raises is the score's error
            return self._raised(exc)
        return self._to_score(result)

    def _argument(self, output: Output) -> Output | str:
        if self.wants == "text":
            return output.text
        return output if self.wants == "output" else AnswerText(output)

    def _raised(self, exc: Exception) -> Score:
        if isinstance(exc, UserCodeExit):
            return Score.failure(str(exc))
        message = f"{self.label} raised {type(exc).__name__}: {exc}"
        if (isinstance(exc, AttributeError) and self.wants == "output"
                and isinstance(getattr(exc, "obj", None), Output)
                and hasattr(str, getattr(exc, "name", None) or "")):
            message += ("; the function receives an assay.Output (its answer is `output.text`): "
                        "annotate the parameter `output: str` to receive the text itself")
        return Score.failure(message)

    def _to_score(self, result: Any) -> Score:
        """Read what the function returned; anything unreadable is an error, not a guess."""
        if isinstance(result, Score):
            return self._checked(result)
        if isinstance(result, bool):
            return Score.binary(result)
        if isinstance(result, int | float):
            return self._numeric(float(result), None, "", {})
        if isinstance(result, dict):
            return self._from_dict(result)
        return Score.failure(f"{self.label} returned {type(result).__name__}; "
                             f"expected a Score, bool, number or dict")

    def _from_dict(self, result: dict[str, Any]) -> Score:
        unknown = set(result) - {"value", "passed", "reason", "details"}
        if unknown:
            return Score.failure(f"{self.label} returned unknown keys "
                                 f"{sorted(unknown)}; allowed: value, passed, reason, details")
        value, passed = result.get("value"), result.get("passed")
        reason, details = str(result.get("reason") or ""), dict(result.get("details") or {})
        if passed is not None and not isinstance(passed, bool):
            return Score.failure(f"{self.label} returned passed={passed!r}, not a bool")
        if value is None:
            if passed is None:
                return Score.failure(f"{self.label} returned neither value nor passed")
            return Score(value=1.0 if passed else 0.0, passed=passed, reason=reason,
                         details=details)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return Score.failure(f"{self.label} returned value={value!r}, not a number")
        return self._numeric(float(value), passed, reason, details)

    def _numeric(self, value: float, passed: bool | None, reason: str,
                 details: dict[str, Any]) -> Score:
        problem = _value_problem(value, self.params.scale)
        if problem:
            return Score.failure(f"{self.label} returned {problem}")
        if passed is None and self.params.threshold is not None:
            passed = value >= self.params.threshold
        return Score(value=value, scale=self.params.scale, passed=passed, reason=reason,
                     details=details)

    def _checked(self, score: Score) -> Score:
        """A returned Score is kept only if it is a score: an error with a reason, or a finite
        value inside its scale with a bool (or no) verdict."""
        if score.error is not None:
            if not str(score.error).strip():
                return Score.failure(f"{self.label} returned a Score with an empty error",
                                     details=score.details, usage=score.usage)
            if score.value is None and score.passed is None:
                return score
            return Score.failure(f"{self.label} returned a Score with both an error and a "
                                 f"value ({score.value!r}, passed={score.passed!r}): "
                                 f"{score.error}", details=score.details, usage=score.usage)
        if score.value is None:
            return Score.failure(f"{self.label} returned Score(value=None) without an error; "
                                 f"return Score.failure(reason) when it cannot score",
                                 details=score.details, usage=score.usage)
        if score.passed is not None and not isinstance(score.passed, bool):
            return Score.failure(f"{self.label} returned a Score with passed={score.passed!r}, "
                                 f"not a bool", details=score.details, usage=score.usage)
        scale = self.params.scale if score.scale == _DEFAULT_SCALE else score.scale
        problem = (_scale_problem(scale)
                   or _value_problem(score.value, (float(scale[0]), float(scale[1]))))
        if problem:
            return Score.failure(f"{self.label} returned a Score with {problem}",
                                 details=score.details, usage=score.usage)
        return replace(score, value=float(score.value), scale=(float(scale[0]), float(scale[1])))


_DEFAULT_SCALE = Score(value=None).scale


def wanted_output(function: Any) -> Literal["text", "output", "either"]:
    """What the function's second parameter (the output) is annotated as: `str` (the text),
    anything else (the Output), or nothing (either: an `AnswerText`)."""
    try:
        signature = inspect.signature(function, eval_str=True)
    except (NameError, TypeError, ValueError, SyntaxError):
        try:
            signature = inspect.signature(function)  # annotations left as written
        except (TypeError, ValueError):
            return "either"
    positional = [p for p in signature.parameters.values()
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2:
        return "either"
    annotation = positional[1].annotation
    if annotation is inspect.Parameter.empty:
        return "either"
    return "text" if annotation is str or annotation == "str" else "output"


def _scale_problem(scale: Any) -> str:
    """Why `scale` is not a (min, max) pair of finite numbers with min < max ('' if it is)."""
    try:
        low, high = scale
        ordered = math.isfinite(low) and math.isfinite(high) and low < high
    except (TypeError, ValueError):
        ordered = False
    return "" if ordered else f"scale={scale!r}, not a finite (min, max) with min < max"


def _value_problem(value: Any, scale: tuple[float, float]) -> str:
    """Why `value` cannot be a score on `scale` ('' if it can)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"value={value!r}, not a number"
    if not math.isfinite(value):
        return f"value={value}, not a finite number"
    low, high = scale
    if not low <= value <= high:
        return f"value={value:g}, outside the scale {low:g}..{high:g}"
    return ""

