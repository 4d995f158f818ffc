"""What every scorer is: validated params, a name, and `score(case, output)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from assay.case import Case
from assay.config.config_model import ConfigModel
from assay.errors import Problem, UserError
from assay.output import Output
from assay.score import Score
from assay.services import Services

if TYPE_CHECKING:
    from assay.scorers._expected import Reference


class ScorerParams(ConfigModel):
    """Keys every scorer accepts."""

    type: str
    """The registered scorer kind, e.g. `contains` or `judge_score`."""

    name: str | None = None
    """The name results are reported under; defaults to the type. Must be unique in a config."""

    template_fields: ClassVar[tuple[str, ...]] = ()
    """The params holding templates over a case, which `assay validate` renders on a case."""


class Scorer:
    """A scorer kind. Subclasses set `Params` and implement `score` (or `check`)."""

    kind: ClassVar[str] = ""
    Params: ClassVar[type[ScorerParams]] = ScorerParams
    is_sync: ClassVar[bool] = False
    """True when `check` is implemented: the runner calls it without a coroutine."""
    bounded: ClassVar[bool] = False
    """True when `check` takes time bounded by the size of the case and output (no user
    code, no backtracking regex): the runner then calls it inline. Any other sync scorer
    runs in a worker thread under the trial's deadline."""

    def __init__(self, params: ScorerParams, services: Services) -> None:
        self.params = params
        self.services = services
        self.name = params.name or params.type

    async def setup(self) -> None:
        """Prepare shared resources before the first trial (clients, compiled schemas)."""

    async def score(self, case: Case, output: Output) -> Score | None:
        return self.check(case, output)

    def check(self, case: Case, output: Output) -> Score | None:
        """The verdict; None when the case gives this scorer nothing to judge (e.g. a
        tool-call check on a case with no expected calls): no verdict is stored, so the
        case is outside this scorer's n, pass rate, gates and comparisons."""
        raise NotImplementedError

    @property
    def compares_with_reference(self) -> bool:
        """Whether each case must give this scorer something to compare against (an
        `expected`, a recorded answer): only then is the dataset read for `reference_problem`."""
        return False

    def reference_problem(self, case: Case) -> str | None:
        """Why this scorer could not score `case` whatever the answer (a field it compares
        with is empty), or None: `assay validate` and `assay run` ask it of every case before
        the first trial (runner.preflight.check_references)."""
        return None

    @property
    def may_not_apply(self) -> bool:
        """Whether some cases may give this scorer nothing to judge (`check` returns None):
        only then is the dataset read for `not_applicable`."""
        return False

    def not_applicable(self, case: Case) -> str | None:
        """Why this scorer gives no verdict on `case` whatever the answer, or None when it
        applies: one that applies to no case would measure nothing, a config error found
        before the first trial (runner.preflight.check_references)."""
        return None

    def identity(self) -> dict[str, Any]:
        """What decides whether two runs' scores are comparable (judge model, prompt hash)."""
        return {"type": self.params.type}

    def template_variables(self, case: Case) -> dict[str, Any]:
        """The names this scorer's templates may use for `case`."""
        from assay.config.templates import case_variables

        return case_variables(case)

    def template_problems(self, case: Case) -> list[Problem]:
        """One Problem per configured template that does not render for `case`, its `field`
        relative to the scorer (e.g. `value`)."""
        from assay.config.templates import render_problem

        problems = []
        variables = self.template_variables(case)
        for name in self.params.template_fields:
            value = getattr(self.params, name, None)
            sources = [value] if isinstance(value, str) else list(value or [])
            for index, source in enumerate(sources):
                problem = render_problem(source, variables)
                if problem is not None:
                    field = name if isinstance(value, str) else f"{name}.{index}"
                    problems.append(Problem(f"{problem} (rendered for case '{case.id}')",
                                            field=field))
        return problems


class CheckScorer(Scorer):
    """A deterministic scorer: a plain function of case and output, no I/O."""

    is_sync = True
    reference: Reference | None = None
    """What a check compares an answer against (`expected`, or `value:`), for checks that do."""

    def check(self, case: Case, output: Output) -> Score | None:  # pragma: no cover
        raise NotImplementedError

    @property
    def compares_with_reference(self) -> bool:
        return self.reference is not None

    def reference_problem(self, case: Case) -> str | None:
        """Why this check would have nothing to compare `case`'s answer against (no
        `expected`, no `value:`), or None."""
        if self.reference is None:
            return None
        found = self.reference.texts(case)
        return found.error if isinstance(found, Score) else None


def param_error(field: str, message: str) -> UserError:
    """A scorer's construction error about one of its params: the plan adds file and line."""
    return UserError(message, [Problem(message, field=field)])


def threshold_field(default: float, description: str) -> Any:
    return Field(default=default, description=description)
