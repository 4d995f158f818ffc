"""Gates: thresholds on a run's summary and regressions against an earlier run, judged in one place.

A threshold gate reads the summary (a pass rate, a mean, an error rate per
condition). A regression gate reads the paired diff of an earlier run (the
previous completed run of the experiment, or a named baseline run) against
this one. Together they decide the exit code: 1 when any gate failed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.analysis.summary import RunSummary, ScoreStats
from assay.config.models import GateConfig, RegressionGateConfig, RegressionSpec
from assay.errors import ArgumentError, UserError
from assay.reports.formatting import mean_text
from assay.review.result import GateBar, GateBars, GateResult
from assay.shown_numbers import beside_bound, bound_percent, count, percent
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.conditions import ScorerCases
    from assay.analysis.paired import PairedComparison
    from assay.analysis.run_diff import RunDiff
    from assay.records import RunRecord
    from assay.store import Store

Gate = GateConfig | RegressionGateConfig


_FAIL_UNDER = re.compile(r"^(?P<scorer>[^=@.]+)(?:\.(?P<metric>mean|pass_rate))?"
                         r"(?:@(?P<condition>[^=]+))?=(?P<value>[-+0-9.eE]+)$")


def parse_fail_under(spec: str, *, source: str = "--fail-under") -> GateConfig:
    """`SCORER[.mean|.pass_rate][@CONDITION]=VALUE` -> a gate (pass rate by default).
    `source` names where the spec came from in error messages."""
    match = _FAIL_UNDER.match(spec.strip())
    name, equals, value_text = spec.strip().rpartition("=")
    if not match and equals and _FAIL_UNDER.match(f"{name}=0"):
        raise UserError(f"{source} '{spec}': " + (f"'{value_text}' is not a number"
                                                  if value_text else "no value after '='"))
    if not match:
        raise UserError(f"{source} '{spec}': expected SCORER[.mean|.pass_rate][@CONDITION]="
                        "VALUE, e.g. contains=0.8 or judge_score.mean@pack=7")
    try:
        value = float(match["value"])
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise UserError(f"{source} '{spec}': {match['value']} is not a finite number")
    if match["metric"] == "mean":
        return GateConfig(scorer=match["scorer"], condition=match["condition"], min_mean=value)
    if not 0 <= value <= 1:
        condition = f"@{match['condition']}" if match["condition"] else ""
        raise UserError(f"{source} '{spec}': {match['value']} is not a pass rate, which is "
                        f"between 0 and 1 (80% is 0.8); a mean score is gated with "
                        f"{match['scorer']}.mean{condition}={match['value']}")
    return GateConfig(scorer=match["scorer"], condition=match["condition"], min_pass_rate=value)


def gate_bars(gates: Sequence[Gate]) -> GateBars:
    """The minimums `gates` hold pass rates and means to, for the score table to print their
    intervals beside (a regression gate holds none)."""
    bars: list[GateBar] = []
    for gate in gates:
        if isinstance(gate, RegressionGateConfig):
            continue
        if gate.min_pass_rate is not None:
            bars.append(GateBar(gate.scorer, gate.condition, "pass_rate", gate.min_pass_rate))
        if gate.min_mean is not None:
            bars.append(GateBar(gate.scorer, gate.condition, "mean", gate.min_mean))
    return GateBars(tuple(bars))


@dataclass(frozen=True, slots=True)
class StoredGates:
    """A stored run's config's threshold gates, read back: those that read as gates, and a
    failed result for each that does not."""

    gates: list[GateConfig]
    unread: list[GateResult]
    """A gate whose stored value is not a number: a `${VAR}` is stored as written, and the
    value it had when the run ran is not kept."""


def stored_config_gates(run: RunRecord) -> StoredGates:
    """The threshold gates of a stored run's config (`min_pass_rate: ${MIN_RATE}` is stored
    so, and a gate read from it was 'internal error: ValidationError'). None for a rejudge:
    it stores the config of the run it judges again, whose gates judged that whole run and
    never judge a rejudge (a rejudge stopped part-way was failed by them in `assay report`,
    one on a scorer it does not judge 'no results for this condition')."""
    from pydantic import ValidationError

    if run.kind == "rejudge":
        return StoredGates([], [])
    items = (run.config or {}).get("gates") if isinstance(run.config, dict) else None
    gates, unread = [], []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or "regression" in item:
            continue
        try:
            gates.append(GateConfig.model_validate(item))
        except ValidationError:
            label = "@".join(str(item[key]) for key in ("scorer", "condition") if item.get(key))
            written = ", ".join(f"{key}: {value}" for key, value in item.items()
                                if key not in ("scorer", "condition"))
            unread.append(GateResult(label or "gate", False,
                                     f"not judged: the run stores this gate as written "
                                     f"({written}), not the value it read then"))
    return StoredGates(gates, unread)


def check_thresholds(gates: Sequence[Gate], scorers: Sequence[str],
                     conditions: Sequence[str], *, given: str | None = None) -> None:
    """Refuse, before any trial is paid for, a threshold gate on a scorer or a condition the
    run will not have: judged after the run, it could only fail (or stop the review).
    `given`: the option the gates came with (`--fail-under`), which the error names with
    the gate as written there, as an `ArgumentError`: the config is not at fault."""
    for gate in gates:
        if isinstance(gate, RegressionGateConfig):
            continue
        if gate.scorer not in scorers:
            why = f"{_did_you_mean(gate.scorer, scorers)} (scorers: {', '.join(scorers)})"
            raise _refused(gate, given, f"gate on unknown scorer '{gate.scorer}'{why}",
                           f"no scorer '{gate.scorer}' in this run{why}")
        if gate.condition is not None and gate.condition not in conditions:
            why = (f"{_metric_after(gate, conditions) or _did_you_mean(gate.condition, conditions)}"
                   f" (conditions: {', '.join(conditions)})")
            raise _refused(gate, given, f"gate {gate.scorer}@{gate.condition} names a condition "
                                        f"this run does not have{why}",
                           f"no condition '{gate.condition}' in this run{why}")


def _refused(gate: GateConfig, given: str | None, as_configured: str,
             as_given: str) -> UserError:
    """The error refusing `gate`: of the config, or of the option it was `given` with."""
    if given is None:
        return UserError(as_configured)
    return ArgumentError(f"{given} '{fail_under_text(gate)}': {as_given}")


def fail_under_text(gate: GateConfig) -> str:
    """`gate` as `--fail-under` writes it (`contains@pack=0.8`, `judge_score.mean=7`):
    what `parse_fail_under` reads."""
    metric, value = (".mean", gate.min_mean) if gate.min_mean is not None else \
        ("", gate.min_pass_rate)
    condition = f"@{gate.condition}" if gate.condition is not None else ""
    return f"{gate.scorer}{metric}{condition}" + (f"={value:g}" if value is not None else "")


def _metric_after(gate: GateConfig, conditions: Sequence[str]) -> str:
    """`contains@v2.mean`: the metric written after the condition, where it reads as part of
    its name (a condition may hold a dot: `gpt-4.1`)."""
    stem, _, metric = (gate.condition or "").rpartition(".")
    if stem in conditions and metric in ("mean", "pass_rate"):
        return f"; the metric goes before the '@': {gate.scorer}.{metric}@{stem}"
    return ""


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    import difflib

    hint = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean '{hint[0]}'?" if hint else ""


def threshold_results(gates: Sequence[Gate], summary: RunSummary) -> list[GateResult]:
    """Every threshold gate on every condition it covers (regression gates are skipped here)."""
    results: list[GateResult] = []
    for gate in gates:
        if isinstance(gate, RegressionGateConfig):
            continue
        conditions = [gate.condition] if gate.condition else summary.condition_names
        if not conditions:  # a run stopped before any trial was stored
            results.append(GateResult(gate.scorer, False, "no trials ran", _rule(gate)))
        for condition in conditions:
            stats = summary.get(gate.scorer, condition)
            label = f"{gate.scorer}@{condition}"
            if stats is None:
                results.append(GateResult(label, False, "no results for this condition",
                                          _rule(gate)))
                continue
            total = stats.n + stats.errors
            if total == 0:
                results.append(GateResult(label, False, "no trials ran under this condition",
                                          _rule(gate)))
                continue
            if gate.min_pass_rate is not None:
                results.append(_pass_rate_gate(label, stats, gate.min_pass_rate))
            if gate.min_mean is not None:
                results.append(_mean_gate(label, stats, gate.min_mean, gate.max_error_rate))
            if gate.max_error_rate is not None:
                trials = _trials(summary, condition, stats)
                rate = stats.errors / trials
                shown, most = beside_bound(rate, gate.max_error_rate, share=True,
                                           at_most=True)
                results.append(GateResult(f"{label} error rate", rate <= gate.max_error_rate,
                                          f"{shown} (max {most}); {stats.errors:,} of "
                                          f"{plural(trials, 'trial')} errored",
                                          f"max {bound_percent(gate.max_error_rate, 1)}"))
    return results


def _trials(summary: RunSummary, condition: str, stats: ScoreStats) -> int:
    """The trials a scorer's errors are a share of: the condition's, every epoch counted.
    (With several epochs `stats.n` counts cases while `stats.errors` counts trials, so the
    two do not add up to a total: 9 errored trials of 30 read as 56% beside 7 cases.)"""
    entry = next((c for c in summary.conditions if c.condition == condition), None)
    if entry is not None and entry.trials >= stats.errors and entry.trials:
        return entry.trials
    return stats.n + stats.errors


def _rule(gate: GateConfig) -> str:
    """Every bound of a threshold gate, for a result that could not apply them."""
    rules = [f"min {bound_percent(gate.min_pass_rate, 1)}"
             if gate.min_pass_rate is not None else "",
             f"min mean {gate.min_mean:g}" if gate.min_mean is not None else "",
             f"max errors {bound_percent(gate.max_error_rate, 1)}"
             if gate.max_error_rate is not None else ""]
    return ", ".join(r for r in rules if r)


def _pass_rate_gate(label: str, stats: ScoreStats, minimum: float) -> GateResult:
    """An errored trial did not pass: it counts against the rate, so errors cannot hide.
    With several epochs the rate is per case first, like every other pass rate."""
    if stats.judged == 0:
        reason = (f"no trial got a verdict ({count(stats.errors)} errored)"
                  if stats.errors and not stats.n
                  else f"{stats.scorer} gives no pass/fail verdicts, only values: gate its mean "
                       "(min_mean, or --fail-under SCORER.mean=VALUE)")
        return GateResult(f"{label} pass rate", False, reason, f"min {bound_percent(minimum, 1)}")
    rate = stats.pass_rate_with_errors or 0.0
    shown, least = beside_bound(rate, minimum, share=True)
    detail = f"{shown} passed over {plural(stats.pass_rate_with_errors_n, 'case')} (min {least})"
    if stats.errors:
        detail += (f"; {plural(stats.errors, 'errored trial')} "
                   f"count{'' if stats.errors != 1 else 's'} as not passed")
        if stats.pass_rate is not None and stats.judged_cases:
            # the score table's pass rate leaves errors out: say how the two numbers meet
            detail += (f" (without {'them' if stats.errors != 1 else 'it'}: "
                       f"{percent(stats.pass_rate)} over the "
                       f"{plural(stats.judged_cases, 'case')} scored, the score "
                       "table's pass rate)")
    return GateResult(f"{label} pass rate", rate >= minimum, detail,
                      f"min {bound_percent(minimum, 1)}")


def _mean_gate(label: str, stats: ScoreStats, minimum: float,
               max_error_rate: float | None) -> GateResult:
    """The mean is over scored trials; errors fail the gate unless it tolerates them."""
    if stats.mean is None:
        return GateResult(f"{label} mean", False,
                          f"no trial was scored ({plural(stats.errors, 'error')})",
                          f"min {minimum:g}")
    ok = stats.mean >= minimum
    shown = mean_text(stats, [minimum])  # the score table's digits, more if it needs
    detail = f"{shown} over {plural(stats.n, 'scored case')} (min {minimum:g})"
    if stats.errors and max_error_rate is None:
        ok = False
        detail += (f"; {plural(stats.errors, 'trial')} errored and a mean over the rest "
                   f"would hide {'them' if stats.errors != 1 else 'it'} (a gate written in "
                   "the config tolerates errors up to its max_error_rate; --fail-under has "
                   "none)")
    return GateResult(f"{label} mean", ok, detail, f"min {minimum:g}")


def fail_on_regression() -> RegressionGateConfig:
    """The gate `--fail-on-regression` adds: any significant drop of any metric fails."""
    return RegressionGateConfig(regression=RegressionSpec())


def regression_gates(gates: Sequence[Gate], *,
                     fail_on_any: bool = False) -> list[RegressionGateConfig]:
    """The regression gates of a run (`baseline_problem` found their baselines before it)."""
    regressions = [g for g in gates if isinstance(g, RegressionGateConfig)]
    if fail_on_any:
        regressions.append(fail_on_regression())
    return regressions


def baseline_problem(ref: str, store: Store | None, experiment: str, *,
                     new_run: bool) -> str | None:
    """Why the review would not find the regression baseline `ref`, or None: checked before
    any trial is paid for (`store` None: there is no store yet). The review reads `latest~N`
    once this run is stored, when it is the latest itself: `latest` is then this run, and
    `latest~1` the run before it. Checked as stored before the run, `latest` passed and
    stopped the review (exit 2, every trial paid for), and `latest~1` with one earlier run
    was refused though the review would find it."""
    from assay.records import TRIAL_KINDS

    back = _steps_back(ref)
    if back == 0:
        return (f"regression gate baseline '{ref}' would be this run itself, the latest once "
                "it is stored; name an earlier run: latest~1 is the run before it")
    if back is not None and new_run:
        earlier = 0 if store is None else \
            len(store.list_runs(experiment, kind=TRIAL_KINDS, limit=back))
        if earlier == back:
            return None
        which = "the run" if back == 1 else f"the {_nth(back)} run"
        return (f"regression gate baseline '{ref}' would be {which} of '{experiment}' before "
                f"this one, and the store holds {earlier or 'none'} before it")
    if store is None:
        return f"no run '{ref}': there is no store yet"
    try:
        store.resolve_run(ref, experiment)
    except UserError as exc:
        return str(exc)
    return None


def _nth(number: int) -> str:
    """2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


def _steps_back(ref: str) -> int | None:
    """N of `latest~N` (0 for `latest`), None for a run id or prefix (or a malformed N, which
    `Store.resolve_run` names)."""
    from assay.store.store import latest_steps

    try:
        return latest_steps(ref)
    except UserError:
        return None


def regression_results(gates: Sequence[RegressionGateConfig], store: Store, run: RunRecord,
                       previous: RunDiff | None, *,
                       cases: dict[str, ScorerCases] | None = None) -> list[GateResult]:
    """Each regression gate against the previous run's diff, or against its named baseline
    (`cases`: this run's per-case values when already read)."""
    from assay.review.comparing import diff_stored_runs

    results: list[GateResult] = []
    # Each baseline run is diffed once: the previous run's diff is reused, not read again.
    diffs = {previous.run_a.id: previous} if previous and previous.run_a else {}
    for gate in gates:
        spec = gate.regression
        diff = previous
        if spec.baseline is not None:
            base = store.resolve_run(spec.baseline, run.experiment)
            if base.id == run.id:
                raise UserError(f"regression gate baseline '{spec.baseline}' is this run "
                                f"({run.id}); name an earlier run")
            if base.id not in diffs:
                diffs[base.id] = diff_stored_runs(store, base, run, cases_b=cases)
            diff = diffs[base.id]
        results += judge_regression(spec, diff)
    return results


def regression_label(spec: RegressionSpec) -> str:
    """A regression gate's name in the results: `regression contains@docs`."""
    return "regression" + (f" {spec.scorer}" if spec.scorer else "") + (
        f"@{spec.condition}" if spec.condition else "")


def judge_regression(spec: RegressionSpec, diff: RunDiff | None) -> list[GateResult]:
    """Judge a regression gate on a diff of the earlier run (A) against this run (B).

    No earlier run means nothing to regress from: the gate passes and says so.
    Runs that are not comparable fail the gate, naming why, rather than pass unseen.
    A metric regresses when it dropped by more than `max_drop_pp` and, with
    `significant`, the paired test (Holm-adjusted over the gate's metrics) agrees.
    """
    from assay.analysis.multiple import adjust_comparisons
    from assay.analysis.run_diff import condition_of
    from assay.analysis.verdict import evidence as evidence_of
    from assay.analysis.verdict import format_p, share_digits, shown_effect

    label = regression_label(spec)
    rule = f"max drop {spec.max_drop_pp:g}pp{', significant only' if spec.significant else ''}"
    if diff is None:
        return [GateResult(label, True, "no earlier completed run to compare with", rule)]
    assert diff.run_a is not None
    against = f"vs run {diff.run_a.id}"
    if not diff.comparable:
        return [GateResult(label, False, f"{against} not comparable: {'; '.join(diff.problems)}",
                           rule)]
    chosen = [e.comparison for e in diff.entries
              if (spec.scorer is None or e.comparison.scorer == spec.scorer)
              and (spec.condition is None or condition_of(e) == spec.condition)]
    unpaired = [u for u in diff.unpaired
                if (spec.scorer is None or u.scorer == spec.scorer)
                and (spec.condition is None or u.condition == spec.condition)]
    new = [n for n in diff.new if (spec.scorer is None or n.scorer == spec.scorer)
           and (spec.condition is None or n.condition == spec.condition)]
    # What the earlier run did not score (a condition it left out with `--condition`, a
    # scorer added since) has nothing to regress from, as in a first run: passed, said so.
    firsts = [GateResult(_metric_gate(n.scorer, n.condition, n.metric), True,
                         f"run {diff.run_a.id} did not score {n.scorer} on condition "
                         f"{n.condition}: nothing to regress from", rule) for n in new]
    if not chosen and not unpaired and not new:
        return [GateResult(label, False, f"{against}: no metric to compare "
                                         f"({'; '.join(diff.skipped) or 'no common results'})",
                           rule)]
    results = []
    for printed, c in zip(chosen, adjust_comparisons(chosen), strict=True):
        drop = -(c.delta_pp if c.delta_pp is not None else c.reading_delta_pp or 0.0)
        metric = "pass rate" if c.delta_pp is not None else "mean"
        name = _metric_gate(c.scorer, c.label_b.rpartition("@")[2], metric)
        failed = drop > spec.max_drop_pp and (c.significant or not spec.significant)
        evidence = f"{format_p(c.p_value, c.alpha)} {evidence_of(c)}" + (
            f", {c.correction}" if c.correction else "")
        shown = shown_effect(c)
        if c.delta_pp is None:  # the mean's own delta first, as its comparison shows it
            change, _ = beside_bound(-drop, -spec.max_drop_pp, signed=True,
                                     decimals=share_digits(c))
            detail = f"{shown.delta} ({change}pp of its scale) {against} ({rule}; {evidence})"
        else:  # at least the digits the run's diff gives the same delta (+0.03pp, not +0.0pp)
            change, _ = beside_bound(-drop, -spec.max_drop_pp, signed=True, decimals=shown.digits)
            detail = f"{change}pp {against} ({rule}; {evidence})"
        detail += _read_otherwise(c, printed, diff.run_a.id)
        # The paired test can only use cases both runs answered: a case that errored now
        # but not before would drop out of it and could hide a regression.
        errored_now = c.excluded.newly_errored
        if errored_now:
            failed = True
            detail += f"; {_errored_now_text(errored_now)}"
        results.append(GateResult(name, not failed, detail, rule))
    for u in unpaired:
        # No case could be paired (a condition that errored throughout, say), so there is no
        # test to read; the cases that answered before and error now still regressed.
        name = _metric_gate(u.scorer, u.condition, u.metric)
        detail = f"{against}: not compared, no case has a result in both runs"
        errored_now = u.excluded.newly_errored
        if errored_now:
            detail += f"; {_errored_now_text(errored_now)}"
        else:
            detail += " (" + "; ".join(f"{count(len(ids))} {reason}" for reason, ids in
                                       u.excluded.reasons(f"run {diff.run_a.id}", "this run"))
            detail += "), and no case that answered before errors now"
        results.append(GateResult(name, not errored_now, detail, rule))
    return results + firsts


def _read_otherwise(gate: PairedComparison, printed: PairedComparison, run_a: str) -> str:
    """`; tested alone: 95% CI ..., where the diff with run A ... reads ... within noise`
    when the gate's test, Holm-adjusted over its own metrics, reads the metric otherwise
    than the diff with the same run, which tests all its metrics at once (a larger family):
    the page said `significant` in the gate and `within noise` in the diff under it, of
    one change, with no interval beside the gate's verdict. Nothing when they agree."""
    from assay.reports.comparisons import ComparisonText

    if gate.significant == printed.significant:
        return ""
    alone = "alone" if gate.family_size == 1 else f"with this gate's {gate.family_size} metrics"
    diff = ComparisonText.of(printed)
    return (f"; tested {alone}: {ComparisonText.of(gate).interval}, where the diff with run "
            f"{run_a}, which tests {printed.family_size} metrics at once, reads "
            f"{diff.interval}, {diff.p} {diff.evidence}")


def _metric_gate(scorer: str | None, condition: str, metric: str) -> str:
    """One metric's line of a regression gate: `regression contains@docs pass rate`."""
    return f"regression {scorer}@{condition} {metric}"


def _errored_now_text(case_ids: Sequence[str]) -> str:
    """`2 cases errored in this run and count as a regression: q1, q2`."""
    return (f"{plural(len(case_ids), 'case')} errored in this run and count"
            f"{'s' if len(case_ids) == 1 else ''} as a regression: {', '.join(case_ids[:10])}"
            f"{', …' if len(case_ids) > 10 else ''}")
