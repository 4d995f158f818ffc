"""Which trials the HTML report lists, and each as a row of short, plain text.

A 100k-trial run cannot list every trial on one page, so the table is
capped: failing and errored trials first (up to `MAX_FAILING_ROWS`), then
passing ones up to `MAX_TRIAL_ROWS`, each group in the store's order. The
totals are counted over every trial so the page can say what it left out.
Texts are cut to excerpts here; escaping is the template's job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from assay.records import TrialRecord
from assay.reports.text import one_line
from assay.score import Score

MAX_FAILING_ROWS = 2000
MAX_TRIAL_ROWS = 3000
EXCERPT = 280


@dataclass
class TrialRow:
    case_id: str
    condition: str
    epoch: int
    status: str
    marks: list[tuple[str, str, str]]
    """(css class, symbol, title) per scorer, in the table's scorer order."""
    reasons: list[tuple[str, str, bool]]
    """(scorer, reason or error, is an error) for every scorer that failed or errored."""
    input: str
    expected: str
    output: str
    error: str


@dataclass
class TrialTable:
    scorers: list[str]
    conditions: list[str]
    rows: list[TrialRow] = field(default_factory=list)
    failing_total: int = 0
    passing_total: int = 0
    failing_shown: int = 0
    passing_shown: int = 0


class TrialSelector:
    """Picks the page's rows from trials fed one at a time (in the pass that writes
    `results.json`): failing and errored first, up to `max_failing`, then passing."""

    def __init__(self, scorers: list[str], conditions: list[str], *,
                 max_rows: int = MAX_TRIAL_ROWS, max_failing: int = MAX_FAILING_ROWS) -> None:
        self.max_rows = max_rows
        self.max_failing = min(max_failing, max_rows)
        self._table = TrialTable(scorers=list(scorers), conditions=list(conditions))
        self._failing: list[TrialRow] = []
        self._passing: list[TrialRow] = []

    def add(self, trial: TrialRecord) -> None:
        status = _status(trial)
        if status == "pass":
            self._table.passing_total += 1
            if len(self._passing) < self.max_rows:
                self._passing.append(_trial_row(trial, status, self._table.scorers))
        else:
            self._table.failing_total += 1
            if len(self._failing) < self.max_failing:
                self._failing.append(_trial_row(trial, status, self._table.scorers))

    def table(self) -> TrialTable:
        passing = self._passing[:self.max_rows - len(self._failing)]
        self._table.rows = self._failing + passing
        self._table.failing_shown, self._table.passing_shown = len(self._failing), len(passing)
        return self._table


def select_trials(trials: Iterable[TrialRecord], scorers: list[str], conditions: list[str],
                  *, max_rows: int = MAX_TRIAL_ROWS,
                  max_failing: int = MAX_FAILING_ROWS) -> TrialTable:
    """Failing and errored trials first (up to `max_failing`), then passing up to `max_rows`."""
    selector = TrialSelector(scorers, conditions, max_rows=max_rows, max_failing=max_failing)
    for trial in trials:
        selector.add(trial)
    return selector.table()


def _status(trial: TrialRecord) -> str:
    scores = trial.scores.values()
    if trial.error or any(s.error for s in scores):
        return "error"
    return "fail" if any(s.passed is False for s in scores) else "pass"


def _trial_row(trial: TrialRecord, status: str, scorers: list[str]) -> TrialRow:
    scores = trial.scores
    marks = [_mark(scores.get(name)) for name in scorers]
    reasons = [(name, one_line(score.error, 200), True) if score.error
               else (name, one_line(score.reason or "failed", 200), False)
               for name, score in scores.items()
               if score.error or score.passed is False]
    text = trial.output.text
    if not text and trial.output.tool_calls:
        text = "tool calls: " + ", ".join(call.name for call in trial.output.tool_calls)
    return TrialRow(
        case_id=str(trial.case_id), condition=str(trial.condition), epoch=trial.epoch,
        status=status, marks=marks, reasons=reasons,
        input=one_line(_as_text(trial.input), 160),
        expected=one_line(_as_text(trial.expected), 160), output=one_line(text, EXCERPT),
        error=one_line(trial.error or "", EXCERPT))


def _mark(score: Score | None) -> tuple[str, str, str]:
    if score is None:
        return "none", "–", "not scored"
    if score.error:
        return "err", "!", "error"
    value = score.value
    shown = "-" if value is None else f"{value:.3g}"
    low, high = score.scale
    binary = value in (low, high) and (low, high) == (0.0, 1.0)
    if score.passed is True:
        return "pass", "✓" if binary else f"✓ {shown}", f"passed, value {shown}"
    if score.passed is False:
        return "fail", "✗" if binary else f"✗ {shown}", f"failed, value {shown}"
    return "value", shown, f"value {shown}"


def _as_text(value: Any) -> str:
    """A case field as one line: text as is, chat messages by their last content, else JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(m, dict) for m in value):
        return str(value[-1].get("content", ""))
    return json.dumps(value, ensure_ascii=False, default=str)
