"""The plain-language verdict of a paired comparison: effect size, pack reading, test, CI, one line.

The point is to put the size and the evidence side by side, so a reader sees
at once when "+6pp, strong" is also "no significant difference":

    +6.0pp (strong by the pack reading) but no significant difference
    (exact McNemar p=0.21); 95% CI -2.0..+14.0pp
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.analysis.bootstrap import Interval
    from assay.analysis.paired import PairedComparison
    from assay.analysis.significance import PairedTest


def describe(c: PairedComparison) -> str:
    """The one-line verdict for a comparison (B relative to A)."""
    if c.kind == "pass_fail":
        assert c.delta_pp is not None and c.ci_pp is not None
        size = f"{c.delta_pp:+.1f}pp"
        ci = _ci(c.ci_pp, "pp")
    else:
        size = f"mean {c.delta_mean:+.2f}"
        if c.reading is not None and c.delta_pp is None:
            size += f" = {c.reading_delta_pp:+.1f}pp of the scale"
        ci = _ci(c.ci_mean, "")
    headline_reading = c.reading if c.kind == "pass_fail" or c.delta_pp is None else None
    if headline_reading is not None:
        size += f" ({headline_reading} by the pack reading)"
    joiner = " but " if _disagrees(headline_reading, c.significant) else ", "
    evidence = "significant" if c.significant else "no significant difference"
    line = f"{size}{joiner}{evidence} ({_p(c.test, c.p_adjusted, c.family_size)}); {ci}"
    if c.kind == "score" and c.delta_pp is not None and c.ci_pp is not None:
        assert c.pass_test is not None
        line += (f"; pass rate {c.delta_pp:+.1f}pp ({c.reading} by the pack reading), "
                 f"{_ci(c.ci_pp, 'pp')}, {_p(c.pass_test, None, 1)}")
    return line


def format_p(p: float) -> str:
    """p-values to two significant digits, floored at 0.001: precision beyond that is noise."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def _p(test: PairedTest, adjusted: float | None, family: int) -> str:
    if adjusted is None:
        return f"{test.name} {format_p(test.p_value)}"
    return f"{test.name}, Holm-adjusted over {family}: {format_p(adjusted)}"


def _ci(interval: Interval, unit: str) -> str:
    digits = 1 if unit == "pp" else 2
    return (f"{interval.confidence:.0%} CI "
            f"{interval.low:+.{digits}f}..{interval.high:+.{digits}f}{unit}")


def _disagrees(reading: str | None, significant: bool) -> bool:
    """True when the size band and the test point different ways (worth a "but")."""
    if reading is None:
        return False
    return (reading == "neutral") == significant
