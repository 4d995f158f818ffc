"""What pytest shows when an eval misses its gates: which gates, which cases, and why.

`assert_eval` raises `EvalFailed`, an `AssertionError`, so pytest reports
it as it reports a failed `assert`: at the test's line, with this report
as the message. For every scorer and condition a failed gate is about, it
names the cases that did not pass with the scorer's reason (or the error)
and the start of the answer; a failed regression gate names the cases that
do worse than in the run it compared with (newly failing, or with epochs passing
less often).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.pytest_plugin.thresholds import Thresholds, threshold_gates
from assay.trial import epoch_label
from assay.wording import part_of, path_text, plural

if TYPE_CHECKING:
    from assay.api.evaluate import EvalResult
    from assay.records import TrialRecord
    from assay.review.result import GateResult

CASES_SHOWN = 10
"""Cases listed per scorer and condition; the rest are counted (report.md has them all)."""
ANSWER_CHARS = 100


class EvalFailed(AssertionError):
    """An eval missed one or more gates; the message is the report pytest shows."""

    def __init__(self, report: str, result: EvalResult, failed: list[GateResult]) -> None:
        super().__init__(report)
        self.result = result
        self.failed = failed


EvalFailed.__module__ = "assay.pytest_plugin"


def assert_eval(result: EvalResult, thresholds: Thresholds | None = None) -> EvalResult:
    """Raise `EvalFailed` unless every gate of `result` passed, and every threshold too.

    `thresholds` (`{"contains": 0.8, "judge_score.mean@pack": 7}`) are judged on the
    result's summary here; the `assay_eval` fixture passes them to the run instead, so
    they are stored with it. A threshold on a scorer or condition the run does not have is
    a `UserError`, as the fixture's is, not a gate failed for 'no results'.
    """
    __tracebackhide__ = True
    from assay.review.gates import check_thresholds, threshold_results

    gates = list(result.gates)
    extra = threshold_gates(thresholds)
    if extra:
        summary = result.summary
        check_thresholds(extra, list(dict.fromkeys(s.scorer for s in summary.scores)),
                         summary.condition_names)
        gates += threshold_results(extra, summary)
    failed = [gate for gate in gates if not gate.passed]
    if failed:
        raise EvalFailed(failure_report(result, failed, total=len(gates)), result, failed)
    return result


def failure_report(result: EvalResult, failed: list[GateResult], *, total: int) -> str:
    """The message of `EvalFailed`: the failed gates, then the cases behind each."""
    run = result.run
    missed = part_of(len(failed), total, "gate")
    lines = [f"eval '{run.experiment}' missed {missed} (run {run.id})"]
    lines += [f"  FAIL {gate.gate}: {gate.detail}" for gate in failed]
    pairs = _pairs_of(failed, result)
    if pairs:
        for listing in _cases_not_passing(result.trials(), pairs, run.epochs):
            lines += ["", *listing.lines()]
    lines += _newly_failing(result, failed)
    if result.files is not None:
        lines += ["", f"report: {path_text(result.files.markdown)}"]
    return "\n".join(lines)


def _pairs_of(failed: list[GateResult], result: EvalResult) -> list[tuple[str, str]]:
    """The (scorer, condition) each failed threshold gate is about, read from its label
    (`scorer@condition pass rate`) against the run's known scorers and conditions."""
    known = [(s.scorer, s.condition) for s in result.summary.scores]
    found: list[tuple[str, str]] = []
    for gate in failed:
        if gate.gate.startswith("regression"):
            continue
        matching = [pair for pair in known if gate.gate == f"{pair[0]}@{pair[1]}"
                    or gate.gate.startswith(f"{pair[0]}@{pair[1]} ")]
        if matching:
            pair = max(matching, key=lambda p: len(p[0]) + len(p[1]))
            if pair not in found:
                found.append(pair)
    return found


@dataclass
class _Listing:
    """The cases of one scorer under one condition that did not pass."""

    scorer: str
    condition: str
    epochs: int | None
    """The run's epoch count, for naming each trial's epoch."""
    trials: int = 0
    shown: list[str] = field(default_factory=list)
    not_passing: int = 0
    lowest: list[tuple[float, str]] = field(default_factory=list)
    """(value, line) of scored cases without a verdict, for a mean gate."""

    def add(self, trial: TrialRecord) -> None:
        self.trials += 1
        label = epoch_label(trial.epoch, self.epochs)
        where = f"{trial.case_id} ({label})" if label else trial.case_id
        score = trial.scores.get(self.scorer)
        if trial.error:
            self._not_passing(f"{where}: error: {_one_line(trial.error)}")
        elif score is None:
            self._not_passing(f"{where}: not scored")
        elif score.error:
            self._not_passing(f"{where}: {self.scorer} error: {_one_line(score.error)}")
        elif score.passed is False:
            reason = _one_line(score.reason or "failed")
            self._not_passing(f"{where}: {reason}{_answer(trial)}")
        elif score.passed is None and score.value is not None:
            why = f" ({_one_line(score.reason)})" if score.reason else ""
            line = f"{where}: scored {score.value:g}{why}{_answer(trial)}"
            self.lowest.append((score.value, line))

    def _not_passing(self, line: str) -> None:
        self.not_passing += 1
        if len(self.shown) < CASES_SHOWN:
            self.shown.append(line)

    def lines(self) -> list[str]:
        head = f"{self.scorer} @ {self.condition}:"
        if self.not_passing:
            out = [f"{head} {self.not_passing} of {plural(self.trials, 'trial')} did not pass"]
            out += [f"  {line}" for line in self.shown]
            if self.not_passing > len(self.shown):
                out.append(f"  ... and {self.not_passing - len(self.shown)} more")
            return out
        lowest = sorted(self.lowest, key=lambda item: item[0])[:CASES_SHOWN]
        return [f"{head} lowest scores of {plural(self.trials, 'trial')}",
                *(f"  {line}" for _, line in lowest)]


def _cases_not_passing(trials: Iterable[TrialRecord], pairs: list[tuple[str, str]],
                       epochs: int | None) -> list[_Listing]:
    listings = {pair: _Listing(*pair, epochs) for pair in pairs}
    for trial in trials:
        for (scorer, condition), listing in listings.items():
            if trial.condition == condition:
                listing.add(trial)
    return list(listings.values())


def _newly_failing(result: EvalResult, failed: list[GateResult]) -> list[str]:
    """For a failed regression gate: the cases that passed in the earlier run and fail now."""
    previous = result.previous
    if previous is None or previous.run_a is None or not any(
            gate.gate.startswith("regression") for gate in failed):
        return []
    from assay.analysis.run_diff import condition_of, flips
    from assay.reports.comparisons import change_names

    lines: list[str] = []
    for entry in previous.entries:
        failing, _ = flips(entry)
        if failing:
            shown = ", ".join(failing[:CASES_SHOWN])
            more = f" and {len(failing) - CASES_SHOWN} more" if len(failing) > CASES_SHOWN else ""
            _, worse = change_names(entry.comparison)  # with epochs: passing less often
            lines.append(f"  {entry.comparison.scorer} @ {condition_of(entry)}, {worse}: "
                         f"{shown}{more}")
    if not lines:
        return []
    return ["", f"worse since run {previous.run_a.id}:", *lines]


def _answer(trial: TrialRecord) -> str:
    text = _one_line(trial.output.text or "", ANSWER_CHARS)
    return f" | answer: {text!r}" if text else " | answer: (empty)"


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
