"""The plain-language verdict of a paired comparison: effect size, test, CI, then pack reading.

The test's verdict comes right after the size, and the Knowledge Packs
reading last, labelled as such, so a reader sees at once when a "strong"
size is also within noise, and never takes the band's name ("significant
regression") for the test's call:

    +6.0pp: no significant difference (exact McNemar p=0.21);
    95% CI -2.0..+14.0pp; pack reading: strong

An interval computed for few cases names its method, since it is wider, and
may be lopsided, for a reason the reader should see:
`95% CI -100.0..-30.7pp (Newcombe)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.knowledge_packs.bands import labelled

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.paired import PairedComparison
    from assay.analysis.significance import PairedTest


def describe(c: PairedComparison) -> str:
    """The one-line verdict for a comparison (B relative to A)."""
    if c.kind == "pass_fail":
        assert c.delta_pp is not None and c.ci_pp is not None
        size = f"{c.delta_pp:+.1f}pp"
        ci = interval_text(c.ci_pp, "pp")
    else:
        size = f"mean {c.delta_mean:+.2f}"
        if c.reading is not None and c.delta_pp is None:
            size += f" = {c.reading_delta_pp:+.1f}pp of the scale"
        ci = interval_text(c.ci_mean, "")
    evidence = "significant" if c.significant else "no significant difference"
    line = f"{size}: {evidence} ({_p(c.test, c.p_adjusted, c.family_size)}); {ci}"
    if c.kind == "score" and c.delta_pp is not None and c.ci_pp is not None:
        assert c.pass_test is not None
        line += (f"; pass rate {c.delta_pp:+.1f}pp, {interval_text(c.ci_pp, 'pp')}, "
                 f"{_p(c.pass_test, None, 1)}")  # the reading below is of this delta
    if c.reading is not None:
        line += f"; {labelled(c.reading)}"
    return line


def format_p(p: float) -> str:
    """p-values to two significant digits, floored at 0.001: precision beyond that is noise."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def _p(test: PairedTest, adjusted: float | None, family: int) -> str:
    if adjusted is None:
        return f"{test.name} {format_p(test.p_value)}"
    return f"{test.name}, Holm-adjusted over {family}: {format_p(adjusted)}"


def interval_text(interval: Interval, unit: str) -> str:
    """`95% CI -2.0..+14.0pp`, with the method when it is not the bootstrap."""
    digits = 1 if unit == "pp" else 2
    method = f" ({interval.method})" if interval.method != "bootstrap" else ""
    return (f"{interval.confidence:.0%} CI "
            f"{interval.low:+.{digits}f}..{interval.high:+.{digits}f}{unit}{method}")
