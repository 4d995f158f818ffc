"""Paired comparison of the conditions of one run: is the candidate better than the baseline?

Every condition ran the same cases, so each (scorer, condition) pair against
the baseline is a paired comparison (see `paired`). All comparisons shown
together are one family for Holm's correction, so comparing three scorers
over four conditions does not turn noise into a "significant" line.

The same per-case tables serve comparisons between two runs (`run_diff`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.analysis.interval import scale_hull
from assay.analysis.multiple import adjust_comparisons
from assay.analysis.paired import Kind, PairedComparison, compare_paired
from assay.analysis.pairing import PerCase, Value
from assay.analysis.power import SampleSizeAdvice, advise_sample_size
from assay.errors import UserError
from assay.records import ScoreRow, TrialRecord, TrialRow
from assay.shown_numbers import count
from assay.wording import plural

DEFAULT_ALPHA = 0.05


@dataclass
class ScorerCases:
    """One scorer's results per condition and case, every epoch kept (None for an error)."""

    scorer: str
    scale: tuple[float, float] = (0.0, 1.0)
    has_verdicts: bool = False
    """True when every result carried a pass/fail verdict: the pass rate heads its
    comparisons. A function that returns a verdict for some answers (False for an empty
    one) and only a value for the rest is compared on its mean, over every case: read as a
    pass rate, the cases without a verdict were left out as 'errored'."""
    values: dict[str, dict[str, Value | list[Value]]] = field(default_factory=dict)
    """condition -> case id -> the value, or per-epoch values when a case ran more than once."""
    passed: dict[str, dict[str, Value | list[Value]]] = field(default_factory=dict)
    """condition -> case id -> the verdict(s), like `values` (None where there is none)."""

    @property
    def kind(self) -> Kind:
        return "pass_fail" if self.has_verdicts else "score"

    @property
    def conditions(self) -> list[str]:
        return list(self.values)


def collect_cases(score_rows: Iterable[ScoreRow],
                  failed_trials: Iterable[TrialRow] = ()) -> dict[str, ScorerCases]:
    """Per scorer, the per-case values of every condition.

    A trial whose target failed has no score rows; `failed_trials` (the trials with an
    error) put it in as an errored epoch for every scorer, so a comparison names the
    case as errored and counts the epoch as dropped, never as a case only one side has.
    """
    collector = CaseCollector()
    for row in score_rows:
        collector.add_score(row)
    for trial in failed_trials:
        collector.add_failed(trial)
    return collector.cases()


class CaseCollector:
    """`collect_cases` fed one row at a time, in any mix of score rows and failed trials:
    the failed trials are put in at the end, for every scorer seen by then."""

    def __init__(self) -> None:
        self._out: dict[str, ScorerCases] = {}
        self._failed: list[tuple[str, str]] = []
        self._scaled: set[str] = set()
        """Scorers with a value seen: their scale is the hull of their values' scales."""
        self._unjudged: set[str] = set()
        """Scorers with a value that came without a verdict."""

    def add_score(self, row: ScoreRow) -> None:
        self._add(row.condition, row.case_id, row.scorer, row.failed, row.value, row.passed,
                  row.scale)

    def add_value(self, case_id: str, condition: str, scorer: str, value: float | None,
                  passed: int | None, error: str | None, scale_min: float | None,
                  scale_max: float | None) -> None:
        """A score as stored columns (`Store.iter_case_values`): `add_score` without a
        ScoreRow built for it."""
        self._add(condition, case_id, scorer, error is not None or value is None, value,
                  None if passed is None else bool(passed),
                  (0.0 if scale_min is None else scale_min,
                   1.0 if scale_max is None else scale_max))

    def add_scores(self, trial: TrialRecord) -> None:
        """A stored trial's scores (as many `add_score`s)."""
        for name, score in trial.scores.items():
            self._add(trial.condition, trial.case_id, name,
                      score.error is not None or score.value is None, score.value,
                      score.passed, score.scale)

    def _add(self, condition: str, case_id: str, scorer: str, failed: bool,
             value: float | None, passed: bool | None, scale: tuple[float, float]) -> None:
        out = self._out
        entry = out.get(scorer) or out.setdefault(scorer, ScorerCases(scorer))
        value = None if failed else value
        verdict = None if failed else passed
        if not failed:
            entry.scale = (scale_hull(entry.scale, scale) if scorer in self._scaled
                           else (float(scale[0]), float(scale[1])))
            self._scaled.add(scorer)
            if verdict is None:
                self._unjudged.add(scorer)
            entry.has_verdicts = scorer not in self._unjudged
        _add(entry.values.setdefault(condition, {}), case_id, value)
        _add(entry.passed.setdefault(condition, {}), case_id, verdict)

    def add_failed(self, trial: TrialRow | TrialRecord) -> None:
        """A trial whose target failed (it has no score rows)."""
        self._failed.append((trial.condition, trial.case_id))

    def add_failed_key(self, condition: str, case_id: str) -> None:
        """`add_failed` of a trial known by its condition and case."""
        self._failed.append((condition, case_id))

    def cases(self) -> dict[str, ScorerCases]:
        """Per scorer, the per-case values; called once, at the end."""
        for condition, case_id in self._failed:
            for entry in self._out.values():
                _add(entry.values.setdefault(condition, {}), case_id, None)
                _add(entry.passed.setdefault(condition, {}), case_id, None)
        self._failed = []
        return self._out


def _add(table: dict[str, Value | list[Value]], case_id: str, value: Value) -> None:
    """A single epoch stays a plain value: a list per case would cost ~100 bytes x cases x
    conditions x scorers (hundreds of MB on a 100k-case run with two conditions)."""
    if case_id not in table:
        table[case_id] = value
        return
    current = table[case_id]
    if isinstance(current, list):
        current.append(value)
    else:
        table[case_id] = [current, value]


@dataclass(frozen=True)
class ComparisonEntry:
    """One paired comparison and the sample-size advice drawn from it."""

    comparison: PairedComparison
    advice: list[SampleSizeAdvice]

    def to_dict(self) -> dict[str, Any]:
        return {**self.comparison.to_dict(), "advice": [a.to_dict() for a in self.advice]}


@dataclass(frozen=True, repr=False)
class ComparisonFamily:
    """Comparisons reported together, Holm-adjusted as one family, plus those that could not run."""

    entries: list[ComparisonEntry]
    skipped: list[str]
    """Why a comparison was not made (no common case, ...), one line each."""
    alpha: float

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "correction": "holm", "family_size": len(self.entries),
                "comparisons": [e.to_dict() for e in self.entries], "skipped": self.skipped}

    def __repr__(self) -> str:
        """What a notebook shows: what was compared and what it found, not every field."""
        significant = sum(bool(e.comparison.significant) for e in self.entries)
        skipped = f", {count(len(self.skipped))} not compared" if self.skipped else ""
        return (f"<{type(self).__name__} {self.title()}: {plural(len(self.entries), 'comparison')}, "
                f"{significant} significant{skipped}>")

    def title(self) -> str:
        return "Holm family"


@dataclass(frozen=True, repr=False)
class ConditionComparisons(ComparisonFamily):
    baseline: str = ""
    conditions: tuple[str, ...] = ()

    def title(self) -> str:
        return f"vs baseline {self.baseline!r}"

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "conditions": list(self.conditions),
                **super().to_dict()}


def pair_scorer(cases: ScorerCases, side_a: tuple[str, PerCase, PerCase],
                side_b: tuple[str, PerCase, PerCase], *,
                kind: Kind | None = None, alpha: float = DEFAULT_ALPHA) -> PairedComparison:
    """Compare side B with side A, each given as (label, values by case, verdicts by case)."""
    kind = kind or cases.kind
    label_a, values_a, passed_a = side_a
    label_b, values_b, passed_b = side_b
    verdicts = kind == "pass_fail" or cases.has_verdicts
    return compare_paired(
        values_a, values_b, kind=kind,
        passed_a=passed_a if verdicts else None, passed_b=passed_b if verdicts else None,
        scale=cases.scale, alpha=alpha,
        label_a=label_a, label_b=label_b, scorer=cases.scorer)


def finish_family(comparisons: Sequence[PairedComparison], *,
                  power: float = 0.8) -> list[ComparisonEntry]:
    """Holm-adjust the comparisons as one family and attach sample-size advice to each."""
    return [ComparisonEntry(c, advise_sample_size(c, power=power))
            for c in adjust_comparisons(comparisons)]


def compare_conditions(cases: Mapping[str, ScorerCases], conditions: Sequence[str], *,
                       baseline: str | None = None,
                       alpha: float = DEFAULT_ALPHA) -> ConditionComparisons:
    """Every other condition against the baseline (the first by default), for every scorer."""
    conditions = list(conditions)
    if baseline is not None and baseline not in conditions:
        raise UserError(f"--baseline '{baseline}' is not a condition of this run "
                        f"(conditions: {', '.join(conditions) or 'none'})")
    base = baseline or (conditions[0] if conditions else "")
    others = [c for c in conditions if c != base]
    comparisons: list[PairedComparison] = []
    skipped: list[str] = []
    for scorer, entry in cases.items():
        for candidate in others:
            try:
                comparisons.append(pair_scorer(
                    entry,
                    (base, entry.values.get(base, {}), entry.passed.get(base, {})),
                    (candidate, entry.values.get(candidate, {}), entry.passed.get(candidate, {})),
                    alpha=alpha))
            except UserError as exc:
                skipped.append(f"{scorer}: {candidate} vs {base}: {exc}")
    return ConditionComparisons(entries=finish_family(comparisons), skipped=skipped, alpha=alpha,
                                baseline=base, conditions=tuple(conditions))
