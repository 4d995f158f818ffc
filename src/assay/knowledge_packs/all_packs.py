"""The grand summary of a suite, in the shape of the Knowledge Packs `all_packs_evaluation.json`.

Timestamp, packs_evaluated, sample_per_pack, a grand_summary per condition
(avg, accuracy in percent, n) and per_pack score arrays. Each experiment is
summarised by its headline scorer, the first one its config lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.analysis.summary import RunSummary


@dataclass
class SuiteEntry:
    """One config of the suite, and how its run ended."""

    config: Path
    exit_code: int
    experiment: str | None = None
    run_id: str | None = None
    summary: RunSummary | None = None
    error: str | None = None


def grand_summary(entries: Sequence[SuiteEntry], *, sample: int | None) -> dict[str, Any]:
    """The all-packs document: totals per condition, and each experiment's scores."""
    per_pack: dict[str, Any] = {}
    totals: dict[str, dict[str, float]] = {}
    scorers: set[str] = set()
    for entry in entries:
        if entry.summary is None or not entry.summary.scorer_names:
            continue
        summary = entry.summary
        scorer = summary.scorer_names[0]
        scorers.add(scorer)
        name = _unique(entry.experiment or entry.config.stem, per_pack)
        block: dict[str, Any] = {}
        for condition in summary.condition_names:
            stats = summary.get(scorer, condition)
            if stats is None:
                continue
            block[condition] = _figures(stats.mean, stats.n, stats.passed, stats.judged)
            total = totals.setdefault(condition, {"sum": 0.0, "n": 0, "passed": 0, "judged": 0})
            total["sum"] += (stats.mean or 0.0) * stats.n
            total["n"] += stats.n
            total["passed"] += stats.passed
            total["judged"] += stats.judged
        per_pack[name] = {"scores": summary.values.get(scorer, {}), "scorer": scorer,
                          "summary": block, "run_id": entry.run_id, "config": str(entry.config),
                          "exit_code": entry.exit_code}
    return {
        "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "packs_evaluated": len(per_pack),
        "sample_per_pack": sample,
        "grand_summary": {
            condition: _figures(t["sum"] / t["n"] if t["n"] else None, int(t["n"]),
                                int(t["passed"]), int(t["judged"]))
            for condition, t in totals.items()},
        "per_pack": per_pack,
        "scorers": sorted(scorers),
        "failed": [{"config": str(e.config), "exit_code": e.exit_code, "error": e.error}
                   for e in entries if e.summary is None],
        "exit_code": max((e.exit_code for e in entries), default=0),
    }


def _figures(mean: float | None, n: int, passed: int, judged: int) -> dict[str, Any]:
    """avg, accuracy (percent of verdicts that passed; None without verdicts) and n."""
    return {"avg": mean, "accuracy": passed / judged * 100 if judged else None, "n": n}


def _unique(name: str, taken: dict[str, Any]) -> str:
    if name not in taken:
        return name
    index = 2
    while f"{name}#{index}" in taken:
        index += 1
    return f"{name}#{index}"
