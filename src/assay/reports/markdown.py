"""`report.md`: the run for people: summary, per-condition tables, failures with reasons."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.reports.comparisons import condition_comparisons_markdown
from assay.reports.formatting import fmt_cost, fmt_mean, fmt_pass_rate
from assay.reports.run_diff import run_diff_markdown
from assay.reports.text import inline

if TYPE_CHECKING:
    from assay.records import TrialRecord
    from assay.review.result import Review

MAX_FAILURES = 50


def render_markdown(review: Review, trials: Iterable[TrialRecord] | FailureList) -> str:
    """The whole report. `trials` are the stored trials, or a `FailureList` already fed with
    them (in the pass over the trials that writes `results.json`)."""
    run, summary, gates = review.run, review.summary, review.gates
    sections: list[str] = []
    comparisons = review.comparisons
    if comparisons.entries or comparisons.skipped:
        sections.append(condition_comparisons_markdown(comparisons))
    if review.previous is not None and review.previous.run_a is not None:
        sections.append(run_diff_markdown(
            review.previous, title=f"Compared with the previous run `{review.previous.run_a.id}`"))
    lines = [f"# {run.experiment}", ""]
    lines += [
        f"- run: `{run.id}` ({run.status})",
        f"- started: {run.started_at}" + (f", finished: {run.finished_at}" if run.finished_at else ""),
        f"- dataset: `{run.dataset_path}` (sha256 `{(run.dataset_hash or '')[:12]}`)",
        f"- trials: {sum(c.trials for c in summary.conditions)} of {run.total_trials}",
    ]
    if run.git_commit:
        lines.append(f"- git commit: `{run.git_commit}`")
    lines += ["", "## Scores", "",
              "| scorer | condition | n | mean [95% CI] | pass rate [95% CI] | errors |",
              "| --- | --- | ---: | ---: | ---: | ---: |"]
    for stats in summary.scores:
        lines.append(f"| {stats.scorer} | {stats.condition} | {stats.n} | {fmt_mean(stats)} | "
                     f"{fmt_pass_rate(stats)} | {stats.errors} |")
    lines += ["", "## Conditions", "",
              "| condition | trials | errors | mean latency | tokens in/out | cost | judge cost "
              "| cache hits | tool calls | tool errors |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for c in summary.conditions:
        latency = "-" if c.latency_ms_mean is None else f"{c.latency_ms_mean:,.0f} ms"
        lines.append(f"| {c.condition} | {c.trials} | {c.errors} | {latency} | "
                     f"{c.input_tokens:,}/{c.output_tokens:,} | {fmt_cost(c.cost_usd)} | "
                     f"{fmt_cost(c.judge_cost_usd)} | {c.cache_hits} | {c.tool_calls} | "
                     f"{c.tool_errors} |")
    for title, rows in (("By difficulty", summary.by_difficulty), ("By tag", summary.by_tag)):
        if rows:
            lines += ["", f"## {title}", "", "| group | scorer | condition | n | mean | pass rate |",
                      "| --- | --- | --- | ---: | ---: | ---: |"]
            for group, stats in rows:
                lines.append(f"| {group} | {stats.scorer} | {stats.condition} | {stats.n} | "
                             f"{fmt_mean(stats)} | {fmt_pass_rate(stats)} |")
    if gates:
        lines += ["", "## Gates", ""]
        lines += [f"- {'PASS' if g.passed else 'FAIL'} {g.gate}: {g.detail}" for g in gates]
    for section in sections:
        lines += ["", section.rstrip()]
    failures = trials if isinstance(trials, FailureList) else _collect(trials)
    lines += ["", *failures.lines()]
    return "\n".join(lines).rstrip() + "\n"


class FailureList:
    """The failed checks and errors of a run, kept up to `MAX_FAILURES` each, all counted.

    Fed one trial at a time, so the report can be built in the same pass over
    the stored trials that writes `results.json`.
    """

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.errors: list[str] = []
        self.total_failed = 0
        self.total_errors = 0

    def add(self, trial: TrialRecord) -> None:
        where = f"`{trial.case_id}` · {trial.condition}"
        if trial.epoch:
            where += f" · epoch {trial.epoch}"
        if trial.error:
            self._error(f"- {where}: {inline(trial.error)}")
            return
        for name, score in trial.scores.items():
            if score.error:
                self._error(f"- {where} · {name}: {inline(score.error)}")
            elif score.passed is False:
                self.total_failed += 1
                if len(self.failures) < MAX_FAILURES:
                    reason = inline(score.reason or "failed")
                    self.failures.append(f"- {where} · {name}: {reason}")

    def _error(self, line: str) -> None:
        self.total_errors += 1
        if len(self.errors) < MAX_FAILURES:
            self.errors.append(line)

    def lines(self) -> list[str]:
        out = ["## Failures", ""]
        out += self.failures or ["No failed checks."]
        if self.total_failed > len(self.failures):
            out.append(f"- ... and {self.total_failed - len(self.failures)} more")
        if self.errors:
            out += ["", "## Errors", "", *self.errors]
            if self.total_errors > len(self.errors):
                out.append(f"- ... and {self.total_errors - len(self.errors)} more")
        return out


def _collect(trials: Iterable[TrialRecord]) -> FailureList:
    failures = FailureList()
    for trial in trials:
        failures.add(trial)
    return failures
