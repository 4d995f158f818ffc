"""The Knowledge Packs summary block of `results.json`: per condition avg, accuracy and n.

The seed's all-packs output gives, per condition, `avg` (the mean score),
`accuracy` (the share of scores that passed, in percent) and `n`, and keeps
the per-condition score arrays. assay writes one such block per scorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.analysis.summary import RunSummary


def knowledge_packs_summary(summary: RunSummary) -> dict[str, Any]:
    """scorer -> {conditions: {condition: {avg, accuracy (%), n, accuracy_n, errors}}, scores}.

    `n` counts the cases with a value (the avg's), `accuracy_n` those with a verdict, and
    `scores` holds one value per case, so `sum(scores) / n` is `avg`. With several epochs a
    case's score is the mean of its epochs and its verdict the share of them that passed:
    `accuracy` is the mean of those shares (every case weighs the same), which a count of
    mean scores at or above the bar need not equal."""
    out: dict[str, Any] = {}
    for scorer in summary.scorer_names:
        block: dict[str, Any] = {}
        for condition in summary.condition_names:
            stats = summary.get(scorer, condition)
            if stats is None:
                continue
            block[condition] = {
                "avg": stats.mean,
                "accuracy": None if stats.pass_rate is None else stats.pass_rate * 100,
                "n": stats.n,
                "accuracy_n": stats.judged_cases,
                "errors": stats.errors,
            }
        out[scorer] = {"conditions": block, "scores": summary.values.get(scorer, {})}
    return out
