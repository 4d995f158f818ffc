"""Aggregates of one run: per condition and scorer, with confidence intervals.

Pure functions over stored rows (no I/O of their own): the store streams the
rows in, the reports render what comes out.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from assay.analysis.interval import Interval, scale_hull, t_interval, wilson, wilson_of_shares
from assay.analysis.moments import mean_and_stderr
from assay.analysis.percentile import percentile
from assay.records import ScoreRow, TrialRecord, TrialRow


@dataclass
class ScoreStats:
    """One scorer under one condition (optionally within one tag or difficulty)."""

    scorer: str
    condition: str
    n: int = 0
    """Trials that got a value."""
    errors: int = 0
    """Trials with no value: the target or the scorer failed. Never counted as 0."""
    mean: float | None = None
    stderr: float | None = None
    mean_ci: Interval | None = None
    passed: int = 0
    judged: int = 0
    """Trials with a pass/fail verdict."""
    judged_cases: int = 0
    """Cases with a pass/fail verdict on at least one epoch: the pass rate's n."""
    pass_rate: float | None = None
    """Share of verdicts that passed, per case first with several epochs (like the mean)."""
    pass_rate_ci: Interval | None = None
    pass_rate_with_errors: float | None = None
    """The pass rate counting every errored trial as not passed, per case first: what a
    pass-rate gate reads, so errors cannot help it pass."""
    pass_rate_with_errors_n: int = 0
    """The cases it is over: those with a verdict or an error (trials with one epoch)."""
    scale: tuple[float, float] = (0.0, 1.0)
    mean_is_pass_rate: bool = False
    """Every value is its verdict (1 passed, 0 failed): the mean and the pass rate are one
    quantity, with one interval. False for a graded scorer with a threshold (token F1)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer": self.scorer, "condition": self.condition, "n": self.n,
            "errors": self.errors, "mean": self.mean, "stderr": self.stderr,
            "mean_ci": self.mean_ci.to_dict() if self.mean_ci else None,
            "passed": self.passed, "judged": self.judged, "judged_cases": self.judged_cases,
            "pass_rate": self.pass_rate,
            "pass_rate_ci": self.pass_rate_ci.to_dict() if self.pass_rate_ci else None,
            "pass_rate_with_errors": self.pass_rate_with_errors,
            "pass_rate_with_errors_n": self.pass_rate_with_errors_n,
            "scale": list(self.scale),
        }


@dataclass
class ConditionStats:
    """Cost and behaviour of the target under one condition."""

    condition: str
    trials: int = 0
    errors: int = 0
    latency_ms_mean: float | None = None
    latency_ms_p95: float | None = None
    """The 95th percentile of the trials' latencies, interpolated as numpy's default does."""
    input_tokens: int | None = None
    """Tokens the target reported, summed; None when no trial reported any (unknown, not 0:
    a python, command or http target, or a provider that sent no usage). Answers from the
    response cache count as 0: they spent none."""
    output_tokens: int | None = None
    cost_usd: float | None = None
    """What the target's calls cost, summed; None when none reported a cost, or when one
    spent tokens without a price (unknown, not the sum of the priced ones)."""
    cache_hits: int = 0
    judge_input_tokens: int | None = None
    """What the judges reported, summed; None when none reported any. Verdicts from the
    response cache count as 0, as the target's answers do: they spent none."""
    judge_output_tokens: int | None = None
    judge_cost_usd: float | None = None
    """What LLM judges spent scoring this condition's answers (apart from the target's cost);
    None as for `cost_usd`."""
    judge_cache_hits: int = 0
    """The judges' calls on this condition's answers that were answered from the response
    cache and cost nothing here: a request identical to one another condition's answer
    made (the same answer, judged once and paid by the first to ask), or one an earlier run
    paid for. Beside `judge_cost_usd`, it keeps a condition whose verdicts were shared from
    reading as the cheaper one."""
    judge_shared_cost_usd: float | None = None
    """What those cached verdicts cost when they were paid for, by the condition that asked
    first or by an earlier run: not spent again, so not in the run's total. The condition's
    verdicts cost `judge_cost_usd` plus this whichever condition happened to ask first.
    None when no cached verdict's first price is known."""
    tool_calls: int = 0
    """An agent target's tool calls, failed tool calls and model turns, summed over every
    attempt of a retried trial (as its cost is), not only the attempt the scorers judged."""
    tool_errors: int = 0
    turns: int = 0
    error_examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class ScorerFailures:
    """The answers one scorer could not score: a judge whose reply could not be read, a
    check that raised. How many, and the first few as `case (condition): error`."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, case_id: str, condition: str, error: str) -> None:
        self.count += 1
        if len(self.examples) < 3:
            self.examples.append(f"{case_id} ({condition}): {error[:200]}")


@dataclass
class RunSummary:
    scores: list[ScoreStats]
    conditions: list[ConditionStats]
    by_tag: list[tuple[str, ScoreStats]]
    by_difficulty: list[tuple[str, ScoreStats]]
    values: dict[str, dict[str, list[float]]]
    """scorer -> condition -> a value per case, in the order the cases came (the Knowledge
    Packs score arrays): with several epochs, the mean of the case's scored epochs, so the
    array's sum over its length is the mean printed beside it, as the seed's avg is."""
    scorer_failures: dict[str, ScorerFailures] = field(default_factory=dict)
    """scorer -> the answers it could not score (its own error, the target having answered)."""

    def get(self, scorer: str, condition: str) -> ScoreStats | None:
        return next((s for s in self.scores if s.scorer == scorer and s.condition == condition),
                    None)

    @property
    def scorer_names(self) -> list[str]:
        return list(dict.fromkeys(s.scorer for s in self.scores))

    @property
    def condition_names(self) -> list[str]:
        return [c.condition for c in self.conditions]

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": [s.to_dict() for s in self.scores],
            "conditions": [c.to_dict() for c in self.conditions],
            "by_tag": [{"tag": tag, **s.to_dict()} for tag, s in self.by_tag],
            "by_difficulty": [{"difficulty": d, **s.to_dict()} for d, s in self.by_difficulty],
        }


class _Accumulator:
    """Values of one scorer under one condition; per case when a run has several epochs,
    so that the n, the standard error and the intervals count cases, not repeats.

    A pass/fail scorer (every value 1 when passed and 0 when failed) has one quantity, its
    pass rate, so its mean gets the pass rate's Wilson interval: a t interval beside it
    would be a second, different interval for the same number, and a zero-width one
    ("1.000 [1.000–1.000]") when every trial passed."""

    __slots__ = ("by_case", "errors", "judged", "passed", "values", "verdicts_only")

    def __init__(self, per_case: bool = False) -> None:
        self.values = array("d")
        self.errors = 0
        self.passed = 0
        self.judged = 0
        self.by_case: dict[str, list[float]] | None = {} if per_case else None
        self.verdicts_only = True
        """Every value so far is its verdict as a number (1 passed, 0 failed)."""

    def add(self, value: float | None, passed: bool | None, error: Any,
            scale: tuple[float, float], case_id: str = "") -> None:
        if error is not None or value is None:
            self.add_error(case_id)
            return
        self.values.append(value)
        if self.verdicts_only and (passed is None or value != (1.0 if passed else 0.0)
                                   or scale != (0.0, 1.0)):
            self.verdicts_only = False
        if passed is not None:
            self.judged += 1
            self.passed += bool(passed)
        if self.by_case is not None:
            entry = self.by_case.setdefault(case_id, [0.0, 0.0, 0.0, 0.0, 0.0])
            entry[0] += value
            entry[1] += 1
            if passed is not None:
                entry[2] += bool(passed)
                entry[3] += 1

    def add_error(self, case_id: str) -> None:
        """A trial with no value (the target or the scorer failed): never a 0."""
        self.errors += 1
        if self.by_case is not None:
            self.by_case.setdefault(case_id, [0.0, 0.0, 0.0, 0.0, 0.0])[4] += 1

    def case_values(self) -> list[float]:
        """One value per case that has one, in the order the cases came (its epochs'
        mean when a run has several epochs), or every value when it has one."""
        if self.by_case is None:
            return list(self.values)
        return [total / count for total, count, _, _, _ in self.by_case.values() if count]

    def stats(self, scorer: str, condition: str, scale: tuple[float, float]) -> ScoreStats:
        """The figures, on `scale`: the one every value of the scorer in the run lies on."""
        if self.by_case is not None:
            cases = self.by_case.values()
            values = self.case_values()
            rates = [p / j for _, _, p, j, _ in cases if j]
            epochs = [int(j) for _, _, _, j, _ in cases if j]
            with_errors = [p / (j + e) for _, _, p, j, e in cases if j + e]
        else:
            values, rates, epochs = list(self.values), [], []
            judged = self.judged + self.errors
            with_errors = [self.passed / judged] if judged else []
        n = len(values)
        result = ScoreStats(scorer=scorer, condition=condition, n=n, errors=self.errors,
                            passed=self.passed, judged=self.judged, scale=scale)
        if n:
            result.mean, stderr = mean_and_stderr(values)
            if n > 1:
                result.stderr = stderr
                result.mean_ci = t_interval(values, scale)
        if self.judged:
            if self.by_case is not None:
                # per case first, like the mean
                result.pass_rate = math.fsum(rates) / len(rates)
                result.pass_rate_ci = wilson_of_shares(rates, epochs)
                result.judged_cases = len(rates)
            else:
                result.pass_rate = self.passed / self.judged
                result.judged_cases = self.judged
                result.pass_rate_ci = wilson(self.passed, self.judged)
        if self.verdicts_only and result.pass_rate_ci is not None and n:
            result.mean_ci = result.pass_rate_ci  # the mean is the pass rate (see the class)
            result.mean_is_pass_rate = True
        if self.judged and with_errors:
            result.pass_rate_with_errors = math.fsum(with_errors) / len(with_errors)
            result.pass_rate_with_errors_n = (len(with_errors) if self.by_case is not None
                                              else self.judged + self.errors)
        return result


def summarize(score_rows: Iterable[ScoreRow],
              trial_rows: Iterable[TrialRow],
              scorer_order: list[str] | None = None,
              condition_order: list[str] | None = None, *,
              per_case: bool = False) -> RunSummary:
    """Aggregate a run's score and trial rows.

    `per_case` (a run with several epochs): each case's epochs are averaged first, so
    `n` counts cases and the intervals are not narrowed by repeats of the same case.
    """
    builder = SummaryBuilder(scorer_order, condition_order, per_case=per_case)
    for trial in trial_rows:
        builder.add_trial(trial)
    for row in score_rows:
        builder.add_score(row)
    return builder.summary()


_UNIT = (0.0, 1.0)
"""The scale of a scorer that gave no value (every trial errored)."""

ROUTES_KEPT = 10_000
"""How many (scorer, condition, tags, difficulty) combinations `SummaryBuilder` remembers."""


class SummaryBuilder:
    """A run's summary, fed one row at a time: every trial row before its score rows
    (each trial then its scores, as one pass over the stored trials reads them, or every
    trial row then every score row, as `summarize` does); the same figures either way."""

    def __init__(self, scorer_order: list[str] | None = None,
                 condition_order: list[str] | None = None, *, per_case: bool = False) -> None:
        self.scorer_order = scorer_order
        self.condition_order = condition_order
        self._per_case = per_case
        self._conditions: dict[str, ConditionStats] = {}
        self._errored: dict[str, list[tuple[str, tuple[str, ...], str | None]]] = \
            defaultdict(list)
        """Per condition, the (case, tags, difficulty) of each trial whose target failed."""
        self._latencies: dict[str, array[float]] = defaultdict(lambda: array("d"))
        self._main: dict[tuple[str, str], _Accumulator] = defaultdict(self._accumulator)
        self._tags: dict[tuple[str, str, str], _Accumulator] = defaultdict(self._accumulator)
        self._levels: dict[tuple[str, str, str], _Accumulator] = defaultdict(self._accumulator)
        self._routes: dict[tuple[str, str, tuple[str, ...], str | None], list[_Accumulator]] = {}
        self._scorer_failures: dict[str, ScorerFailures] = defaultdict(ScorerFailures)
        self._scales: dict[str, tuple[float, float]] = {}
        """Per scorer, the scale every value it gave lies on (`scale_hull` of theirs)."""
        self._unpriced: set[tuple[str, str]] = set()
        """(`target` or `judges`, condition) of the calls that spent tokens without a price."""

    def _accumulator(self) -> _Accumulator:
        return _Accumulator(self._per_case)

    def add_trial(self, row: TrialRow) -> None:
        """A trial's cost and behaviour; a failed target counts as an error for every scorer."""
        self._add_trial(row.case_id, row.condition, row.error, row.latency_ms, row.input_tokens,
                        row.output_tokens, row.cost_usd, row.cache_hits, row.tool_calls,
                        row.tool_errors, row.turns, row.tags, row.difficulty)

    def add_record(self, trial: TrialRecord) -> None:
        """A stored trial whole: its figures (what `add_trial` takes from its row: an agent
        target's tool use from its metadata), then its scores."""
        output = trial.output
        usage = output.usage
        agent: Any = output.metadata.get("agent") if output.metadata else None
        calls = errors = turns = 0
        if isinstance(agent, dict):
            calls = int(agent.get("tool_calls") or 0)
            errors = int(agent.get("tool_errors") or 0)
            turns = int(agent.get("turns") or 0)
        self._add_trial(trial.case_id, trial.condition, output.error, output.latency_ms,
                        usage.input_tokens, usage.output_tokens, usage.cost_usd,
                        usage.cache_hits, calls, errors, turns, tuple(trial.tags),
                        trial.difficulty)
        self.add_scores(trial)

    def _add_trial(self, case_id: str, name: str, error: str | None, latency_ms: float | None,
                   input_tokens: int | None, output_tokens: int | None, cost_usd: float | None,
                   cache_hits: int | None, tool_calls: int, tool_errors: int,
                   turns: int, tags: tuple[str, ...], difficulty: str | None) -> None:
        entry = self._conditions.get(name)
        if entry is None:
            entry = self._conditions[name] = ConditionStats(condition=name)
        entry.trials += 1
        if error:
            entry.errors += 1
            self._errored[name].append((case_id, tags, difficulty))
            if len(entry.error_examples) < 3:
                entry.error_examples.append(f"{case_id}: {error[:200]}")
        if latency_ms is not None:
            self._latencies[name].append(latency_ms)
        # a store keeps an unreported count as NULL; an answer from the cache spent none
        if input_tokens or output_tokens or cache_hits:
            entry.input_tokens = (entry.input_tokens or 0) + (input_tokens or 0)
            entry.output_tokens = (entry.output_tokens or 0) + (output_tokens or 0)
        entry.cache_hits += cache_hits or 0
        entry.cost_usd = self._cost("target", name, entry.cost_usd, cost_usd,
                                    (input_tokens or 0) + (output_tokens or 0))
        entry.tool_calls += tool_calls
        entry.tool_errors += tool_errors
        entry.turns += turns

    def add_score(self, row: ScoreRow) -> None:
        """One scorer's result on a trial already added."""
        if row.input_tokens or row.cost_usd is not None:
            self._add_judge_usage(row.condition, row.input_tokens, row.output_tokens,
                                  row.cost_usd, row.cache_hits, row.shared_cost_usd)
        if row.error is not None:  # a failed target has no score rows: this is the scorer's
            self._scorer_failures[row.scorer].add(row.case_id, row.condition, str(row.error))
        elif row.value is not None:
            self._widen(row.scorer, row.scale)
        for accumulator in self._route(row.scorer, row.condition, tuple(row.tags),
                                       row.difficulty):
            accumulator.add(row.value, row.passed, row.error, row.scale, row.case_id)

    def add_scores(self, trial: TrialRecord) -> None:
        """A stored trial's scores, its row already added (as many `add_score`s)."""
        case_id, condition, difficulty = trial.case_id, trial.condition, trial.difficulty
        tags = tuple(trial.tags)
        for name, score in trial.scores.items():
            usage = score.usage
            if usage is not None and (usage.input_tokens or usage.cost_usd is not None):
                self._add_judge_usage(condition, usage.input_tokens, usage.output_tokens,
                                      usage.cost_usd, usage.cache_hits, usage.shared_cost_usd)
            if score.error is not None:
                self._scorer_failures[name].add(case_id, condition, str(score.error))
            elif score.value is not None:
                self._widen(name, score.scale)
            for accumulator in self._route(name, condition, tags, difficulty):
                accumulator.add(score.value, score.passed, score.error, score.scale, case_id)

    def _widen(self, scorer: str, scale: tuple[float, float]) -> None:
        known = self._scales.get(scorer)
        self._scales[scorer] = ((float(scale[0]), float(scale[1])) if known is None
                                else scale_hull(known, scale))

    def _route(self, scorer: str, condition: str, tags: tuple[str, ...],
               difficulty: str | None) -> list[_Accumulator]:
        """The accumulators a score goes to: its scorer's under its condition, and within each
        of its trial's tags and its difficulty. Kept for the first `ROUTES_KEPT` such
        combinations (a dataset tagging each case apart would otherwise keep one per case)."""
        key = (scorer, condition, tags, difficulty)
        route = self._routes.get(key)
        if route is None:
            route = [self._main[(scorer, condition)]]
            route += [self._tags[(tag, scorer, condition)] for tag in tags]
            if difficulty:
                route.append(self._levels[(difficulty, scorer, condition)])
            if len(self._routes) < ROUTES_KEPT:
                self._routes[key] = route
        return route

    def _add_judge_usage(self, condition: str, input_tokens: int | None,
                         output_tokens: int | None, cost_usd: float | None,
                         cache_hits: int, shared_cost_usd: float | None) -> None:
        entry = self._conditions.get(condition)
        if entry is None:
            return
        entry.judge_cache_hits += cache_hits
        if shared_cost_usd is not None:
            entry.judge_shared_cost_usd = (entry.judge_shared_cost_usd or 0.0) + shared_cost_usd
        # a known cost was priced from the tokens: a reply from the cache spent none
        if input_tokens or output_tokens or cost_usd is not None:
            entry.judge_input_tokens = (entry.judge_input_tokens or 0) + (input_tokens or 0)
            entry.judge_output_tokens = (entry.judge_output_tokens or 0) + (output_tokens or 0)
        entry.judge_cost_usd = self._cost("judges", condition, entry.judge_cost_usd, cost_usd,
                                          (input_tokens or 0) + (output_tokens or 0))

    def _cost(self, part: str, condition: str, total: float | None, cost: float | None,
              tokens: int) -> float | None:
        """`total` with one call's `cost` added; unknown (None) for good once a call spent
        tokens without a price: the priced calls' sum would read as the whole cost, and a
        cached reply's $0 beside an unpriced call as a free run."""
        if cost is None and tokens:
            self._unpriced.add((part, condition))
        if (part, condition) in self._unpriced:
            return None
        return total if cost is None else (total or 0.0) + cost

    def summary(self) -> RunSummary:
        """The figures of the rows added; called once, at the end (it counts the failed
        targets in as every scorer's errors)."""
        main = self._main
        conditions = list(self._conditions.values())
        for entry in conditions:
            latencies = sorted(self._latencies[entry.condition])
            if latencies:
                entry.latency_ms_mean = math.fsum(latencies) / len(latencies)
                entry.latency_ms_p95 = percentile(latencies, 95)
        scorer_names = list(self.scorer_order or sorted({s for s, _ in main}))
        condition_names = list(self.condition_order or [c.condition for c in conditions])
        # A trial whose target failed has no score rows; it is an error for every scorer,
        # in its tags' and its difficulty's rows too.
        for scorer in scorer_names:
            for condition in condition_names:
                for case_id, tags, difficulty in self._errored.get(condition, ()):
                    for accumulator in self._route(scorer, condition, tags, difficulty):
                        accumulator.add_error(case_id)
        scales = self._scales
        scores = [main[(s, c)].stats(s, c, scales.get(s, _UNIT)) for s in scorer_names
                  for c in condition_names]
        by_tag = [(t, acc.stats(s, c, scales.get(s, _UNIT)))
                  for (t, s, c), acc in sorted(self._tags.items())]
        by_difficulty = [(d, acc.stats(s, c, scales.get(s, _UNIT))) for (d, s, c), acc in sorted(
            self._levels.items(), key=lambda item: (_difficulty_rank(item[0][0]), item[0]))]
        values = {s: {c: main[(s, c)].case_values() for c in condition_names}
                  for s in scorer_names}
        ordered = sorted(conditions, key=lambda c: condition_names.index(c.condition)
                         if c.condition in condition_names else len(condition_names))
        failures = {s: self._scorer_failures[s] for s in scorer_names
                    if s in self._scorer_failures}
        return RunSummary(scores=scores, conditions=ordered, by_tag=by_tag,
                          by_difficulty=by_difficulty, values=values, scorer_failures=failures)


def _difficulty_rank(level: str) -> int:
    order = {"easy": 0, "medium": 1, "hard": 2}
    return order.get(level.lower(), 3)
