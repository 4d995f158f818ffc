"""The grand summary of a suite, in the shape of the Knowledge Packs `all_packs_evaluation.json`.

Timestamp, packs_evaluated, sample_per_pack, a grand_summary per condition
(avg, accuracy in percent, n) and per_pack score arrays. Each experiment is
summarised by its headline scorer, the first one its config lists.

A total only pools numbers that mean the same thing: one scorer on one
scale. When the configs lead with different scorers (a 0-10 judge score in
one, a 0-1 check in another) no total pools them: `grand_summary` is null,
`grand_summary_by_scorer` has one total per scorer and scale, and `warnings`
says why. Every total names the experiments it covers and counts its cases:
`n` for the average, `accuracy_n` for the accuracy (cases with a verdict),
both per case first when a run has several epochs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.analysis.summary import RunSummary, ScoreStats


Scale = tuple[float, float]


@dataclass
class SuiteEntry:
    """One config of the suite, and how its run ended."""

    config: Path
    exit_code: int
    experiment: str | None = None
    run_id: str | None = None
    summary: RunSummary | None = None
    error: str | None = None


@dataclass
class _Total:
    """One condition of one scorer, over the experiments that have it."""

    value_sum: float = 0.0
    n: int = 0
    rate_sum: float = 0.0
    accuracy_n: int = 0
    errors: int = 0
    experiments: list[str] = field(default_factory=list)

    def add(self, experiment: str, stats: ScoreStats) -> None:
        self.experiments.append(experiment)
        self.value_sum += (stats.mean or 0.0) * stats.n
        self.n += stats.n
        if stats.pass_rate is not None:
            self.rate_sum += stats.pass_rate * stats.judged_cases
            self.accuracy_n += stats.judged_cases
        self.errors += stats.errors

    def figures(self) -> dict[str, Any]:
        return {"avg": self.value_sum / self.n if self.n else None,
                "accuracy": self.rate_sum / self.accuracy_n * 100 if self.accuracy_n else None,
                "n": self.n, "accuracy_n": self.accuracy_n, "errors": self.errors,
                "experiments": list(self.experiments)}


@dataclass
class _Group:
    """Every experiment led by one scorer on one scale: the figures that may be pooled."""

    scorer: str
    scale: Scale | None
    """None while no experiment of the group gave the scorer a value."""
    experiments: list[str] = field(default_factory=list)
    totals: dict[str, _Total] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.scorer} ({scale_text(self.scale)})"

    def add(self, experiment: str, block: dict[str, ScoreStats]) -> None:
        self.experiments.append(experiment)
        for condition, stats in block.items():
            self.totals.setdefault(condition, _Total()).add(experiment, stats)

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "scale": None if self.scale is None else list(self.scale),
                "experiments": list(self.experiments),
                "conditions": {c: t.figures() for c, t in self.totals.items()}}


def grand_summary(entries: Sequence[SuiteEntry], *, sample: int | None) -> dict[str, Any]:
    """The all-packs document: totals per scorer and condition, and each experiment's scores."""
    per_pack: dict[str, Any] = {}
    headed: list[tuple[str, str, Scale | None, dict[str, ScoreStats]]] = []
    for entry in entries:
        if entry.summary is None or not entry.summary.scorer_names:
            continue
        summary = entry.summary
        scorer = summary.scorer_names[0]
        name = _unique(entry.experiment or entry.config.stem, per_pack)
        block = {c: s for c in summary.condition_names if (s := summary.get(scorer, c))}
        scale = next((s.scale for s in block.values() if s.n), None)
        headed.append((name, scorer, scale, block))
        per_pack[name] = {"scores": summary.values.get(scorer, {}), "scorer": scorer,
                          "scale": None if scale is None else list(scale),
                          "summary": {c: _figures(s) for c, s in block.items()},
                          "run_id": entry.run_id, "config": str(entry.config),
                          "exit_code": entry.exit_code}
    groups: dict[tuple[str, Scale | None], _Group] = {}
    known = {(scorer, scale) for _, scorer, scale, _ in headed if scale is not None}
    for name, scorer, scale, block in headed:
        if scale is None:  # no value at all: it joins its scorer's group when there is one
            scales = [s for k, s in known if k == scorer]
            scale = scales[0] if len(scales) == 1 else None
        groups.setdefault((scorer, scale), _Group(scorer, scale)).add(name, block)
    pooled = list(groups.values())
    return {
        "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "packs_evaluated": len(per_pack),
        "sample_per_pack": sample,
        "grand_summary": (None if len(pooled) > 1 else
                          {c: t.figures() for g in pooled for c, t in g.totals.items()}),
        "grand_summary_by_scorer": [g.to_dict() for g in pooled],
        "warnings": _warnings(pooled),
        "per_pack": per_pack,
        "scorers": sorted({g.scorer for g in pooled}),
        "failed": [{"config": str(e.config), "exit_code": e.exit_code, "error": e.error}
                   for e in entries if e.summary is None],
        "exit_code": max((e.exit_code for e in entries), default=0),
    }


def scale_text(scale: Sequence[float] | None) -> str:
    """`0–10`; `scale unknown` for a scorer that got no value at all."""
    return "scale unknown" if scale is None else f"{scale[0]:g}–{scale[1]:g}"


def _warnings(groups: list[_Group]) -> list[str]:
    """Why there is no single total, and totals that leave experiments out."""
    warnings = []
    if len(groups) > 1:
        warnings.append(
            "the configs lead with different scorers or scales ("
            + "; ".join(f"{g.label}: {', '.join(g.experiments)}" for g in groups)
            + "): no total pools them, so grand_summary is null and each scorer has its own "
              "total in grand_summary_by_scorer; list the same scorer first in every config "
              "for one grand total")
    for group in groups:
        for condition, total in group.totals.items():
            if len(total.experiments) < len(group.experiments):
                warnings.append(
                    f"{group.label}: the '{condition}' total covers {len(total.experiments)} of "
                    f"{len(group.experiments)} experiments ({', '.join(total.experiments)})")
    return warnings


def _figures(stats: ScoreStats) -> dict[str, Any]:
    """avg, accuracy (percent of cases that passed, per case first; None without verdicts),
    n (cases with a value) and accuracy_n (cases with a verdict)."""
    return {"avg": stats.mean,
            "accuracy": None if stats.pass_rate is None else stats.pass_rate * 100,
            "n": stats.n, "accuracy_n": stats.judged_cases, "errors": stats.errors}


def _unique(name: str, taken: dict[str, Any]) -> str:
    if name not in taken:
        return name
    index = 2
    while f"{name}#{index}" in taken:
        index += 1
    return f"{name}#{index}"
