"""A review as the pages show it: score rows with their intervals, comparison rows.

Built from the typed review (`Review`, `RunDiff`) with the report renderers'
own formatting (`reports.formatting`, `reports.comparisons`), so a number
reads the same in the viewer, report.md and the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.analysis.verdict import evidence
from assay.reports.comparisons import (
    ci_label,
    exclusions,
    headline,
    ignored_epochs_text,
    p_text,
    size_text,
)
from assay.reports.formatting import fmt_mean, fmt_pass_rate
from assay.reports.meters import on_scale

if TYPE_CHECKING:
    from assay.analysis.conditions import ComparisonEntry
    from assay.analysis.interval import Interval
    from assay.analysis.paired import PairedComparison
    from assay.analysis.summary import RunSummary, ScoreStats


MAX_NAMED = 20
"""Cases named in a comparison's "left out" note; the rest are counted."""


@dataclass(frozen=True, slots=True)
class Meter:
    """A value and its interval as fractions of a drawn track (0..1)."""

    value: float
    low: float
    high: float


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


@dataclass(frozen=True, slots=True)
class ComparisonLine:
    """One paired comparison: both sides, the delta, its interval and the verdict."""

    scorer: str
    label: str
    before: str
    after: str
    delta: str
    interval: str
    p: str
    evidence: str
    size: str
    direction: str
    """`up`, `down` or `flat`: which way B moved from A."""
    significant: bool
    n: int
    wins: int
    losses: int
    left_out: str


def score_table(summary: RunSummary) -> list[tuple[str, list[ScoreLine]]]:
    """Per scorer (in the run's order), a line per condition."""
    return [(scorer, [_score_line(s) for s in summary.scores if s.scorer == scorer])
            for scorer in summary.scorer_names]


def comparison_lines(entries: Sequence[ComparisonEntry],
                     label: Callable[[ComparisonEntry], str]) -> list[ComparisonLine]:
    lines = []
    for entry in entries:
        c = entry.comparison
        before, after, delta, interval = headline(c)
        move = c.headline.estimate
        lines.append(ComparisonLine(
            scorer=c.scorer or "", label=label(entry), before=before, after=after, delta=delta,
            interval=f"{ci_label(c)} {interval}", p=p_text(c), evidence=evidence(c),
            size=size_text(c), direction="up" if move > 1e-12 else "down" if move < -1e-12
            else "flat", significant=c.significant, n=c.n, wins=len(c.wins),
            losses=len(c.losses), left_out=_left_out(c)))
    return lines


def _left_out(c: PairedComparison) -> str:
    """`1 errored in tools (every epoch): case-4; ...`: why cases were left out, named."""
    parts = [f"{len(ids)} {reason}: {', '.join(ids[:MAX_NAMED])}"
             + (f" and {len(ids) - MAX_NAMED} more" if len(ids) > MAX_NAMED else "")
             for reason, ids in exclusions(c)]
    ignored = ignored_epochs_text(c)
    return "; ".join(parts + ([ignored] if ignored else []))


def _score_line(stats: ScoreStats) -> ScoreLine:
    if stats.pass_rate is not None:
        meter = _meter(stats.pass_rate, stats.pass_rate_ci, (0.0, 1.0))
    elif stats.mean is not None:
        meter = _meter(stats.mean, stats.mean_ci, stats.scale)
    else:
        meter = None
    return ScoreLine(stats.condition, stats.n, stats.errors, fmt_mean(stats),
                     fmt_pass_rate(stats), meter)


def _meter(value: float, ci: Interval | None, scale: tuple[float, float]) -> Meter:
    return Meter(on_scale(value, scale), on_scale(ci.low if ci else value, scale),
                 on_scale(ci.high if ci else value, scale))
