"""Two runs of an experiment side by side: what moved, whether it is real, and which cases flipped.

Run A is the earlier (or baseline) run, run B the newer one. For every scorer
and condition both runs have, the cases are paired by id and compared as in
`conditions`; the whole diff is one Holm family. A case that passed in A and
fails in B "newly fails" (with epochs, its pass share dropped).

Two runs are only comparable when they asked the same questions and were
graded the same way: `comparability` names every difference that breaks
that (dataset, judge model, judge prompt, a scorer defined differently), and
the caller decides whether to refuse or warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.analysis.conditions import (
    DEFAULT_ALPHA,
    ComparisonEntry,
    ComparisonFamily,
    ScorerCases,
    finish_family,
    pair_scorer,
)
from assay.analysis.interval import scale_hull
from assay.analysis.paired import NothingToPair
from assay.analysis.pairing import Exclusions
from assay.errors import UserError
from assay.records import JudgeIdentity


@dataclass(frozen=True)
class RunRef:
    """What the diff needs to know of a run."""

    id: str
    experiment: str
    started_at: str
    dataset_hash: str | None = None

    @classmethod
    def of(cls, run: Any) -> RunRef:
        return cls(run.id, run.experiment, run.started_at, run.dataset_hash)


@dataclass(frozen=True)
class UnpairedMetric:
    """A scorer and condition both runs have that no case could be compared on (every case
    errored on a side, say); it is in `skipped` too, as a line for people."""

    scorer: str
    condition: str
    metric: str
    """What a comparison of it would have headed with: `pass rate` or `mean`."""
    excluded: Exclusions
    """Each case left out, and why."""


@dataclass(frozen=True)
class NewMetric:
    """A scorer and condition this run (B) has that the earlier run (A) did not: a scorer
    added since, or a condition A left out (`--condition`); nothing to regress from."""

    scorer: str
    condition: str
    metric: str
    """`pass rate` or `mean`, as a comparison of it would head."""


@dataclass(frozen=True, repr=False)
class RunDiff(ComparisonFamily):
    run_a: RunRef | None = None
    run_b: RunRef | None = None
    problems: list[str] = field(default_factory=list)
    """Why the runs are not comparable (dataset, judge); empty when they are."""
    notes: list[str] = field(default_factory=list)
    """Scorers or conditions only one run has."""
    unpaired: list[UnpairedMetric] = field(default_factory=list)
    """The skipped comparisons that no case could be paired for, with why per case."""
    new: list[NewMetric] = field(default_factory=list)
    """What B scored that A did not (in `notes` too, as a line for people)."""

    @property
    def comparable(self) -> bool:
        return not self.problems

    def title(self) -> str:
        a = self.run_a.id if self.run_a else "?"
        b = self.run_b.id if self.run_b else "?"
        return f"run {a} -> {b}" + ("" if self.comparable else " (not comparable)")

    def to_dict(self) -> dict[str, Any]:
        def ref(r: RunRef | None) -> dict[str, Any] | None:
            return None if r is None else {"id": r.id, "experiment": r.experiment,
                                           "started_at": r.started_at,
                                           "dataset_hash": r.dataset_hash}

        out = {"run_a": ref(self.run_a), "run_b": ref(self.run_b),
               "comparable": self.comparable, "problems": self.problems, "notes": self.notes,
               **super().to_dict()}
        for item, entry in zip(out["comparisons"], self.entries):
            item["condition"] = condition_of(entry)
            item["newly_failing"], item["newly_passing"] = flips(entry)
        return out


def condition_of(entry: ComparisonEntry) -> str:
    """The condition a run-diff comparison is about (its labels are `RUN@CONDITION`)."""
    return entry.comparison.label_b.rpartition("@")[2]


def flips(entry: ComparisonEntry) -> tuple[list[str], list[str]]:
    """(newly failing, newly passing) case ids; for a scorer without verdicts, lower and higher."""
    c = entry.comparison
    return list(c.losses), list(c.wins)


def diff_runs(cases_a: Mapping[str, ScorerCases], cases_b: Mapping[str, ScorerCases], *,
              run_a: RunRef, run_b: RunRef, problems: list[str] | None = None,
              scorers: Iterable[str] | None = None,
              alpha: float = DEFAULT_ALPHA) -> RunDiff:
    """Compare B with A per scorer and condition present in both (optionally only `scorers`)."""
    wanted = list(scorers) if scorers is not None else None
    for name in wanted or []:
        if name not in cases_a and name not in cases_b:
            known = ", ".join(sorted(set(cases_a) | set(cases_b))) or "none"
            raise UserError(f"no scorer '{name}' in runs {run_a.id} or {run_b.id} "
                            f"(scorers: {known})")
    notes = [_only_in(name, run_a, cases_b, run_b) for name in cases_a if name not in cases_b]
    notes += [_only_in(name, run_b, cases_a, run_a) for name in cases_b if name not in cases_a]
    comparisons = []
    skipped: list[str] = []
    unpaired: list[UnpairedMetric] = []
    new: list[NewMetric] = []
    for name, entry_b in cases_b.items():
        entry_a = cases_a.get(name)
        if wanted is not None and name not in wanted:
            continue
        metric = "pass rate" if entry_b.has_verdicts else "mean"
        if entry_a is None:
            new += [NewMetric(name, condition, metric) for condition in entry_b.conditions]
            continue
        merged = ScorerCases(name, scale=scale_hull(entry_a.scale, entry_b.scale),
                             has_verdicts=entry_a.has_verdicts and entry_b.has_verdicts)
        for condition in entry_b.conditions:
            if condition not in entry_a.values:
                notes.append(f"{name}: condition {condition} only in run {run_b.id}")
                new.append(NewMetric(name, condition, metric))
                continue
            try:
                comparisons.append(pair_scorer(
                    merged,
                    (f"{run_a.id}@{condition}", entry_a.values[condition],
                     entry_a.passed[condition]),
                    (f"{run_b.id}@{condition}", entry_b.values[condition],
                     entry_b.passed[condition]),
                    alpha=alpha))
            except NothingToPair as exc:
                skipped.append(f"{name}@{condition} not compared: {exc}")
                unpaired.append(UnpairedMetric(name, condition, "pass rate" if merged.has_verdicts
                                               else "mean", exc.excluded))
            except UserError as exc:
                skipped.append(f"{name}@{condition} not compared: {exc}")
        notes += [f"{name}: condition {c} only in run {run_a.id}"
                  for c in entry_a.conditions if c not in entry_b.values]
    return RunDiff(entries=finish_family(comparisons), skipped=skipped, alpha=alpha,
                   run_a=run_a, run_b=run_b, problems=list(problems or []), notes=notes,
                   unpaired=unpaired, new=new)


def _only_in(scorer: str, run: RunRef, other_cases: Mapping[str, ScorerCases],
             other: RunRef) -> str:
    """Why `scorer` of `run` has nothing to compare with: the other run has no such scorer,
    or no score at all (stopped before its first trial, say), whatever its config says."""
    if not other_cases:
        return f"scorer {scorer}: run {other.id} has no scores to compare with"
    return f"scorer {scorer} only in run {run.id}"


# -- comparability ---------------------------------------------------------------------------

def comparability(run_a: RunRef, run_b: RunRef, judges_a: Mapping[str, set[JudgeIdentity]],
                  judges_b: Mapping[str, set[JudgeIdentity]]) -> list[str]:
    """Every reason B's scores cannot be read against A's; empty when they can."""
    problems: list[str] = []
    if run_a.dataset_hash != run_b.dataset_hash:
        problems.append(f"different dataset: sha256 {_short(run_a.dataset_hash)} in run "
                        f"{run_a.id}, {_short(run_b.dataset_hash)} in run {run_b.id}")
    for scorer in sorted(set(judges_a) & set(judges_b)):
        models_a = {m for m, _ in judges_a[scorer]}
        models_b = {m for m, _ in judges_b[scorer]}
        if models_a != models_b:
            problems.append(f"{scorer}: different judge model: {_names(models_a)} in run "
                            f"{run_a.id}, {_names(models_b)} in run {run_b.id}")
        prompts_a = {h for _, h in judges_a[scorer]}
        prompts_b = {h for _, h in judges_b[scorer]}
        if prompts_a != prompts_b:
            problems.append(f"{scorer}: different judge prompt: hash "
                            f"{_names(prompts_a, _short)} in run {run_a.id}, "
                            f"{_names(prompts_b, _short)} in run {run_b.id}")
    return problems


def scorer_changes(definitions_a: Mapping[str, Mapping[str, Any]],
                   definitions_b: Mapping[str, Mapping[str, Any]],
                   run_a: RunRef, run_b: RunRef) -> list[str]:
    """A scorer both runs name but define differently (another check, pattern or threshold):
    its scores measure something else, so a change in them says nothing about the agent."""
    problems = []
    for name in sorted(set(definitions_a) & set(definitions_b)):
        a, b = definitions_a[name], definitions_b[name]
        keys = sorted((key for key in set(a) | set(b) if a.get(key) != b.get(key)),
                      key=lambda key: (key != "type", key))  # the kind first
        if keys:
            changes = "; ".join(f"{key} {_value(a, key)} in run {run_a.id}, {_value(b, key)} "
                                f"in run {run_b.id}" for key in keys[:3])
            problems.append(f"{name}: defined differently: {changes}")
    return problems


def _value(definition: Mapping[str, Any], key: str) -> str:
    return repr(definition[key])[:40] if key in definition else "-"


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "unknown"


def _names(values: set[str | None],
           shown: Callable[[str | None], str] = lambda v: v or "unknown") -> str:
    """Each value as `shown` writes it: a model in full (cut, `anthropic/claude-opus-4-5`
    and `anthropic/claude-opus-4-1` read as the same `anthropic/claude-opus-4-`), a
    prompt's hash by its first digits."""
    return ", ".join(sorted(shown(v) for v in values))
