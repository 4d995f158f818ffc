"""Costs as people should read them: a known amount, `unknown`, or nothing spent.

A model without a price has an unknown cost, which is not $0: a table that
summed it as 0 would tell someone their run was free. `cost_text` says
`unknown` wherever tokens were spent but no price was known, and the run's
total (target and judges) is given only when every part of it is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.analysis.summary import ConditionStats, RunSummary

UNKNOWN = "unknown"


def cost_text(cost: float | None, tokens: int = 0) -> str:
    """`$0.0123`; `unknown` when tokens were spent without a price; `-` when nothing was."""
    if cost is not None:
        return f"${cost:.4f}"
    return UNKNOWN if tokens else "-"


def target_cost(c: ConditionStats) -> str:
    return cost_text(c.cost_usd, c.input_tokens + c.output_tokens)


def judge_cost(c: ConditionStats) -> str:
    return cost_text(c.judge_cost_usd, c.judge_input_tokens + c.judge_output_tokens)


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


def run_cost_text(summary: RunSummary, usage: Mapping[str, Any] | None = None) -> str | None:
    """`total cost $0.1290 (target $0.0277, judges $0.1013)`, with `unknown` for a part that
    had no price; None for a run without LLM calls. `usage` (the run's call ledger) adds the
    calls to models without a price, which make the total unknown."""
    parts = run_costs(summary)
    if not parts:
        return None
    unpriced = int((usage or {}).get("unpriced_calls") or 0)
    known = unpriced == 0 and all(v is not None for v in parts.values())
    total = sum(v for v in parts.values() if v is not None)
    head = f"total cost ${total:.4f}" if known else "total cost unknown"
    shown = [f"{name} {cost_text(value, 1)}" for name, value in parts.items()]
    if unpriced:
        shown.append(f"{unpriced} call{'s' * (unpriced != 1)} to a model with no price")
    return f"{head} ({', '.join(shown)})"
