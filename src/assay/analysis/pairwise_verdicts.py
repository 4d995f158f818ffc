"""Pairwise verdicts asked in both orders: who won, how consistent the judge was, where it leaned.

A pairwise judge sees two answers, A and B, and names the better one. It
is asked twice, once with A shown first and once with B shown first; each
verdict is recorded by the answer it chose (`a`, `b` or `tie`), so the
two can be compared. The same winner in both orders is a verdict; two
different ones are a position-inconsistent tie (the judge followed the
position, not the answers).

Per pair of conditions (B against A):

- wins, ties and losses of B (inconsistent pairs counted as ties);
- B's win rate over the decided pairs, wins / (wins + losses), with the
  Clopper-Pearson interval, and the exact sign test of "neither is
  preferred", which that interval inverts, so the verdict and the interval
  cannot disagree; with several pairs of conditions, Holm's correction sets
  each interval at its step's level (see `multiple`);
- the win rate with ties as half a win, as leaderboards report it;
- positional consistency: the share of items with the same winner in both orders;
- the first-position rate: over the items where both orders named an
  answer, the share of those verdicts that named the one shown first (0.5
  for a judge without a lean), with a test of the lean and its interval;
- the tie rate: the share of single verdicts that said tie.

The first-position rate is read per item, not per verdict. An item judged
on its merits names the same answer in both orders: one verdict for the
first position, one for the second. Only an item whose winner changed with
the order moves the rate: both verdicts for the first position, or both for
the second. The two verdicts on one item are therefore negatively
correlated, and a Wilson interval over all verdicts, which takes them as
independent, held the true rate 98-100% of the time where it claimed 95%
(`tests/analysis/test_pairwise_verdicts.py`). With N such items, f of them
first in both orders and s second in both, the rate is 1/2 + (f - s) / 2N:
one half plus half a paired difference of proportions (the A-first verdict
naming A against the B-first verdict naming A), the quantity McNemar's test
is about. So the lean is McNemar's test on the order-swapped pairs (as
`pass_rate_delta` tests a pass-rate change) and its interval is Tango's
score interval (Tango 1998), which inverts that test: the rate's interval
leaves out 0.5 exactly when the test rejects, and `PositionStats.leans`
reads it from the interval. Tango's interval keeps a width when no item
changed with the order (a judge that never leans). Position bias measured
by swapping the order is the check of Zheng et al. 2023 ("Judging
LLM-as-a-judge with MT-Bench and Chatbot Arena"). An item with a tie in one
order is left out of the rate (it is in the tie rate). In seeded simulations
the interval holds the true rate 94-97% of the time at 20 and 50 items. The
limit: a judge without a lean whose winner seldom changes with the order
shows few such items (about two in 20 when it keeps its winner 90% of the
time), too few for any test of no lean to reject at its nominal 5%, and the
interval holds 0.5 about 99% of the time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias

from assay.analysis.interval import Interval, wilson
from assay.analysis.multiple import holm, step_levels
from assay.analysis.pass_rate_delta import DiscordantPairs, mcnemar_exact
from assay.analysis.significance import PairedTest
from assay.analysis.verdict import format_p
from assay.wording import plural

Choice: TypeAlias = Literal["a", "b", "tie"]
CHOICES: tuple[Choice, ...] = ("a", "b", "tie")
METHOD = "Clopper-Pearson, exact sign test at 0.5"
POSITION_LEVEL = 0.05
"""The level of the first-position test and its interval (one per pair of conditions)."""


@dataclass(frozen=True, slots=True)
class OrderedVerdicts:
    """One item judged in both orders; each verdict names the answer it chose."""

    id: str
    a_first: Choice | None
    """The verdict with A shown first (None when that ask failed)."""
    b_first: Choice | None
    """The verdict with B shown first."""

    @property
    def consistent(self) -> bool:
        return self.a_first is not None and self.a_first == self.b_first

    @property
    def winner(self) -> Choice | None:
        """The reconciled verdict: the common choice, or a tie when the orders disagree."""
        if self.a_first is None or self.b_first is None:
            return None
        return self.a_first if self.a_first == self.b_first else "tie"


def order_swapped_pairs(verdicts: Sequence[OrderedVerdicts]) -> DiscordantPairs:
    """The items where both orders named an answer, as McNemar's paired counts: `b_only`
    the items that named the answer shown first in both orders, `a_only` the second."""
    decided = [v for v in verdicts if v.a_first in ("a", "b") and v.b_first in ("a", "b")]
    first = sum(v.a_first == "a" and v.b_first == "b" for v in decided)
    second = sum(v.a_first == "b" and v.b_first == "a" for v in decided)
    return DiscordantPairs(len(decided), first, second)


@dataclass(frozen=True, slots=True)
class PositionStats:
    """How the judge behaved across the two orders."""

    items: int
    """Items with a verdict in both orders."""
    consistent: int
    """Items with the same winner in both orders."""
    consistency_ci: Interval | None
    first_picks: int
    """Verdicts naming the answer shown first, over the items both orders named one."""
    decided_verdicts: int
    """Verdicts of the items where both orders named an answer (two per item)."""
    first_position_rate: float | None
    first_position_ci: Interval | None
    """Tango's interval carried to the rate; it leaves out 0.5 exactly when the test rejects."""
    first_position_test: PairedTest | None
    """McNemar's test of no lean over the items that changed winner with the order."""
    tie_verdicts: int
    verdicts: int
    """Single verdicts in all (two per item)."""

    @property
    def consistency(self) -> float | None:
        return self.consistent / self.items if self.items else None

    @property
    def tie_rate(self) -> float | None:
        return self.tie_verdicts / self.verdicts if self.verdicts else None

    @property
    def leans(self) -> Literal["first", "second"] | None:
        """The position the judge leans to beyond noise, read from the interval, or None."""
        ci, rate = self.first_position_ci, self.first_position_rate
        if ci is None or rate is None or ci.contains(0.5):
            return None
        return "first" if rate > 0.5 else "second"

    def lean_note(self) -> str:
        """The verdict on the lean with its test, in the words a report prints beside the rate."""
        if self.first_position_test is None:
            return "no item named an answer in both orders"
        verdict = ("no lean beyond noise" if self.leans is None
                   else f"leans to the answer shown {self.leans}")
        pairs = plural(self.decided_verdicts // 2, "item")
        return (f"{verdict} ({self.first_position_test.name} "
                f"{format_p(self.first_position_test.p_value, POSITION_LEVEL)}); "
                f"0.5 is no lean; over the {pairs} both orders named an answer")

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "consistent": self.consistent,
                "consistency": self.consistency,
                "consistency_ci": self.consistency_ci.to_dict() if self.consistency_ci else None,
                "first_picks": self.first_picks, "decided_verdicts": self.decided_verdicts,
                "first_position_rate": self.first_position_rate,
                "first_position_ci": self.first_position_ci.to_dict()
                if self.first_position_ci else None,
                "first_position_test": self.first_position_test.to_dict()
                if self.first_position_test else None, "leans": self.leans,
                "tie_verdicts": self.tie_verdicts, "verdicts": self.verdicts,
                "tie_rate": self.tie_rate}


def position_stats(verdicts: Sequence[OrderedVerdicts]) -> PositionStats:
    both = [v for v in verdicts if v.a_first is not None and v.b_first is not None]
    consistent = sum(v.consistent for v in both)
    single = [c for v in verdicts for c in (v.a_first, v.b_first) if c is not None]
    pairs = order_swapped_pairs(verdicts)
    rate = ci = test = None
    if pairs.n:
        rate = (1 + pairs.estimate) / 2
        test = replace(pairs.test(), note=f"{plural(pairs.b_only, 'item')} named the answer "
                       f"shown first in both orders, {pairs.a_only:,} the one shown second; "
                       f"of {plural(pairs.n, 'item')} both orders named an answer")
        delta = pairs.interval(POSITION_LEVEL, test)
        ci = Interval((1 + delta.low) / 2, (1 + delta.high) / 2, delta.confidence,
                      method=f"{delta.method}, order-swapped pairs")
    return PositionStats(
        items=len(both), consistent=consistent,
        consistency_ci=wilson(consistent, len(both)) if both else None,
        first_picks=pairs.n + pairs.b_only - pairs.a_only, decided_verdicts=2 * pairs.n,
        first_position_rate=rate, first_position_ci=ci, first_position_test=test,
        tie_verdicts=single.count("tie"), verdicts=len(single))


@dataclass(frozen=True, slots=True)
class PairwiseResult:
    """B against A over the items judged in both orders."""

    label_a: str
    label_b: str
    n: int
    wins: int
    """Items B won in both orders."""
    ties: int
    """Ties in both orders, and position-inconsistent items."""
    losses: int
    inconsistent: int
    win_rate: float | None
    """wins / (wins + losses); None when no pair was decided."""
    interval: Interval | None
    test: PairedTest
    level: float
    """The alpha the interval was set at (a Holm step within a family)."""
    positions: PositionStats
    errored: int = 0
    """Items without a verdict in both orders (an ask failed, or an answer is missing)."""
    p_adjusted: float | None = None
    family_size: int = 1
    scorer: str | None = None

    @property
    def win_rate_ties_half(self) -> float | None:
        return (self.wins + self.ties / 2) / self.n if self.n else None

    @property
    def significant(self) -> bool:
        return self.interval is not None and not self.interval.contains(0.5)

    @property
    def preferred(self) -> str | None:
        """The label of the side preferred beyond noise, or None."""
        if not self.significant or self.win_rate is None:
            return None
        return self.label_b if self.win_rate > 0.5 else self.label_a

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "label_a": self.label_a, "label_b": self.label_b,
                "n": self.n, "wins": self.wins, "ties": self.ties, "losses": self.losses,
                "inconsistent": self.inconsistent, "win_rate": self.win_rate,
                "win_rate_ties_half": self.win_rate_ties_half,
                "interval": self.interval.to_dict() if self.interval else None,
                "test": self.test.to_dict(), "level": self.level,
                "p_adjusted": self.p_adjusted, "family_size": self.family_size,
                "significant": self.significant, "preferred": self.preferred,
                "positions": self.positions.to_dict(), "errored": self.errored}


def pairwise_result(verdicts: Sequence[OrderedVerdicts], *, label_a: str = "A",
                    label_b: str = "B", level: float = 0.05,
                    scorer: str | None = None) -> PairwiseResult:
    """Win, tie and loss counts of B, its win rate with interval and sign test, the positions."""
    judged = [v for v in verdicts if v.winner is not None]
    wins = sum(v.winner == "b" for v in judged)
    losses = sum(v.winner == "a" for v in judged)
    test = mcnemar_exact(wins, losses)  # the exact sign test over the decided pairs
    test = replace(test, name="exact sign test",
                   note=f"{plural(wins, 'pair')} won by {label_b}, {losses:,} by {label_a}; "
                        "ties left out")
    return PairwiseResult(
        label_a=label_a, label_b=label_b, n=len(judged), wins=wins,
        ties=len(judged) - wins - losses, losses=losses,
        inconsistent=sum(not v.consistent for v in judged),
        win_rate=wins / (wins + losses) if wins + losses else None,
        interval=clopper_pearson(wins, wins + losses, level), test=test, level=level,
        positions=position_stats(verdicts), errored=len(verdicts) - len(judged),
        scorer=scorer)


def clopper_pearson(successes: int, n: int, level: float) -> Interval | None:
    """The exact interval at confidence 1 - level; it leaves out 0.5 exactly when the
    two-sided exact binomial test of 0.5 rejects at `level`."""
    if n == 0:
        return None
    from scipy import stats  # only runs with a pairwise judge pay for scipy

    ci = stats.binomtest(successes, n, 0.5).proportion_ci(confidence_level=1 - level,
                                                          method="exact")
    return Interval(float(ci.low), float(ci.high), 1 - level, method=METHOD)


def adjust_pairwise(results: Sequence[PairwiseResult]) -> list[PairwiseResult]:
    """Several pairs of conditions as one Holm family: each interval at its step's level."""
    if len(results) < 2:
        return list(results)
    alpha = results[0].level
    raw = [r.test.p_value for r in results]
    adjusted = holm(raw, alpha=alpha).adjusted
    levels = step_levels(raw, alpha=alpha)
    return [replace(r, level=lvl, interval=clopper_pearson(r.wins, r.wins + r.losses, lvl),
                    p_adjusted=adj, family_size=len(results))
            for r, adj, lvl in zip(results, adjusted, levels)]
