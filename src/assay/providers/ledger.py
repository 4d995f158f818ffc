"""What a run has spent on LLM calls, and the budget that stops it.

One ledger per pool (per run): calls made, cache hits, tokens, dollars,
retries and failures, in total and per model. When `run.max_cost_usd` is
set, no new paid call starts once the spend has reached it; calls already
in flight finish, so a run may pass the budget by at most their cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from assay.errors import CostBudgetSpent
from assay.output import Usage
from assay.providers.meter import count_call
from assay.shown_numbers import dollars


@dataclass(slots=True)
class Tally:
    calls: int = 0
    """HTTP calls that returned an answer (cache hits not included)."""
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    """Calls whose model has no price: their cost is unknown, not 0."""
    retries: int = 0
    failures: int = 0
    paid_before: int = 0
    """Calls an earlier process of a resumed run paid for and stored in the response cache
    without the trial that made them: answered from the cache, counted at their cost."""

    def add(self, usage: Usage, *, paid_before: bool = False) -> None:
        if paid_before:
            self.paid_before += usage.calls
        else:
            self.calls += usage.calls
        self.cache_hits += usage.cache_hits
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        if usage.calls and usage.cost_usd is None:
            self.unpriced_calls += usage.calls
        self.cost_usd += usage.cost_usd or 0.0


@dataclass(slots=True)
class Stats:
    """A snapshot of the ledger: run totals and a tally per `provider/model`."""

    total: Tally
    by_model: dict[str, Tally] = field(default_factory=dict)
    max_cost_usd: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self.total),
            "max_cost_usd": self.max_cost_usd,
            "by_model": {name: asdict(tally) for name, tally in self.by_model.items()},
        }


class Ledger:
    def __init__(self, max_cost_usd: float | None = None) -> None:
        self.max_cost_usd = max_cost_usd
        self.spent_before = 0.0
        """What a resumed run spent before this process: the budget is the run's, not the
        process's (each resume counted from $0 would spend the whole budget again)."""
        self._total = Tally()
        self._by_model: dict[str, Tally] = {}

    @property
    def spent_usd(self) -> float:
        return self._total.cost_usd

    @property
    def budget_spent(self) -> float:
        """The run's spend against its budget: before this process, and in it."""
        return self.spent_before + self._total.cost_usd

    def check_budget(self) -> None:
        """Raise `CostBudgetSpent` when a new paid call would go past the budget."""
        if self.max_cost_usd is not None and self.budget_spent >= self.max_cost_usd:
            raise CostBudgetSpent(
                f"run.max_cost_usd reached: spent {dollars(self.budget_spent)} of "
                f"{dollars(self.max_cost_usd)}{self.before_resume()}; no further model calls "
                "were made")

    def before_resume(self) -> str:
        """` ($0.0500 of it before this resume)` when a resumed run had spent some."""
        return f" ({dollars(self.spent_before)} of it before this resume)" if self.spent_before \
            else ""

    def record(self, model: str, usage: Usage, *, paid_before: bool = False) -> None:
        """Count one answered call (or cache hit, or a call paid for `paid_before` this
        process), in the run's totals and in the meter of the work that made it (`meter`)."""
        self._total.add(usage, paid_before=paid_before)
        self._model(model).add(usage, paid_before=paid_before)
        count_call(usage)

    def record_retry(self, model: str) -> None:
        self._total.retries += 1
        self._model(model).retries += 1

    def record_failure(self, model: str) -> None:
        self._total.failures += 1
        self._model(model).failures += 1

    def snapshot(self) -> Stats:
        def copy(tally: Tally) -> Tally:
            return Tally(**asdict(tally))

        return Stats(
            total=copy(self._total),
            by_model={name: copy(tally) for name, tally in sorted(self._by_model.items())},
            max_cost_usd=self.max_cost_usd,
        )

    def _model(self, model: str) -> Tally:
        if model not in self._by_model:
            self._by_model[model] = Tally()
        return self._by_model[model]
