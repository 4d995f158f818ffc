"""Cases side by side: one row per case, one cell per side (a condition, or a run's condition).

Pure: it arranges the trial previews the store handed out. A cell holds the
case's epochs under that side and, per scorer, a mark that reads at a
glance: `pass`, `fail`, `2/3` (passes of the epochs), a value for a scorer
without verdicts, or `error`; none for a scorer that did not score that side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.records import ScoreRow, TrialPreview
from assay.reports.formatting import score_text


@dataclass(frozen=True, slots=True)
class Side:
    """A column: one condition of one run."""

    run_id: str
    condition: str
    label: str


@dataclass(frozen=True, slots=True)
class Mark:
    """One scorer's result in a cell."""

    text: str
    tone: str
    """`pass`, `fail`, `mixed`, `error` or `value`: how the page colours it."""
    share: float | None = None
    """The share of epochs that passed (None without verdicts)."""


@dataclass
class Cell:
    side: Side
    trials: list[TrialPreview] = field(default_factory=list)
    marks: dict[str, Mark] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return next((t.error for t in self.trials if t.error), None)


@dataclass
class CaseRow:
    case_id: str
    input: str
    input_cut: bool
    expected: str
    expected_cut: bool
    tags: tuple[str, ...]
    cells: list[Cell]
    flipped: bool
    """Some scorer's pass share differs between the sides."""
    errored: bool


def arrange(case_ids: Sequence[str], sides: Sequence[Side], previews: Sequence[TrialPreview],
            scorers: Sequence[str]) -> list[CaseRow]:
    """A row per case id (in the order given), its cells in the order of `sides`."""
    by_cell: dict[tuple[str, str, str], list[TrialPreview]] = {}
    for preview in previews:
        by_cell.setdefault((preview.case_id, preview.run_id, preview.condition), []
                           ).append(preview)
    rows = []
    for case_id in case_ids:
        cells = []
        for side in sides:
            trials = by_cell.get((case_id, side.run_id, side.condition), [])
            cells.append(Cell(side, trials, _marks(scorers, trials)))
        first = next((t for c in cells for t in c.trials), None)
        if first is None:
            continue
        shares = {name: {c.marks[name].share for c in cells
                         if name in c.marks and c.marks[name].share is not None}
                  for name in scorers}
        rows.append(CaseRow(
            case_id=case_id, input=first.input, input_cut=first.input_cut,
            expected=first.expected, expected_cut=first.expected_cut, tags=first.tags,
            cells=cells,
            flipped=any(len(values) > 1 for values in shares.values()),
            errored=any(c.error or any(m.tone == "error" for m in c.marks.values())
                        for c in cells)))
    return rows


def _marks(scorers: Sequence[str], trials: Sequence[TrialPreview]) -> dict[str, Mark]:
    """A mark per scorer that scored this side. A scorer with no score on an answered trial
    did not run there (a rejudge run keeps only its judged scorers): no mark, not `error`."""
    return {name: _mark(name, [t for t in trials if t.error or name in t.scores])
            for name in scorers if any(t.error or name in t.scores for t in trials)}


def _mark(scorer: str, trials: Sequence[TrialPreview]) -> Mark:
    rows: list[ScoreRow | None] = [t.scores.get(scorer) for t in trials]
    failed = [t for t, row in zip(trials, rows) if t.error or row is None or row.failed]
    verdicts = [row.passed for row in rows if row is not None and row.passed is not None
                and not row.failed]
    if len(failed) == len(trials):
        return Mark("error", "error")
    if verdicts:
        passed = sum(verdicts)
        share = passed / len(verdicts)
        if len(verdicts) == 1:
            text, tone = ("pass", "pass") if passed else ("fail", "fail")
        else:
            tone = "pass" if share == 1 else "fail" if share == 0 else "mixed"
            text = f"{passed}/{len(verdicts)}"
        return Mark(text + (" +err" if failed else ""), tone, share)
    valued = [row for row in rows if row is not None and row.value is not None]
    if not valued:
        return Mark("-", "value")
    mean = sum(row.value for row in valued if row.value is not None) / len(valued)
    return Mark(score_text(mean, valued[0].scale), "value")  # 0.9995 is not `1`
