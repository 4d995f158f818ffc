"""Paired comparison of two conditions (or two runs) over the same cases, for one scorer.

Everyone shows two averages side by side; this says whether their difference
is real. B is read relative to A (B - A): A is the baseline condition or the
earlier run, B the candidate or the newer run, and higher values are better.

Per scorer the comparison gives two effects (see `effect`): the mean delta
(tested as a mean, `mean_delta`) and, when the scorer has pass/fail
verdicts, the pass-rate delta in percentage points (McNemar's score test
and Tango's interval, `pass_rate_delta`). One of them heads the comparison: the pass rate when
there are verdicts, else the mean. Only the headline carries a verdict, and
its interval and test are set at one level (the alpha, or its Holm step in
a family: `multiple`), so "significant" is exactly "the interval leaves out
0". Beside them: the cases B won, lost and tied, the Wilcoxon test of shift
for scores, and the Knowledge Packs size band of the delta.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, TypeAlias, get_args

from assay.analysis import moments
from assay.analysis.effect import Effect, Evidence, measure
from assay.analysis.interval import Interval, is_binary
from assay.analysis.mean_delta import Differences
from assay.analysis.pairing import Exclusions, PairedData, PerCase, Value, pair_cases
from assay.analysis.pass_rate_delta import DiscordantPairs
from assay.analysis.significance import PairedTest, signed_rank_test, snap
from assay.analysis.verdict import describe
from assay.errors import UserError
from assay.knowledge_packs.bands import Reading, pack_reading
from assay.shown_numbers import count
from assay.wording import plural

Kind: TypeAlias = Literal["pass_fail", "score"]
"""Which metric heads the comparison: the pass rate or the mean score."""


class NothingToPair(UserError):
    """No case has a usable result on both sides; `excluded` names each case and why, so a
    caller can tell a side that errored throughout from two sides that share no case."""

    def __init__(self, message: str, excluded: Exclusions) -> None:
        super().__init__(message)
        self.excluded = excluded


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """B against A for one scorer over the cases both have. Pass rates are fractions; deltas in pp."""

    kind: Kind
    label_a: str
    label_b: str
    n: int
    mean_a: float
    mean_b: float
    mean: Effect
    """The mean delta; the headline for kind "score"."""
    pass_rate_a: float | None
    pass_rate_b: float | None
    pass_rate: Effect | None
    """The pass-rate delta in pp (None without verdicts); the headline for kind "pass_fail"."""
    shift_test: PairedTest | None
    """Wilcoxon signed-rank on the per-case differences of a score: a test of shift, shown
    beside the mean's verdict and never deciding it."""
    reading: Reading | None
    """Knowledge Packs band of the headline delta (a mean's as a share of `scale`)."""
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
    def headline(self) -> Effect:
        """The effect the verdict is about: the pass rate for pass_fail, the mean for score."""
        if self.kind == "pass_fail":
            assert self.pass_rate is not None
            return self.pass_rate
        return self.mean

    @property
    def test(self) -> PairedTest:
        return self.headline.test

    @property
    def p_value(self) -> float:
        """The headline p-value, Holm-adjusted when part of a family."""
        return self.test.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def significant(self) -> bool:
        """The headline interval leaves out 0 (which is: the test rejects at its level)."""
        return self.headline.significant

    @property
    def correction(self) -> str | None:
        """`Holm, family of 3`, or None for a comparison made alone."""
        return f"Holm, family of {self.family_size}" if self.family_size > 1 else None

    @property
    def delta_mean(self) -> float:
        return self.mean.estimate

    @property
    def ci_mean(self) -> Interval:
        return self.mean.interval

    @property
    def pass_shares(self) -> bool:
        """The pass rate is over each case's share of passing epochs (2 of 3), not one
        verdict per case: a case B wins passes more often, which is not newly passing."""
        return (self.kind == "pass_fail" and self.pass_rate is not None
                and not isinstance(self.pass_rate.evidence, DiscordantPairs))

    @property
    def delta_pp(self) -> float | None:
        return None if self.pass_rate is None else self.pass_rate.estimate

    @property
    def ci_pp(self) -> Interval | None:
        return None if self.pass_rate is None else self.pass_rate.interval

    @property
    def sd_diff(self) -> float | None:
        """Standard deviation of per-case B - A (None below two cases)."""
        evidence = self.mean.evidence
        return evidence.sd if isinstance(evidence, Differences) and self.n > 1 else None

    @property
    def verdict(self) -> str:
        """One line a person can act on: size, interval and verdict of one quantity."""
        return describe(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer": self.scorer, "kind": self.kind,
            "label_a": self.label_a, "label_b": self.label_b, "n": self.n,
            "mean_a": self.mean_a, "mean_b": self.mean_b, "delta_mean": self.delta_mean,
            "ci_mean": self.ci_mean.to_dict(), "sd_diff": self.sd_diff,
            "pass_rate_a": self.pass_rate_a, "pass_rate_b": self.pass_rate_b,
            "delta_pp": self.delta_pp, "ci_pp": self.ci_pp.to_dict() if self.ci_pp else None,
            "headline": self.headline.metric,
            "mean_effect": self.mean.to_dict(),
            "pass_rate_effect": self.pass_rate.to_dict() if self.pass_rate else None,
            "shift_test": self.shift_test.to_dict() if self.shift_test else None,
            "test": self.test.name, "p_value": self.test.p_value,
            "p_adjusted": self.p_adjusted, "family_size": self.family_size,
            "correction": self.correction, "alpha": self.alpha, "level": self.headline.level,
            "significant": self.significant,
            "reading": self.reading, "reading_delta_pp": self.reading_delta_pp,
            "verdict": self.verdict,
            "wins": list(self.wins), "losses": list(self.losses), "ties": list(self.ties),
            "excluded": self.excluded.to_dict(),
        }


def compare_paired(
    a: PerCase, b: PerCase, *, kind: Kind,
    passed_a: PerCase | None = None, passed_b: PerCase | None = None,
    scale: tuple[float, float] | None = None, alpha: float = 0.05,
    label_a: str = "A", label_b: str = "B", scorer: str | None = None,
) -> PairedComparison:
    """Compare B with A over their common cases, both effects at level `alpha`.

    `a`/`b` map case id -> value, or -> per-epoch values (averaged per case
    first; None marks an errored epoch and is left out). `passed_a`/`passed_b`
    give pass/fail verdicts the same way; with kind="pass_fail" they default
    to the values, which must then be 0/1 or booleans. `scale` (min, max)
    bounds how far one case can move (its width bounds the intervals) and
    gives a scorer without verdicts the pack reading of its mean delta as a
    share of the scale.
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
        why = "; ".join(f"{count(len(ids))} {reason}"
                        for reason, ids in data.excluded.reasons(label_a, label_b))
        raise NothingToPair(
            "no case has a usable result on both sides "
            f"({plural(len(a), 'case')} in {label_a}, {count(len(b))} in {label_b}"
            + (f": {why})" if why else ")"), data.excluded)
    pass_rate = _pass_rate_effect(data, alpha)
    headline_a, headline_b = (
        (data.pass_a, data.pass_b) if kind == "pass_fail" else (data.a, data.b))
    assert headline_a is not None and headline_b is not None
    wins, losses, ties = _outcomes(data.case_ids, headline_a, headline_b)
    mean = measure("mean", Differences.of(_minus(data.b, data.a), _span(scale, data)), alpha)
    reading_pp = _reading_pp(kind, pass_rate, mean, scale, data)
    return PairedComparison(
        kind=kind, label_a=label_a, label_b=label_b, n=data.n,
        mean_a=moments.mean(data.a), mean_b=moments.mean(data.b), mean=mean,
        pass_rate_a=None if data.pass_a is None else moments.mean(data.pass_a),
        pass_rate_b=None if data.pass_b is None else moments.mean(data.pass_b),
        pass_rate=pass_rate,
        shift_test=signed_rank_test(_minus(data.b, data.a)) if kind == "score" else None,
        reading=pack_reading(reading_pp) if reading_pp is not None else None,
        reading_delta_pp=reading_pp,
        wins=wins, losses=losses, ties=ties, excluded=data.excluded,
        alpha=alpha, scorer=scorer,
    )


def _reading_pp(kind: Kind, pass_rate: Effect | None, mean: Effect,
                scale: tuple[float, float] | None, data: PairedData) -> float | None:
    """The headline delta in points for the size band: the pass rate's, or the mean's as a
    share of the scale (None for a mean without a scale)."""
    if kind == "pass_fail":
        return None if pass_rate is None else pass_rate.estimate
    return None if scale is None else share_pp(mean.estimate, _span(scale, data))


def share_pp(delta: float, span: float) -> float:
    """`delta` in points of a scale `span` wide, worked out on the numbers as written: in
    floats +0.0045 of 0-1 is 0.44999999999999996pp, and read `+0.005 (+0.4pp of the
    scale)`, where the delta shown is 0.5pp."""
    return float(Decimal(repr(delta)) * 100 / Decimal(repr(span)))


def _pass_rate_effect(data: PairedData, level: float) -> Effect | None:
    """McNemar on 0/1 verdicts; per-case pass shares (epochs) are tested as a mean."""
    if data.pass_a is None or data.pass_b is None:
        return None
    evidence: Evidence
    if is_binary(data.pass_a) and is_binary(data.pass_b):
        pairs = list(zip(data.pass_a, data.pass_b))
        evidence = DiscordantPairs(data.n, sum(1 for a, b in pairs if b and not a),
                                   sum(1 for a, b in pairs if a and not b))
    else:
        evidence = Differences.of(_minus(data.pass_b, data.pass_a), 1.0)
    return measure("pass_rate", evidence, level)


def _outcomes(case_ids: tuple[str, ...], a: Sequence[float],
              b: Sequence[float]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Cases B won, lost and tied, by case id."""
    d = snap(_minus(b, a))
    return (tuple(cid for cid, v in zip(case_ids, d) if v > 0),
            tuple(cid for cid, v in zip(case_ids, d) if v < 0),
            tuple(cid for cid, v in zip(case_ids, d) if v == 0))


def _minus(b: Sequence[float], a: Sequence[float]) -> list[float]:
    """Per-case B - A."""
    return [y - x for x, y in zip(a, b)]


def _span(scale: tuple[float, float] | None, data: PairedData) -> float:
    """How far one case's difference can go: the scale's width, else the range of values seen."""
    if scale is not None:
        low, high = scale
        if not high > low:
            raise UserError(f"scale must be (min, max) with max > min, got {scale}")
        return float(high - low)
    span = float(max(max(data.a), max(data.b)) - min(min(data.a), min(data.b)))
    if not span > 0:
        raise UserError(
            f"every value on both sides is {data.a[0]:g}: with {plural(data.n, 'case')} the "
            "interval of the difference has no bound without the scale; give scale=(min, max)")
    return span


def _check_verdicts(verdicts: PerCase, side: str) -> None:
    """Pass/fail verdicts are booleans or 0/1 per epoch; anything else is a mistake to report."""
    for case_id, raw in verdicts.items():
        if raw is None or raw is True or raw is False:  # one epoch's verdict: most cases
            continue
        values: Sequence[Value] = (
            raw if isinstance(raw, Sequence) and not isinstance(raw, str) else [raw])
        for value in values:
            if value is not None and value not in (0, 1):
                raise UserError(
                    f"side {side}, case {case_id!r}: pass/fail verdict {value!r} is not "
                    "true/false or 0/1")

