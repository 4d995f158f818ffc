"""Paired comparison of two conditions (or two runs) over the same cases, for one scorer.

Everyone shows two averages side by side; this says whether their difference
is real. B is read relative to A (B - A): A is the baseline condition or the
earlier run, B the candidate or the newer run, and higher values are better.

Per scorer the comparison gives the delta of the mean and, when the scorer
has pass/fail verdicts, of the pass rate in percentage points; a CI of each
(a paired bootstrap, computed instead for few cases: see `paired_interval`); the
paired test the data call for (see `significance`); the cases B won, lost
and tied; and the Knowledge Packs reading of the delta beside the test's
verdict, so "+5pp" within noise says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, get_args

import numpy as np

from assay.analysis.bootstrap import DEFAULT_RESAMPLES
from assay.analysis.interval import Interval
from assay.analysis.paired_interval import difference_interval
from assay.analysis.pairing import Exclusions, PairedData, PerCase, Value, pair_cases
from assay.knowledge_packs.bands import Reading, pack_reading
from assay.analysis.significance import PairedTest, paired_test, snap
from assay.analysis.verdict import describe
from assay.errors import UserError

Kind: TypeAlias = Literal["pass_fail", "score"]
"""Which metric heads the comparison: the pass rate (McNemar) or the mean score (signed-rank)."""


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """B against A for one scorer over the cases both have. Pass rates are fractions; deltas in pp."""

    kind: Kind
    label_a: str
    label_b: str
    n: int
    mean_a: float
    mean_b: float
    delta_mean: float
    ci_mean: Interval
    sd_diff: float | None
    """Standard deviation of per-case B - A (None below two cases); drives sample-size advice."""
    mean_test: PairedTest
    pass_rate_a: float | None
    pass_rate_b: float | None
    delta_pp: float | None
    ci_pp: Interval | None
    pass_test: PairedTest | None
    pass_gain: float | None
    """Share of cases passing only with B (mean per-case gain in pass fraction)."""
    pass_loss: float | None
    """Share of cases passing only with A."""
    reading: Reading | None
    """Knowledge Packs band of the pass-rate delta (or of the mean as a share of `scale`)."""
    reading_delta_pp: float | None
    wins: tuple[str, ...]
    """Cases where B beat A on the headline metric."""
    losses: tuple[str, ...]
    ties: tuple[str, ...]
    excluded: Exclusions
    alpha: float
    scorer: str | None = None
    p_adjusted: float | None = None
    """Holm-adjusted p-value when this comparison is one of a family (see `multiple`)."""
    family_size: int = 1

    @property
    def test(self) -> PairedTest:
        """The headline test: McNemar-style for pass_fail, signed-rank-style for score."""
        if self.kind == "pass_fail":
            assert self.pass_test is not None
            return self.pass_test
        return self.mean_test

    @property
    def p_value(self) -> float:
        """The headline p-value, Holm-adjusted when part of a family."""
        return self.test.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def significant(self) -> bool:
        return self.p_value < self.alpha

    @property
    def verdict(self) -> str:
        """One line a person can act on: size, the pack reading, the test's verdict and the CI."""
        return describe(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer": self.scorer, "kind": self.kind,
            "label_a": self.label_a, "label_b": self.label_b, "n": self.n,
            "mean_a": self.mean_a, "mean_b": self.mean_b, "delta_mean": self.delta_mean,
            "ci_mean": self.ci_mean.to_dict(), "sd_diff": self.sd_diff,
            "mean_test": self.mean_test.to_dict(),
            "pass_rate_a": self.pass_rate_a, "pass_rate_b": self.pass_rate_b,
            "delta_pp": self.delta_pp, "ci_pp": self.ci_pp.to_dict() if self.ci_pp else None,
            "pass_test": self.pass_test.to_dict() if self.pass_test else None,
            "pass_gain": self.pass_gain, "pass_loss": self.pass_loss,
            "test": self.test.name, "p_value": self.test.p_value,
            "p_adjusted": self.p_adjusted, "family_size": self.family_size,
            "alpha": self.alpha, "significant": self.significant,
            "reading": self.reading, "reading_delta_pp": self.reading_delta_pp,
            "verdict": self.verdict,
            "wins": list(self.wins), "losses": list(self.losses), "ties": list(self.ties),
            "excluded": self.excluded.to_dict(),
        }


def compare_paired(
    a: PerCase, b: PerCase, *, kind: Kind,
    passed_a: PerCase | None = None, passed_b: PerCase | None = None,
    scale: tuple[float, float] | None = None, alpha: float = 0.05,
    confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
    label_a: str = "A", label_b: str = "B", scorer: str | None = None,
) -> PairedComparison:
    """Compare B with A over their common cases.

    `a`/`b` map case id -> value, or -> per-epoch values (averaged per case
    first; None marks an errored epoch and is left out). `passed_a`/`passed_b`
    give pass/fail verdicts the same way; with kind="pass_fail" they default
    to the values, which must then be 0/1 or booleans. `scale` (min, max) lets
    a scorer without verdicts get the pack reading of its mean delta as a
    share of the scale. The same `seed` gives the same intervals every time.
    """
    if kind not in get_args(Kind):
        raise UserError(f"unknown comparison kind {kind!r}; expected one of {get_args(Kind)}")
    if not 0 < alpha < 1:
        raise UserError(f"alpha must be between 0 and 1, got {alpha}")
    if kind == "pass_fail" and passed_a is None and passed_b is None:
        passed_a, passed_b = a, b
    for side, verdicts in (("A", passed_a), ("B", passed_b)):
        if verdicts is not None:
            _check_verdicts(verdicts, side)
    data = pair_cases(a, b, passed_a=passed_a, passed_b=passed_b)
    if data.n == 0:
        raise UserError(
            f"{scorer or 'comparison'}: no case has a usable result on both sides "
            f"({len(a)} cases in {label_a}, "
            f"{len(b)} in {label_b}, {data.excluded.count} excluded)")
    passes = _pass_figures(data, confidence, resamples, seed)
    headline_a, headline_b = (
        (data.pass_a, data.pass_b) if kind == "pass_fail" else (data.a, data.b))
    assert headline_a is not None and headline_b is not None
    wins, losses, ties = _outcomes(data.case_ids, headline_a, headline_b)
    delta_mean = float(np.mean(data.b) - np.mean(data.a))
    reading_pp = passes.delta_pp
    if reading_pp is None and scale is not None:
        reading_pp = _share_of_scale(delta_mean, scale)
    diffs = data.b - data.a
    span = None if scale is None else _span(scale)
    return PairedComparison(
        kind=kind, label_a=label_a, label_b=label_b, n=data.n,
        mean_a=float(np.mean(data.a)), mean_b=float(np.mean(data.b)), delta_mean=delta_mean,
        ci_mean=difference_interval(data.a, data.b, span=span, confidence=confidence,
                                    resamples=resamples, seed=seed),
        sd_diff=float(np.std(diffs, ddof=1)) if data.n > 1 else None,
        mean_test=paired_test(data.a, data.b),
        pass_rate_a=passes.rate_a, pass_rate_b=passes.rate_b,
        delta_pp=passes.delta_pp, ci_pp=passes.ci, pass_test=passes.test,
        pass_gain=passes.gain, pass_loss=passes.loss,
        reading=pack_reading(reading_pp) if reading_pp is not None else None,
        reading_delta_pp=reading_pp,
        wins=wins, losses=losses, ties=ties, excluded=data.excluded,
        alpha=alpha, scorer=scorer,
    )


@dataclass(frozen=True, slots=True)
class _PassFigures:
    """The pass-rate half of a comparison; every field None when the scorer has no verdicts."""

    rate_a: float | None = None
    rate_b: float | None = None
    delta_pp: float | None = None
    ci: Interval | None = None
    test: PairedTest | None = None
    gain: float | None = None
    loss: float | None = None


def _pass_figures(data: PairedData, confidence: float, resamples: int,
                  seed: int) -> _PassFigures:
    if data.pass_a is None or data.pass_b is None:
        return _PassFigures()
    diffs = data.pass_b - data.pass_a
    ci = difference_interval(data.pass_a, data.pass_b, span=1.0, confidence=confidence,
                             resamples=resamples, seed=seed)
    return _PassFigures(
        rate_a=float(np.mean(data.pass_a)), rate_b=float(np.mean(data.pass_b)),
        delta_pp=float(np.mean(diffs)) * 100, ci=ci.scaled(100),
        test=paired_test(data.pass_a, data.pass_b),
        gain=float(np.mean(np.clip(diffs, 0, None))),
        loss=float(np.mean(np.clip(-diffs, 0, None))),
    )


def _outcomes(case_ids: tuple[str, ...], a: np.ndarray,
              b: np.ndarray) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Cases B won, lost and tied, by case id."""
    d = snap(b - a)

    def pick(mask: np.ndarray) -> tuple[str, ...]:
        return tuple(cid for cid, keep in zip(case_ids, mask) if keep)

    return pick(d > 0), pick(d < 0), pick(d == 0)


def _share_of_scale(delta: float, scale: tuple[float, float]) -> float:
    return delta / _span(scale) * 100


def _span(scale: tuple[float, float]) -> float:
    low, high = scale
    if not high > low:
        raise UserError(f"scale must be (min, max) with max > min, got {scale}")
    return float(high - low)


def _check_verdicts(verdicts: PerCase, side: str) -> None:
    """Pass/fail verdicts are booleans or 0/1 per epoch; anything else is a mistake to report."""
    for case_id, raw in verdicts.items():
        values: Sequence[Value] = (
            raw if isinstance(raw, Sequence) and not isinstance(raw, str) else [raw])
        for value in values:
            if value is not None and value not in (0, 1):
                raise UserError(
                    f"side {side}, case {case_id!r}: pass/fail verdict {value!r} is not "
                    "true/false or 0/1")

