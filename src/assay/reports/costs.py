"""Costs as people should read them: a known amount, `unknown`, or nothing spent.

A model without a price has an unknown cost, which is not $0: a table that
summed it as 0 would tell someone their run was free. `unknown` stands
wherever tokens were spent but no price was known, and the run's total
(target and judges) is given only when every part of it is known.

A reader adds up what a screen shows, so one run's costs are all written
with the same digits, and with enough of them that the conditions' costs
add up to the target's and the judges' totals, those two to the run's
total, and the calls per model to it as well: $0.0016 + $0.0261 beside a
total of $0.0276 reads as an error, $0.00158 + $0.02606 = $0.02764 does
not. For the same reason a cost above zero never reads `$0.0000`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from assay.shown_numbers import COST_DIGITS, MAX_COST_DIGITS, count, dollar_amount, dollars
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.summary import ConditionStats, RunSummary
    from assay.output import Usage

UNKNOWN = "unknown"
CACHED_TARGET_CALLS = "target calls cached"
"""The per-condition column of LLM calls a target's answers took from the response cache:
the targets' alone, while the run's total of cached calls counts the judges' too."""
CACHED_JUDGE_CALLS = "judge calls cached"
"""The per-condition column of the judges' calls answered from the response cache, shown
when there are any: beside a judge cost of $0, it says the verdicts were not free but
shared."""
SHARED_JUDGE_COST = "judge cost shared"
"""The per-condition column beside it: what those cached verdicts cost when they were paid
for. Which of two conditions answering alike asks first, and pays, is a matter of timing;
the judge cost plus this is what the condition's verdicts cost either way."""
CACHED_JUDGE_CALLS_NOTE = (
    f"{CACHED_JUDGE_CALLS}: verdicts on answers identical to ones another condition (or an "
    "earlier run) had judged by the same request, paid for once by the first to ask; a "
    "condition's judge cost counts only the verdicts it paid for, and "
    f"{SHARED_JUDGE_COST} what its cached ones cost whoever paid for them (not paid again, "
    "not in the total)")
"""What the column means, said once under the table that shows it."""


def judge_calls_cached(conditions: Sequence[ConditionStats]) -> bool:
    """Whether any condition's verdicts came from the response cache (its column is shown)."""
    return any(c.judge_cache_hits for c in conditions)
def tokens_text(input_tokens: int | None, output_tokens: int | None) -> str:
    """`1,234/567`; `unknown` when nothing reported the tokens (never `0/0`)."""
    if input_tokens is None and output_tokens is None:
        return UNKNOWN
    return f"{count(input_tokens or 0)}/{count(output_tokens or 0)}"


def usage_tokens_text(usage: Usage) -> str:
    """The tokens of one answer's or one verdict's calls, as `tokens_text` writes them:
    `0/0` for calls answered from the response cache (their cost is known, $0: assay prices
    the tokens), `unknown` when nothing reported the tokens and no cost is known."""
    if usage.input_tokens or usage.output_tokens or usage.cost_usd is not None:
        return tokens_text(usage.input_tokens, usage.output_tokens)
    return UNKNOWN


def cost_text(cost: float | None, tokens: int = 0, digits: int = COST_DIGITS) -> str:
    """`$0.0123`; `unknown` when tokens were spent without a price; `-` when nothing was."""
    if cost is not None:
        return dollars(cost, digits)
    return UNKNOWN if tokens else "-"


class RunCosts:
    """One run's costs as text, every one of them with the digits the run needs."""

    def __init__(self, summary: RunSummary, usage: Mapping[str, Any] | None = None,
                 judge_models: Iterable[str] = ()) -> None:
        self.summary = summary
        self.usage = usage or {}
        self.unpriced_calls = int(self.usage.get("unpriced_calls") or 0)
        unpriced = {name for name, calls in (self.usage.get("by_model") or {}).items()
                    if calls.get("unpriced_calls")}
        judges = set(judge_models)
        self._unreported = {"target": bool(unpriced - judges), "judges": bool(unpriced & judges)}
        self.parts = run_costs(summary)
        for part, of in (("target", self._target_unreported), ("judges", self._judge_unreported)):
            if any(of(c) for c in summary.conditions):
                self.parts[part] = None
        self.digits = _digits(self._sums())

    def target(self, c: ConditionStats) -> str:
        if self._target_unknown(c):
            return UNKNOWN
        return cost_text(c.cost_usd, 0, self.digits)

    def judge(self, c: ConditionStats) -> str:
        if self._judge_unknown(c):
            return UNKNOWN
        return cost_text(c.judge_cost_usd, 0, self.digits)

    def shared(self, c: ConditionStats) -> str:
        """What the condition's verdicts from the response cache cost when first paid for;
        `unknown` for cached verdicts whose price was not kept, `-` for none."""
        if c.judge_shared_cost_usd is None:
            return UNKNOWN if c.judge_cache_hits else "-"
        return dollars(c.judge_shared_cost_usd, self.digits)

    def spent(self, c: ConditionStats) -> float | None:
        """What the condition's target and judges spent together; None when either part's
        cost is unknown (the known part alone would read as the whole)."""
        if self._target_unknown(c) or self._judge_unknown(c):
            return None
        return (c.cost_usd or 0.0) + (c.judge_cost_usd or 0.0)

    def _target_unknown(self, c: ConditionStats) -> bool:
        """Tokens spent without a price, or calls of unknown cost (`_target_unreported`)."""
        spent_tokens = bool((c.input_tokens or 0) + (c.output_tokens or 0))
        return (c.cost_usd is None and spent_tokens) or self._target_unreported(c)

    def _judge_unknown(self, c: ConditionStats) -> bool:
        spent_tokens = bool((c.judge_input_tokens or 0) + (c.judge_output_tokens or 0))
        return (c.judge_cost_usd is None and spent_tokens) or self._judge_unreported(c)

    def _target_unreported(self, c: ConditionStats) -> bool:
        """The condition's answers came from calls of unknown cost: none of its trials
        reported tokens or a cost, and the run's ledger counted calls of unknown cost of a
        model that is not a judge's (a reply without token usage). Such a cost is unknown,
        not nothing (`-`), as the run's total beside it says."""
        return (self._unreported["target"] and c.trials > c.errors and c.cost_usd is None
                and c.input_tokens is None and c.output_tokens is None)

    def _judge_unreported(self, c: ConditionStats) -> bool:
        """As `_target_unreported`, for the judges' calls on the condition's answers."""
        return (self._unreported["judges"] and c.trials > c.errors
                and c.judge_cost_usd is None and c.judge_input_tokens is None
                and c.judge_output_tokens is None)

    def model(self, calls: Mapping[str, Any]) -> str:
        """A model's line of the call ledger (`usage["by_model"]`)."""
        return UNKNOWN if calls.get("unpriced_calls") else dollars(calls["cost_usd"],
                                                                   self.digits)

    def total(self) -> str | None:
        """`total cost $0.1290 (target $0.0277, judges $0.1013)`, with `unknown` for a part
        without a price and the calls whose cost is unknown (a model without a price, a reply
        without token usage); None for a run without LLM calls."""
        if not self.parts and not self.unpriced_calls:
            return None
        total = self._total()
        head = "total cost unknown" if total is None else f"total cost {dollars(total, self.digits)}"
        shown = [f"{name} {cost_text(value, 1, self.digits)}" for name, value in self.parts.items()]
        if self.unpriced_calls:
            shown.append(f"{plural(self.unpriced_calls, 'call')} of unknown cost: no price, "
                         "or no token usage in the reply")
        return f"{head} ({', '.join(shown)})"

    def _total(self) -> float | None:
        if self.unpriced_calls or any(v is None for v in self.parts.values()):
            return None
        return sum(v for v in self.parts.values() if v is not None)

    def _sums(self) -> list[tuple[Sequence[float], float]]:
        """Every (parts, total) a reader may add up, where all of it is known."""
        conditions = self.summary.conditions
        sums: list[tuple[Sequence[float], float]] = []
        for name, costs in (("target", [c.cost_usd for c in conditions]),
                            ("judges", [c.judge_cost_usd for c in conditions])):
            total = self.parts.get(name)
            if total is not None:
                sums.append(([v for v in costs if v is not None], total))
        total = self._total()
        if total is not None:
            sums.append(([v for v in self.parts.values() if v is not None], total))
            models = [m.get("cost_usd") for m in (self.usage.get("by_model") or {}).values()
                      if not m.get("unpriced_calls")]
            priced = [v for v in models if isinstance(v, (int, float))]
            # the ledger counts this process's calls: a resumed run's differ, and then
            # there is nothing to make add up
            if priced and abs(sum(priced) - total) < 1e-9:
                sums.append((priced, total))
        return sums


def _digits(sums: Iterable[tuple[Sequence[float], float]]) -> int:
    """The fewest digits (4 to 8) at which every sum shown adds up and no cost above zero
    reads as zero."""
    sums = list(sums)
    for digits in range(COST_DIGITS, MAX_COST_DIGITS + 1):
        if all(_adds_up(parts, total, digits) for parts, total in sums):
            return digits
    return MAX_COST_DIGITS


def _adds_up(parts: Sequence[float], total: float, digits: int) -> bool:
    amounts = [dollar_amount(v, digits) for v in parts]
    if any(v > 0 and s == 0 for v, s in zip(parts, amounts)):
        return False
    return sum(amounts, Decimal(0)) == dollar_amount(total, digits)


def run_costs(summary: RunSummary) -> dict[str, float | None]:
    """What the target and the judges spent over the run, by part (`target`, `judges`): a
    part that made no LLM call is left out, and one with tokens but no price is None."""
    conditions = summary.conditions
    parts: dict[str, float | None] = {}
    target = [c.cost_usd for c in conditions
              if c.cost_usd is not None or c.input_tokens or c.output_tokens]
    judges = [c.judge_cost_usd for c in conditions
              if c.judge_cost_usd is not None or c.judge_input_tokens or c.judge_output_tokens]
    for name, values in (("target", target), ("judges", judges)):
        if values:
            parts[name] = None if any(v is None for v in values) else sum(
                v for v in values if v is not None)
    return parts
