"""`report.md`: the run for people, answer first.

It opens with the one-sentence verdict (`headline`), the gates and the cost,
then the run's facts, scores, conditions and breakdowns, the judges, the
comparisons, and the failures with their reasons. Each part is a function
returning its lines, and `SECTIONS` gives their order, so a new part is one
function and one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from assay.reports.comparisons import condition_comparisons_markdown
from assay.reports.costs import (
    CACHED_JUDGE_CALLS,
    CACHED_JUDGE_CALLS_NOTE,
    CACHED_TARGET_CALLS,
    SHARED_JUDGE_COST,
    judge_calls_cached,
    tokens_text,
)
from assay.reports.formatting import figures, fmt_mean, fmt_pass_rate, milliseconds
from assay.reports.headline import review_headline
from assay.reports.judges import judges_markdown
from assay.reports.run_diff import run_diff_markdown
from assay.reports.text import code, inline
from assay.reports.unfinished import unfinished
from assay.shown_numbers import count
from assay.trial import epoch_label

if TYPE_CHECKING:
    from assay.records import TrialRecord
    from assay.review.result import Review

MAX_FAILURES = 50


def render_markdown(review: Review, trials: Iterable[TrialRecord] | FailureList) -> str:
    """The whole report. `trials` are the stored trials, or a `FailureList` already fed with
    them (in the pass over the trials that writes `results.json`)."""
    lines = [f"# {inline(review.run.experiment, None)}", ""]
    for section in SECTIONS:
        part = section(review)
        if part:
            lines += [*part, ""]
    failures = (trials if isinstance(trials, FailureList)
                else _collect(trials, review.run.epochs))
    lines += failures.lines()
    return "\n".join(lines).rstrip() + "\n"


def verdict_lines(review: Review) -> list[str]:
    """The answer: the one-sentence verdict, the gates' outcome and the run's cost."""
    lines = [f"**{inline(review_headline(review).text, limit=2000)}**", ""]
    gates = review.gates
    if gates:
        passed = sum(g.passed for g in gates)
        lines.append(f"- gates: {'PASS' if passed == len(gates) else 'FAIL'} "
                     f"({count(passed)} of {count(len(gates))} passed)")
    cost = review.costs.total()
    if cost:
        lines.append(f"- {cost}")
    lines += [f"- warning: {inline(warning, limit=2000)}" for warning in review.warnings]
    return lines


def run_lines(review: Review) -> list[str]:
    run, summary = review.run, review.summary
    lines = [
        f"- run: `{run.id}` ({run.status})",
        f"- started: {run.started_at}" + (f", finished: {run.finished_at}" if run.finished_at else ""),
        (f"- dataset: {code(run.dataset_path, limit=1000)} (sha256 "
         f"`{(run.dataset_hash or '')[:12]}`)"),
        f"- trials: {count(sum(c.trials for c in summary.conditions))}"
        + ("" if run.total_trials is None else f" of {count(run.total_trials)}"),
    ]
    if run.git_commit:
        lines.append(f"- git commit: `{run.git_commit}`")
    return lines


def gate_lines(review: Review) -> list[str]:
    if not review.gates:
        return []
    return ["## Gates", "", *(f"- {'PASS' if g.passed else 'FAIL'} {inline(g.gate, None)}: "
                              f"{inline(g.detail, None)}" for g in review.gates)]


def score_lines(review: Review) -> list[str]:
    lines = ["## Scores", "",
             "| scorer | condition | n | mean [95% CI] | pass rate [95% CI] | errored trials |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for stats in review.summary.scores:
        lines.append(f"| {inline(stats.scorer)} | {inline(stats.condition)} | {count(stats.n)} | "
                     f"{' | '.join(figures(stats, review.bars))} | {count(stats.errors)} |")
    return lines


def condition_lines(review: Review) -> list[str]:
    conditions = review.summary.conditions
    shared = judge_calls_cached(conditions)
    judged = (f"| judge cost | {CACHED_JUDGE_CALLS} | {SHARED_JUDGE_COST} " if shared
              else "| judge cost ")
    lines = ["## Conditions", "",
             ("| condition | trials | target errors | mean latency | tokens in/out | cost "
             f"{judged}| {CACHED_TARGET_CALLS} | tool calls | tool errors | turns |"),
             "| --- |" + " ---: |" * (12 if shared else 10)]
    costs = review.costs
    for c in conditions:
        latency = milliseconds(c.latency_ms_mean)
        judge = (f"{costs.judge(c)} | {count(c.judge_cache_hits)} | {costs.shared(c)}" if shared
                 else costs.judge(c))
        lines.append(f"| {inline(c.condition)} | {count(c.trials)} | {count(c.errors)} | "
                     f"{latency} | {tokens_text(c.input_tokens, c.output_tokens)} | "
                     f"{costs.target(c)} | {judge} | {count(c.cache_hits)} | "
                     f"{count(c.tool_calls)} | {count(c.tool_errors)} | {count(c.turns)} |")
    if shared:
        lines += ["", f"{CACHED_JUDGE_CALLS_NOTE}."]
    return lines


def breakdown_lines(review: Review) -> list[str]:
    summary = review.summary
    lines: list[str] = []
    for title, rows in (("By difficulty", summary.by_difficulty), ("By tag", summary.by_tag)):
        if rows:
            lines += [*([""] if lines else []), f"## {title}", "",
                      ("| group | scorer | condition | n | mean [95% CI] | pass rate [95% CI] "
                      "| errored trials |"),
                      "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
            for group, stats in rows:
                lines.append(f"| {inline(group)} | {inline(stats.scorer)} | "
                             f"{inline(stats.condition)} | {count(stats.n)} | "
                             f"{fmt_mean(stats)} | {fmt_pass_rate(stats)} | "
                             f"{count(stats.errors)} |")
    return lines


def judge_lines(review: Review) -> list[str]:
    judges = judges_markdown(review.judges)
    return judges.split("\n") if judges else []


def comparison_lines(review: Review) -> list[str]:
    comparisons = review.comparisons
    if not comparisons.entries and not comparisons.skipped:
        return []
    return condition_comparisons_markdown(comparisons).rstrip().split("\n")


def previous_lines(review: Review) -> list[str]:
    previous = review.previous
    if previous is None or previous.run_a is None:
        return []
    return run_diff_markdown(
        previous, title=f"Compared with the previous run `{previous.run_a.id}`"
    ).rstrip().split("\n")


SECTIONS: list[Callable[[Review], list[str]]] = [
    verdict_lines, run_lines, gate_lines, score_lines, condition_lines, breakdown_lines,
    judge_lines, comparison_lines, previous_lines]
"""The report's parts before the failures, in order; an empty list leaves a part out."""


class FailureList:
    """The failed checks and errors of a run, kept up to `MAX_FAILURES` each, all counted.

    Fed one trial at a time, so the report can be built in the same pass over
    the stored trials that writes `results.json`. `epochs` is the run's count, for
    naming each trial's epoch.
    """

    def __init__(self, epochs: int | None) -> None:
        self.epochs = epochs
        self.failures: list[str] = []
        self.errors: list[str] = []
        self.total_failed = 0
        self.total_errors = 0

    def add(self, trial: TrialRecord) -> None:
        # Most trials pass: a trial's place is written only for a line that is listed.
        if trial.error:
            self._error(trial, "", trial.error)
            return
        for name, score in trial.scores.items():
            if score.error:
                self._error(trial, name, score.error)
            elif score.passed is False:
                self.total_failed += 1
                if len(self.failures) < MAX_FAILURES:
                    reason = inline(score.reason or "failed")
                    stopped = unfinished(trial.output.metadata)
                    if stopped:
                        reason = f"{reason} ({stopped})"
                    self.failures.append(
                        f"- {_where(trial, self.epochs)} · {inline(name)}: {reason}")

    def _error(self, trial: TrialRecord, scorer: str, error: str) -> None:
        self.total_errors += 1
        if len(self.errors) < MAX_FAILURES:
            where = _where(trial, self.epochs)
            where = f"{where} · {inline(scorer)}" if scorer else where
            self.errors.append(f"- {where}: {inline(error)}")

    def lines(self) -> list[str]:
        out = ["## Failures", ""]
        out += self.failures or ["No failed checks."]
        if self.total_failed > len(self.failures):
            out.append(f"- ... and {count(self.total_failed - len(self.failures))} more")
        if self.errors:
            out += ["", "## Errors", "", *self.errors]
            if self.total_errors > len(self.errors):
                out.append(f"- ... and {count(self.total_errors - len(self.errors))} more")
        return out


def _where(trial: TrialRecord, epochs: int | None) -> str:
    """A trial's place in a listed line: its case, its condition, its epoch (of several)."""
    where = f"{code(trial.case_id)} · {inline(trial.condition)}"
    label = epoch_label(trial.epoch, epochs)
    return f"{where} · {label}" if label else where


def _collect(trials: Iterable[TrialRecord], epochs: int | None) -> FailureList:
    failures = FailureList(epochs)
    for trial in trials:
        failures.add(trial)
    return failures
