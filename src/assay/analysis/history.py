"""An experiment over time: its runs, oldest first, with the headline metrics of each.

Runs are grouped by experiment (and kind: eval runs and `assay traces` runs
measure different things). The metrics come from the summary stored with
each run, so listing history never re-reads trials:

- eval runs: per scorer and condition, the pass rate in percent when the
  scorer gives verdicts, else the mean score; and the trials whose target failed;
- traces runs: every number in the stored `metrics` block (hit rate,
  wasted reads, tool error rate, ...), plus finding counts when judged.

A run without a summary (interrupted, failed) is listed with no metrics.

A run over another dataset than the run before it (another file, or the file
edited) answered other questions, so its numbers are not a move from the
earlier ones: the run is marked, and a metric whose last two values straddle
the change has no up or down trend, only `dataset_changed`. A run whose knowledge
packs were edited since the run before it (`packs_changed`) is marked too, but its
trend stands: a pack is a thing a team improves, and the move may be its doing.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.run_status import shown_status

Direction = Literal["up", "down", "flat", "new", "dataset_changed"]


@dataclass(frozen=True)
class HistoryPoint:
    run_id: str
    started_at: str
    status: str
    git_commit: str | None
    metrics: dict[str, float]
    """metric name -> value; absent when the run has no value for it."""
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    """metric name -> its 95% CI (low, high) in the metric's unit, where the run stored one."""
    dataset_hash: str | None = None
    dataset_changed: bool = False
    """The dataset differs from the one of the run before it (of those recording one)."""
    stale: bool = False
    """Marked `running` or `reviewing`, but nothing seems to run it (see
    `store.stalled_runs`)."""
    packs_changed: tuple[str, ...] = ()
    """The knowledge packs whose documents differ from the last earlier run that read them."""

    @property
    def shown_status(self) -> str:
        """The status as `assay runs` shows it: `running?` for a run that has probably stopped."""
        return shown_status(self.status, stalled=self.stale)


@dataclass
class ExperimentHistory:
    experiment: str
    kind: str
    metrics: list[str] = field(default_factory=list)
    """Metric names in first-seen order."""
    points: list[HistoryPoint] = field(default_factory=list)
    """Oldest first."""
    scales: dict[str, tuple[float, float]] = field(default_factory=dict)
    """A mean's scale (its latest run's), by metric name: a mean is printed on it, as the
    score table prints it (0.9997 on 0..1 is not `1`)."""

    def series(self, metric: str) -> list[float | None]:
        return [p.metrics.get(metric) for p in self.points]

    def dataset_changed_between(self, earlier: int, later: int) -> bool:
        """Whether a run after point `earlier`, up to point `later`, changed the dataset."""
        return any(point.dataset_changed for point in self.points[earlier + 1:later + 1])

    def trend(self, metric: str) -> Direction:
        """The last value against the one before it (among runs that have the metric)."""
        having = [i for i, point in enumerate(self.points) if metric in point.metrics]
        if len(having) < 2:
            return "new"
        before, last = having[-2], having[-1]
        if self.dataset_changed_between(before, last):
            return "dataset_changed"
        delta = self.points[last].metrics[metric] - self.points[before].metrics[metric]
        if math.isclose(delta, 0.0, abs_tol=1e-9):
            return "flat"
        return "up" if delta > 0 else "down"

    def beyond_noise(self, metric: str) -> bool:
        """Whether the last move is larger than either run's noise: the two runs' stored 95%
        intervals do not overlap. A move within them may be chance (`assay compare` tests it
        case by case); traces runs store no intervals, so none of their moves is beyond it."""
        having = [i for i, point in enumerate(self.points) if metric in point.metrics]
        if len(having) < 2 or self.trend(metric) not in ("up", "down"):
            return False
        before = self.points[having[-2]].intervals.get(metric)
        last = self.points[having[-1]].intervals.get(metric)
        if before is None or last is None:
            return False
        return last[0] > before[1] or last[1] < before[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment, "kind": self.kind, "metrics": self.metrics,
            "runs": [{"id": p.run_id, "started_at": p.started_at, "status": p.status,
                      "git_commit": p.git_commit, "dataset_hash": p.dataset_hash,
                      "dataset_changed": p.dataset_changed,
                      "packs_changed": list(p.packs_changed), "stale": p.stale,
                      "metrics": {m: p.metrics[m] for m in self.metrics if m in p.metrics}}
                     for p in self.points],
            "trend": {m: self.trend(m) for m in self.metrics},
        }


TARGET_ERRORS = "target_errors"
"""An eval run's trials whose target failed, over its conditions: its pass rates and means
are over the trials scored, so without it a run whose trials errored read as a clean one."""


def eval_metrics(summary: Mapping[str, Any] | None) -> dict[str, float]:
    """`scorer@condition` -> pass rate in percent (or `scorer.mean@condition` -> mean), and
    `target_errors`, as the report's conditions table names them."""
    out = {name: float(entry["pass_rate"]) * 100 if rate else float(entry["mean"])
           for name, entry, rate in _score_metrics(summary)}
    conditions = [c for c in (summary or {}).get("conditions") or [] if isinstance(c, Mapping)]
    if conditions:
        out[TARGET_ERRORS] = float(sum(int(c.get("errors") or 0) for c in conditions))
    return out


def eval_intervals(summary: Mapping[str, Any] | None) -> dict[str, tuple[float, float]]:
    """The stored 95% CI of each metric `eval_metrics` names, in the same unit."""
    out: dict[str, tuple[float, float]] = {}
    for name, entry, rate in _score_metrics(summary):
        ci = entry.get("pass_rate_ci" if rate else "mean_ci")
        if isinstance(ci, Mapping):
            unit = 100 if rate else 1
            out[name] = (float(ci["low"]) * unit, float(ci["high"]) * unit)
    return out


def eval_scales(summary: Mapping[str, Any] | None) -> dict[str, tuple[float, float]]:
    """The scale of each mean `eval_metrics` names, where the run stored one."""
    out: dict[str, tuple[float, float]] = {}
    for name, entry, rate in _score_metrics(summary):
        scale = entry.get("scale")
        if not rate and isinstance(scale, list | tuple) and len(scale) == 2:
            out[name] = (float(scale[0]), float(scale[1]))
    return out


def _score_metrics(summary: Mapping[str, Any] | None
                   ) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    """Each stored score entry with a figure, named as `eval_metrics` names it
    (`scorer@condition` for a pass rate, `scorer.mean@condition` for a mean), and whether
    the figure is its pass rate."""
    for entry in (summary or {}).get("scores") or []:
        where = f"@{entry['condition']}"
        if entry.get("pass_rate") is not None:
            yield f"{entry['scorer']}{where}", entry, True
        elif entry.get("mean") is not None:
            yield f"{entry['scorer']}.mean{where}", entry, False


def trace_metrics(summary: Mapping[str, Any] | None) -> dict[str, float]:
    """The numbers of a traces run's stored metrics, and its finding counts."""
    summary = summary or {}
    out = {name: float(value) for name, value in (summary.get("metrics") or {}).items()
           if _is_number(value)}
    for kind, count in (summary.get("findings") or {}).items():
        if _is_number(count):
            out[f"findings.{kind}"] = float(count)
    return out


def build_history(runs: Iterable[Any], stale: Collection[str] = ()) -> list[ExperimentHistory]:
    """Group runs (any order, as `Store.list_runs` returns them) into histories, oldest first;
    `stale`: the ids of runs marked running that have probably stopped."""
    groups: dict[tuple[str, str], ExperimentHistory] = {}
    last_dataset: dict[tuple[str, str], str] = {}
    last_packs: dict[tuple[str, str], dict[str, str]] = {}
    for run in sorted(runs, key=lambda r: (r.started_at, r.id)):
        key = (run.experiment, run.kind)
        history = groups.get(key) or groups.setdefault(key, ExperimentHistory(*key))
        metrics = (trace_metrics if run.kind == "traces" else eval_metrics)(run.summary)
        intervals = eval_intervals(run.summary) if run.kind != "traces" else {}
        history.metrics += [m for m in metrics if m not in history.metrics]
        history.scales.update(eval_scales(run.summary) if run.kind != "traces" else {})
        dataset = run.dataset_hash
        changed = dataset is not None and last_dataset.get(key, dataset) != dataset
        if dataset is not None:
            last_dataset[key] = dataset
        packs = last_packs.setdefault(key, {})
        now = run.pack_hashes or {}
        packs_changed = tuple(name for name in sorted(now) if packs.get(name, now[name]) != now[name])
        packs.update(now)
        history.points.append(HistoryPoint(run.id, run.started_at, run.status,
                                           run.git_commit, metrics, intervals, dataset,
                                           changed, run.id in stale, packs_changed))
    return sorted(groups.values(), key=lambda h: (h.experiment, h.kind))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
