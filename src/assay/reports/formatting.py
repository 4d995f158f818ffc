"""Number formatting shared by the text renderers."""

from __future__ import annotations

from assay.analysis.summary import ScoreStats


def fmt_mean(stats: ScoreStats) -> str:
    if stats.mean is None:
        return "-"
    text = _num(stats.mean, stats.scale)
    if stats.mean_ci is not None:  # clipped to the scale, so not always symmetric
        text += f" [{_num(stats.mean_ci.low, stats.scale)}–{_num(stats.mean_ci.high, stats.scale)}]"
    return text


def fmt_pass_rate(stats: ScoreStats) -> str:
    if stats.pass_rate is None:
        return "-"
    text = f"{stats.pass_rate:.1%}"
    if stats.pass_rate_ci is not None:
        text += f" [{stats.pass_rate_ci.low:.0%}–{stats.pass_rate_ci.high:.0%}]"
    return text


def fmt_cost(value: float | None) -> str:
    """`$0.0123`, or `-` when no cost is known (see `reports.costs` for `unknown`)."""
    return "-" if value is None else f"${value:.4f}"


def _num(value: float, scale: tuple[float, float]) -> str:
    return f"{value:.3f}" if scale[1] - scale[0] <= 1 else f"{value:.2f}"
