"""A review as the pages show it: score rows with their intervals, comparison rows.

Built from the typed review (`Review`, `RunDiff`) with the report renderers'
own formatting (`reports.formatting`, `reports.comparisons`), so a number
reads the same in the viewer, report.md and the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.reports.comparisons import ComparisonText, exclusions, ignored_epochs_text
from assay.reports.formatting import figures
from assay.reports.meters import Meter, mean_meter, rate_meter
from assay.shown_numbers import count

if TYPE_CHECKING:
    from assay.analysis.conditions import ComparisonEntry
    from assay.analysis.paired import PairedComparison
    from assay.analysis.summary import RunSummary, ScoreStats
    from assay.review.result import GateBars


MAX_NAMED = 20
"""Cases named in a comparison's "left out" note; the rest are counted."""


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One scorer under one condition: what it scored, with its 95% CI."""

    condition: str
    n: int
    errors: int
    mean: str
    pass_rate: str
    meter: Meter | None
    """The pass rate (or the mean on its scale) to draw."""


@dataclass(frozen=True)
class ComparisonLine(ComparisonText):
    """One paired comparison: both sides, the delta, its interval and the verdict, with the
    cases behind it."""

    scorer: str
    label: str
    significant: bool
    n: int
    wins: int
    losses: int
    left_out: str


def score_table(summary: RunSummary, bars: GateBars) -> list[tuple[str, list[ScoreLine]]]:
    """Per scorer (in the run's order), a line per condition, beside the minimums the run's
    gates hold it to (`bars`)."""
    return [(scorer, [_score_line(s, bars) for s in summary.scores if s.scorer == scorer])
            for scorer in summary.scorer_names]


def comparison_lines(entries: Sequence[ComparisonEntry],
                     label: Callable[[ComparisonEntry], str]) -> list[ComparisonLine]:
    return [ComparisonLine.of(entry.comparison, scorer=entry.comparison.scorer or "",
                              label=label(entry), significant=entry.comparison.significant,
                              n=entry.comparison.n, wins=len(entry.comparison.wins),
                              losses=len(entry.comparison.losses),
                              left_out=_left_out(entry.comparison))
            for entry in entries]


def _left_out(c: PairedComparison) -> str:
    """`1 errored in tools (every epoch): case-4; ...`: why cases were left out, named."""
    parts = [f"{count(len(ids))} {reason}: {', '.join(ids[:MAX_NAMED])}"
             + (f" and {count(len(ids) - MAX_NAMED)} more" if len(ids) > MAX_NAMED else "")
             for reason, ids in exclusions(c)]
    ignored = ignored_epochs_text(c)
    return "; ".join(parts + ([ignored] if ignored else []))


def _score_line(stats: ScoreStats, bars: GateBars) -> ScoreLine:
    return ScoreLine(stats.condition, stats.n, stats.errors, *figures(stats, bars),
                     rate_meter(stats.pass_rate, stats.pass_rate_ci) or mean_meter(stats))
