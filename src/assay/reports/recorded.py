"""`report.md`'s "Worse than the recorded answer": replayed questions answered worse than then.

A replay (see `assay.replay`) asks the questions of real sessions again and
compares each new answer with the one recorded in the session. This
section lists, per question and condition, the recorded answer, the new
one, and the judge's reason, for every comparison that found the new
answer worse. It reads scores marked `details["versus"] == "recorded"`
(with the recorded answer in `details["recorded"]`), so it is empty, and
absent, for runs that replay nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.reports.text import code, inline
from assay.trial import epoch_label

if TYPE_CHECKING:
    from assay.records import TrialRecord

MAX_LISTED = 50
TEXT_CHARS = 400


@dataclass(frozen=True, slots=True)
class WorseAnswer:
    """One replayed question whose new answer a comparison found worse than the recorded one."""

    case_id: str
    condition: str
    epoch: int
    scorer: str
    question: str
    recorded: str
    answer: str
    reason: str


@dataclass
class RecordedComparisons:
    """The comparisons with recorded answers in a run, fed one trial at a time."""

    epochs: int | None
    """The run's epoch count, for naming each answer's epoch."""
    compared: int = 0
    worse: int = 0
    listed: list[WorseAnswer] = field(default_factory=list)

    def add(self, trial: TrialRecord) -> None:
        for name, score in trial.scores.items():
            details = score.details if isinstance(score.details, dict) else {}
            if details.get("versus") != "recorded" or score.error or score.passed is None:
                continue
            self.compared += 1
            if score.passed:
                continue
            self.worse += 1
            if len(self.listed) < MAX_LISTED:
                question = trial.input if isinstance(trial.input, str) else str(trial.input)
                self.listed.append(WorseAnswer(
                    trial.case_id, trial.condition, trial.epoch, name, question,
                    str(details.get("recorded") or ""), trial.output.text, score.reason))


def worse_than_recorded_markdown(comparisons: RecordedComparisons) -> str:
    """The section, or "" when the run compared nothing with a recorded answer."""
    if not comparisons.compared:
        return ""
    lines = ["## Worse than the recorded answer", "",
             (f"{comparisons.worse} of {comparisons.compared} replayed answers are worse than "
              "what was answered in the session.")]
    for item in comparisons.listed:
        where = f"{code(item.case_id)} · {inline(item.condition)}"
        label = epoch_label(item.epoch, comparisons.epochs)
        if label:
            where += f" · {label}"
        lines += ["", f"### {where} · {inline(item.scorer)}", "",
                  f"- question: {inline(item.question, TEXT_CHARS)}",
                  f"- then: {inline(item.recorded, TEXT_CHARS)}",
                  f"- now: {inline(item.answer, TEXT_CHARS) or '(no answer)'}",
                  f"- why: {inline(item.reason, TEXT_CHARS) or '(no reason given)'}"]
    if comparisons.worse > len(comparisons.listed):
        lines += ["", (f"... and {comparisons.worse - len(comparisons.listed)} more "
                       "(results.json has every comparison)")]
    return "\n".join(lines) + "\n"

