"""What every target is: validated params for one condition, and `answer(case)`."""

from __future__ import annotations

from typing import Any, ClassVar

from assay.case import Case
from assay.condition import TOOL_KEYS, Condition
from assay.config.config_model import ConfigModel
from assay.errors import Problem
from assay.output import Output
from assay.services import Services


class TargetParams(ConfigModel):
    """Keys every target accepts."""

    type: str
    """The registered target kind: python, command, model, agent or http."""


class Target:
    """A target kind, instantiated once per condition with that condition's params."""

    kind: ClassVar[str] = ""
    Params: ClassVar[type[TargetParams]] = TargetParams
    honours: ClassVar[frozenset[str]] = TOOL_KEYS
    """Which of a condition's `tool_keys()` this kind acts on (all, unless a kind says
    otherwise: a python function or a plugin gets the condition and may read them). A
    condition setting another is refused before the run: it would differ from its baseline
    in name only, and the comparison would report "no difference" for a change never made."""
    checked_key: ClassVar[str | None] = None
    """The param `validate` and `start` check (a python target's `function`, a command's
    `command`): a `UserError` they raise is the config's problem at that key."""

    def __init__(self, params: TargetParams, condition: Condition, services: Services) -> None:
        self.params = params
        self.condition = condition
        self.services = services

    async def validate(self) -> None:
        """Validate what can be validated without acquiring resources (`assay validate`)."""

    async def start(self) -> None:
        """Acquire resources (clients, processes, MCP sessions) before the first case."""

    async def answer(self, case: Case) -> Output:
        raise NotImplementedError

    async def close(self) -> None:
        """Release what `start` acquired."""

    def template_problems(self, case: Case) -> list[Problem]:
        """One Problem per template param that does not render for `case` (`field` names the
        param, e.g. `prompt`); `assay validate` and `assay run` check them before any trial."""
        return []

    def describe(self) -> dict[str, Any]:
        """A short, secret-free description for reports (model name, function, command)."""
        return self.params.model_dump(exclude_none=True)
