"""What every scorer is: validated params, a name, and `score(case, output)`."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from assay.case import Case
from assay.output import Output
from assay.score import Score
from assay.services import Services


class ScorerParams(BaseModel):
    """Keys every scorer accepts."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    type: str
    """The registered scorer kind, e.g. `contains` or `judge_score`."""

    name: str | None = None
    """The name results are reported under; defaults to the type. Must be unique in a config."""


class Scorer:
    """A scorer kind. Subclasses set `Params` and implement `score` (or `check`)."""

    kind: ClassVar[str] = ""
    Params: ClassVar[type[ScorerParams]] = ScorerParams
    is_sync: ClassVar[bool] = False
    """True when `check` is implemented: the runner calls it without a coroutine."""

    def __init__(self, params: ScorerParams, services: Services) -> None:
        self.params = params
        self.services = services
        self.name = params.name or params.type

    async def setup(self) -> None:
        """Prepare shared resources before the first trial (clients, compiled schemas)."""

    async def score(self, case: Case, output: Output) -> Score:
        return self.check(case, output)

    def check(self, case: Case, output: Output) -> Score:
        raise NotImplementedError

    def identity(self) -> dict[str, Any]:
        """What decides whether two runs' scores are comparable (judge model, prompt hash)."""
        return {"type": self.params.type}


class CheckScorer(Scorer):
    """A deterministic scorer: a plain function of case and output, no I/O."""

    is_sync = True

    def check(self, case: Case, output: Output) -> Score:  # pragma: no cover - abstract
        raise NotImplementedError


def threshold_field(default: float, description: str) -> Any:
    return Field(default=default, description=description)
