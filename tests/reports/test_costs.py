"""A run's costs as text: what a reader adds up on one screen adds up."""

from __future__ import annotations

import re
from decimal import Decimal

from assay.analysis.summary import ConditionStats, RunSummary
from assay.reports.costs import RunCosts
from assay.shown_numbers import dollars


def summary(*conditions: ConditionStats) -> RunSummary:
    return RunSummary(scores=[], conditions=list(conditions), by_tag=[], by_difficulty=[],
                      values={})


def spent(name: str, target: float | None, judge: float | None) -> ConditionStats:
    return ConditionStats(name, trials=50, input_tokens=1000, output_tokens=100, cost_usd=target,
                          judge_input_tokens=800, judge_output_tokens=80, judge_cost_usd=judge)


def amounts(text: str) -> list[Decimal]:
    return [Decimal(x) for x in re.findall(r"\$([\d.]+)", text)]


# The knowledge-packs example's costs: at four decimals the conditions' $0.0016 and
# $0.0261 sat beside a target total of $0.0276, and the judges' $0.0444 and $0.0569
# beside $0.1012.
TRAINING = spent("training", 0.0015808, 0.04437)
PACK = spent("pack", 0.0260584, 0.05686)
LEDGER = {"by_model": {"openai/gpt-4.1": {"cost_usd": 0.10123},
                       "openai/gpt-4.1-mini": {"cost_usd": 0.0276392}}}


def test_the_conditions_costs_add_up_to_the_totals_printed_beside_them():
    costs = RunCosts(summary(TRAINING, PACK), LEDGER)
    total, target, judges = amounts(costs.total() or "")
    assert Decimal(costs.target(TRAINING)[1:]) + Decimal(costs.target(PACK)[1:]) == target
    assert Decimal(costs.judge(TRAINING)[1:]) + Decimal(costs.judge(PACK)[1:]) == judges
    assert target + judges == total
    models = [Decimal(costs.model(m)[1:]) for m in LEDGER["by_model"].values()]
    assert sum(models) == total
    assert costs.total() == "total cost $0.12887 (target $0.02764, judges $0.10123)"


def test_costs_keep_four_decimals_when_those_already_add_up():
    a, b = spent("a", 0.0012, 0.0100), spent("b", 0.0030, 0.0200)
    costs = RunCosts(summary(a, b))
    assert costs.digits == 4
    assert costs.total() == "total cost $0.0342 (target $0.0042, judges $0.0300)"


def test_a_ledger_that_counts_other_calls_than_the_stored_trials_does_not_lengthen_the_digits():
    """A resumed run's ledger holds only the last process's calls: its per-model costs are
    another quantity than the run's total, and no digits would make them add up."""
    a, b = spent("a", 0.0012, 0.0100), spent("b", 0.0030, 0.0200)
    costs = RunCosts(summary(a, b), {"by_model": {"m": {"cost_usd": 0.0171234}}})
    assert costs.digits == 4


def test_a_cost_above_zero_never_reads_as_nothing_spent():
    assert dollars(0.0000292) == "$0.00003"
    assert dollars(0.0) == "$0.0000"
    tiny = spent("a", 0.0000292, 0.0001)
    costs = RunCosts(summary(tiny))
    assert costs.target(tiny) == "$0.00003"
    assert "$0.0000 " not in (costs.total() or "")


def test_an_unknown_price_makes_the_total_unknown_and_no_part_zero():
    unpriced = spent("a", None, 0.01)
    costs = RunCosts(summary(unpriced, spent("b", 0.002, 0.01)))
    assert costs.target(unpriced) == "unknown"
    assert costs.total() == "total cost unknown (target unknown, judges $0.0200)"
    idle = ConditionStats("idle", trials=3)
    assert RunCosts(summary(idle)).total() is None
    assert RunCosts(summary(idle)).target(idle) == "-"


def test_calls_to_a_model_without_a_price_are_named_in_the_total():
    costs = RunCosts(summary(spent("a", 0.002, None)), {"unpriced_calls": 2})
    assert costs.total() == ("total cost unknown (target $0.0020, judges unknown, "
                             "2 calls of unknown cost: no price, or no token usage in the "
                             "reply)")


def test_regression_calls_of_unknown_cost_make_a_total_when_no_part_reported_tokens():
    """Replies without token usage left every part without tokens or cost: the run printed
    no total at all, as if it had made no paid call."""
    idle = ConditionStats("a", trials=3)
    assert RunCosts(summary(idle), {"unpriced_calls": 3}).total() == (
        "total cost unknown (3 calls of unknown cost: no price, or no token usage in the "
        "reply)")


def test_tokens_read_unknown_when_nothing_reported_them() -> None:
    from assay.reports.costs import tokens_text

    assert tokens_text(None, None) == "unknown"
    assert tokens_text(1234, 56) == "1,234/56"


def no_usage_ledger(*models: str) -> dict[str, object]:
    """A ledger whose calls to `models` came back without token usage."""
    return {"unpriced_calls": 12, "by_model": {
        "openai/gpt-4.1": {"cost_usd": 0.02, "unpriced_calls": 0},
        **{m: {"cost_usd": 0.0, "unpriced_calls": 12} for m in models}}}


def test_regression_a_condition_whose_replies_carried_no_usage_costs_unknown_not_nothing():
    """A condition whose model sent no token usage showed tokens 'unknown', cost '-' and a
    target total of the other condition's $0.0001, beside 'total cost unknown'."""
    priced = spent("training", 0.0001, 0.0093)
    silent = ConditionStats("local", trials=12, judge_input_tokens=4626,
                            judge_output_tokens=348, judge_cost_usd=0.012)
    costs = RunCosts(summary(priced, silent), no_usage_ledger("openai/gpt-4.1-nano"),
                     judge_models=["openai/gpt-4.1"])
    assert costs.target(silent) == "unknown" and costs.judge(silent) == "$0.0120"
    assert costs.target(priced) == "$0.0001"
    assert (costs.total() or "").startswith("total cost unknown (target unknown, judges $0.0213")


def test_a_judge_without_usage_leaves_a_python_targets_cost_at_nothing_spent():
    python = ConditionStats("plain", trials=5)
    costs = RunCosts(summary(python), no_usage_ledger("openai/gpt-4.1-nano"),
                     judge_models=["openai/gpt-4.1-nano"])
    assert costs.target(python) == "-" and costs.judge(python) == "unknown"
    failed = ConditionStats("down", trials=5, errors=5)  # no answer: nothing was spent on it
    assert RunCosts(summary(failed), no_usage_ledger("m")).target(failed) == "-"


def test_one_amount_summed_in_two_orders_reads_the_same() -> None:
    """Regression: the judges' $0.00525, summed by the store, read '$0.0053' in the cost
    table while the ledger's sum of the same calls, $0.0052499999999999995, read '$0.0052'
    under calls per model, on the same screen."""
    assert dollars(0.0052499999999999995) == dollars(0.00525) == "$0.0053"
    judged = ConditionStats("a", trials=6, cost_usd=None, judge_input_tokens=1877,
                            judge_output_tokens=187, judge_cost_usd=0.00525)
    costs = RunCosts(summary(judged), {"unpriced_calls": 6, "by_model": {
        "openai/gpt-4.1": {"cost_usd": 0.0052499999999999995, "unpriced_calls": 0},
        "openai/gpt-4.1-mini": {"cost_usd": 0.0, "unpriced_calls": 6}}},
        judge_models=["openai/gpt-4.1"])
    assert costs.judge(judged) == costs.model(costs.usage["by_model"]["openai/gpt-4.1"])
