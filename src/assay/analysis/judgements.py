"""What a run's judges said beyond the headline score: rubric metrics, claims, instability, pairs.

A rubric judge's value is the mean of its metrics; what moved is in the
metrics, so each metric's mean per condition is reported with its 95%
interval (per case first when cases ran several epochs, like the summary),
with the count of unverified claims the judge listed. A judge asked
`repeats` times marks a verdict `unstable` when its asks fell on both sides
of the pass line; those are counted per scorer and condition and listed.
A `pairwise` scorer's verdicts become win/tie/loss per pair of conditions
(`pairwise_verdicts`). Where each verdict rests on several asks (judge
`repeats`, or `assay rejudge`), the judge's self-consistency per scorer
(`judge_consistency`) and, per condition, the split of score variance
into agent and judge parts (`variance_split`), with the judge's share of
each condition delta's uncertainty.

Pure: it reads (trial key, scorer, Score) triples the store streams in.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.analysis.interval import Interval, t_interval
from assay.trial import epoch_label

if TYPE_CHECKING:
    # Imported where used: they bring numpy and scipy, which a run without judges never needs.
    from assay.analysis.judge_consistency import JudgeConsistency, Repeats
    from assay.analysis.pairwise_verdicts import OrderedVerdicts, PairwiseResult
    from assay.analysis.variance_split import DeltaNoise, VarianceSplit
    from assay.score import Score
    from assay.trial import TrialKey

MAX_LISTED = 200
"""Unstable cases listed per scorer and condition; the rest are counted."""


@dataclass(frozen=True, slots=True)
class MetricStats:
    """One rubric metric of one scorer under one condition."""

    scorer: str
    condition: str
    metric: str
    n: int
    mean: float
    interval: Interval | None
    scale: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "condition": self.condition, "metric": self.metric,
                "n": self.n, "mean": self.mean,
                "interval": self.interval.to_dict() if self.interval else None,
                "scale": list(self.scale)}


@dataclass(frozen=True, slots=True)
class ClaimStats:
    """Unverified claims a rubric judge listed under one condition."""

    scorer: str
    condition: str
    trials: int
    with_claims: int
    """Trials with at least one unverified claim."""
    claims: int

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "condition": self.condition, "trials": self.trials,
                "with_claims": self.with_claims, "claims": self.claims}


@dataclass(frozen=True, slots=True)
class UnstableStats:
    """Verdicts of a repeated judge that flipped across the pass line, under one condition."""

    scorer: str
    condition: str
    judged: int
    """Verdicts that rest on two or more asks."""
    unstable: int
    cases: tuple[str, ...]
    """The unstable trials (`case`, or `case (epoch 2 of 3)`), up to `MAX_LISTED`."""

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "condition": self.condition, "judged": self.judged,
                "unstable": self.unstable, "cases": list(self.cases)}


@dataclass
class JudgeFindings:
    """Everything the judges said that the score table does not show."""

    metrics: list[MetricStats] = field(default_factory=list)
    claims: list[ClaimStats] = field(default_factory=list)
    unstable: list[UnstableStats] = field(default_factory=list)
    pairwise: list[PairwiseResult] = field(default_factory=list)
    consistency: list[JudgeConsistency] = field(default_factory=list)
    """Per scorer whose verdicts rest on several asks: how far the judge agreed with itself."""
    variance: list[tuple[str, VarianceSplit]] = field(default_factory=list)
    """(scorer, the split of one condition's score variance into agent and judge)."""
    deltas: list[tuple[str, DeltaNoise]] = field(default_factory=list)
    """(scorer, the judge's share of a condition delta's uncertainty, each condition
    against the first)."""

    def __bool__(self) -> bool:
        return bool(self.metrics or self.claims or self.unstable or self.pairwise
                    or self.consistency)

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": [m.to_dict() for m in self.metrics],
                "claims": [c.to_dict() for c in self.claims],
                "unstable": [u.to_dict() for u in self.unstable],
                "pairwise": [p.to_dict() for p in self.pairwise],
                "consistency": [c.to_dict() for c in self.consistency],
                "variance": [{"scorer": s, **v.to_dict()} for s, v in self.variance],
                "deltas": [{"scorer": s, **d.to_dict()} for s, d in self.deltas]}


@dataclass
class _Metric:
    scale: tuple[float, float] = (0.0, 1.0)
    by_case: dict[str, list[float]] = field(default_factory=dict)


def read_judgements(scores: Iterable[tuple[TrialKey, str, Score]], *,
                    pair_baselines: Mapping[str, str] | None = None,
                    conditions: list[str] | None = None,
                    asks: Mapping[str, int] | None = None,
                    epochs: int | None = None) -> JudgeFindings:
    """The judges' findings from a run's judged scores.

    `pair_baselines` names the pairwise scorers that compare conditions, and
    the baseline condition of each; `conditions` orders the output; `asks`
    gives, per scorer, the asks per answer of the run whose deltas the
    judge's share describes (default: as many as these verdicts rest on);
    `epochs`, the run's epoch count, names each listed trial's epoch.
    """
    reader = JudgementReader(epochs)
    for key, scorer, score in scores:
        reader.add(key, scorer, score)
    return reader.findings(pair_baselines=pair_baselines, conditions=conditions, asks=asks)


class JudgementReader:
    """`read_judgements`, fed one judged score at a time (in trial key order), so the pass
    that reads a run's trials for its review gathers the findings too."""

    def __init__(self, epochs: int | None = None) -> None:
        self.epochs = epochs
        self._metrics: dict[tuple[str, str, str], _Metric] = defaultdict(_Metric)
        self._claims: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        self._unstable: dict[tuple[str, str], list[Any]] = defaultdict(lambda: [0, 0, []])
        self._pairs: dict[tuple[str, str], list[OrderedVerdicts]] = defaultdict(list)
        self._repeated: dict[str, list[tuple[TrialKey, Repeats]]] = defaultdict(list)

    def add(self, key: TrialKey, scorer: str, score: Score) -> None:
        """One judged score of the trial `key`."""
        case_id, condition, epoch = key
        details = score.details or {}
        asked = details.get("judgements")
        # a pairwise verdict's judgements are its two orders, not repeats of one question,
        # and an errored one has no `a_first`: it names the answer it was paired against
        pair = "a_first" in details or details.get("against") is not None
        if isinstance(asked, list) and len(asked) > 1 and not pair:
            from assay.analysis.judge_consistency import Repeats

            label = epoch_label(epoch, self.epochs)
            self._repeated[scorer].append(((case_id, condition, epoch), Repeats(
                f"{case_id} · {condition}" + (f" · {label}" if label else ""),
                tuple(_number(a.get("value")) for a in asked if isinstance(a, dict)),
                tuple(a.get("passed") if isinstance(a.get("passed"), bool) else None
                      for a in asked if isinstance(a, dict)))))
        if pair:
            from assay.analysis.pairwise_verdicts import OrderedVerdicts

            answered = score.error is None and "a_first" in details
            self._pairs[(scorer, condition)].append(OrderedVerdicts(
                f"{case_id}#{epoch}", details.get("a_first") if answered else None,
                details.get("b_first") if answered else None))
        if score.error is not None:
            return
        for name, value in (details.get("metrics") or {}).items():
            entry = self._metrics[(scorer, condition, name)]
            entry.scale = score.scale
            entry.by_case.setdefault(case_id, []).append(float(value))
        if isinstance(details.get("unverified_claims"), list):
            tally = self._claims[(scorer, condition)]
            listed = len(details["unverified_claims"])
            tally[0] += 1
            tally[1] += listed > 0
            tally[2] += listed
        if "unstable" in details:
            count = self._unstable[(scorer, condition)]
            count[0] += 1
            if details["unstable"]:
                count[1] += 1
                if len(count[2]) < MAX_LISTED:
                    count[2].append(self._name(case_id, epoch))

    def _name(self, case_id: str, epoch: int) -> str:
        """A listed trial: its case, and its epoch when the run has several."""
        label = epoch_label(epoch, self.epochs)
        return f"{case_id} ({label})" if label else case_id

    def findings(self, *, pair_baselines: Mapping[str, str] | None = None,
                 conditions: list[str] | None = None,
                 asks: Mapping[str, int] | None = None) -> JudgeFindings:
        """What the scores added say (the arguments as `read_judgements` takes them)."""
        pair_baselines = pair_baselines or {}
        order = {name: index for index, name in enumerate(conditions or [])}

        def rank(key: tuple[str, ...]) -> tuple[Any, ...]:
            return (key[0], order.get(key[1], len(order)), key[1], *key[2:])

        findings = JudgeFindings()
        # a rubric's metrics in its own order (factual adherence first), not alphabetically
        metric_order = {key: index for index, key in enumerate(self._metrics)}
        for (scorer, condition, name), entry in sorted(
                self._metrics.items(),
                key=lambda i: (*rank(i[0][:2]), metric_order[i[0]])):
            values = [math.fsum(v) / len(v) for v in entry.by_case.values()]
            findings.metrics.append(MetricStats(scorer, condition, name, len(values),
                                                math.fsum(values) / len(values),
                                                t_interval(values, entry.scale), entry.scale))
        findings.claims = [ClaimStats(s, c, *counts) for (s, c), counts in
                           sorted(self._claims.items(), key=lambda i: rank(i[0]))]
        findings.unstable = [UnstableStats(s, c, n, k, tuple(cases))
                             for (s, c), (n, k, cases) in
                             sorted(self._unstable.items(), key=lambda i: rank(i[0]))]
        if self._pairs:
            from assay.analysis.pairwise_verdicts import adjust_pairwise, pairwise_result

            findings.pairwise = adjust_pairwise([
                pairwise_result(verdicts, label_a=pair_baselines.get(scorer, "reference"),
                                label_b=condition, scorer=scorer)
                for (scorer, condition), verdicts in sorted(self._pairs.items(),
                                                            key=lambda i: rank(i[0]))])
        if self._repeated:
            from assay.analysis.judge_consistency import judge_consistency
        for scorer, answers in sorted(self._repeated.items()):
            findings.consistency.append(judge_consistency(scorer, [r for _, r in answers]))
            splits, deltas = _variance(scorer, answers, list(order), (asks or {}).get(scorer))
            findings.variance += splits
            findings.deltas += deltas
        return findings


def _variance(scorer: str, answers: list[tuple[TrialKey, Repeats]], conditions: list[str],
              asks: int | None) -> tuple[list[tuple[str, VarianceSplit]],
                                         list[tuple[str, DeltaNoise]]]:
    """Per condition the agent/judge split; each condition's delta against the first."""
    from assay.analysis.variance_split import delta_noise, split_variance

    by_condition: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(dict)
    for (case_id, condition, epoch), repeats in answers:
        by_condition[condition].setdefault(case_id, {})[epoch] = repeats.usable_values
    names = [c for c in conditions if c in by_condition] + sorted(
        c for c in by_condition if c not in conditions)
    splits = {name: split_variance(name, by_condition[name]) for name in names}
    deltas = []
    for name in names[1:]:
        first = names[0]
        noise = delta_noise(splits[first], splits[name], by_condition[first],
                            by_condition[name], asks=asks or splits[name].repeats or 1)
        if noise is not None:
            deltas.append((scorer, noise))
    return [(scorer, splits[name]) for name in names], deltas


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
