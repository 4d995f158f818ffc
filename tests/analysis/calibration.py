"""Calibration of the comparison verdicts: false alarms, coverage, agreement.

For pass rates (paired 0/1 verdicts) and for means of skewed per-case
differences, at 20, 30 and 100 cases, with and without a true difference,
it counts how often the verdict says "significant", how often the 95%
interval holds the true delta, and how many lines have a verdict that
disagrees with their own interval.

- Means of a few integer differences (a judge's 0-10 scores moving by -3, 0
  or +1): a comparison depends only on how many cases took each value, so
  the rates are summed exactly over every such count, like the pass rates.
- Means of continuous differences: 4,000 seeded simulated runs per scenario
  and size (Monte Carlo SD of a rate near 95%: 0.34pp), so the numbers are
  the same on every machine.
- Pass rates: a comparison depends only on n and the two discordant counts,
  so the rates are summed exactly over every table the scenario can
  produce, weighted by its multinomial probability: no Monte Carlo error.
  Every one of those tables is checked for disagreement, and 100 seeded
  simulated runs also go through the whole comparison to its printed line.

`test_calibration.py` asserts on them; run this file to print them:

    uv run python tests/analysis/calibration.py
"""

from __future__ import annotations

import re
import warnings
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import stats

from assay.analysis.effect import Effect, measure
from assay.analysis.empirical_likelihood import statistics_at_zero
from assay.analysis.mean_delta import Differences
from assay.analysis.paired import PairedComparison, compare_paired
from assay.analysis.pass_rate_delta import DiscordantPairs

SIZES = (20, 30, 100)
ALPHA = 0.05
REPLICATES = 4000
"""Simulated runs per mean scenario and size."""
REMEASURED = 40_000
"""Seeded runs over which a continuous scenario's false alarms are counted again."""
LINES = 100
"""Simulated runs per scenario and size that go through `compare_paired` whole."""
NEGLIGIBLE = 1e-13
"""Tables less likely than this are left out of the exact sums (their total is below 1e-9)."""


@dataclass(frozen=True)
class Scenario:
    name: str
    true_delta: float
    """In the units the effect reports: pp for pass rates, score units for means."""
    draw: Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    """n paired cases (A, B)."""
    cells: tuple[float, float, float] | None = None
    """Pass rates only: the chances a case passes with B only, with A only, or neither way
    apart (both or neither), from which the rates are summed exactly."""
    support: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    """Means of a few integer differences only: the values and their chances, from which
    the rates are summed exactly over every sample's counts."""


@dataclass(frozen=True)
class Rates:
    scenario: str
    n: int
    significant: float
    coverage: float
    disagreements: int


def pass_scenario(name: str, both: float, a_only: float, b_only: float) -> Scenario:
    """Cases fall in the 2x2 table's cells with these probabilities (the rest: neither)."""
    cells = np.array([both, a_only, b_only, 1 - both - a_only - b_only])
    sides = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool)

    def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        pairs = sides[rng.choice(4, size=n, p=cells)]
        return pairs[:, 0], pairs[:, 1]

    return Scenario(name, (b_only - a_only) * 100, draw,
                    (b_only, a_only, 1 - b_only - a_only))


def mean_scenario(name: str, differences: Callable[[np.random.Generator, int], np.ndarray],
                  true_delta: float,
                  support: tuple[tuple[float, ...], tuple[float, ...]] | None = None
                  ) -> Scenario:
    """A judge score out of 10 for A; B = A + a skewed difference."""
    def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        a = rng.integers(3, 8, n).astype(float)
        return a, a + differences(rng, n)

    return Scenario(name, true_delta, draw, support=support)


def judge_like(name: str, values: list[float], weights: list[float]) -> Scenario:
    """Integer differences (most cases gain a point, a few lose several), whose rates are
    summed exactly: a comparison depends only on how many cases took each value."""
    true_delta = round(float(np.dot(values, weights)), 12)
    return mean_scenario(name, lambda rng, n: rng.choice(values, size=n, p=weights),
                         true_delta, (tuple(values), tuple(weights)))


def _gamma(shift: float) -> Callable[[np.random.Generator, int], np.ndarray]:
    """Right-skewed continuous differences (gamma, shape 2), mean `shift`."""
    return lambda rng, n: rng.gamma(2.0, 1.0, n) - 2.0 + shift


PASS_SCENARIOS = (
    pass_scenario("pass: no difference, 30% discordant", 0.45, 0.15, 0.15),
    pass_scenario("pass: no difference, 10% discordant", 0.60, 0.05, 0.05),
    pass_scenario("pass: +10pp", 0.45, 0.10, 0.20),
    pass_scenario("pass: +25pp", 0.40, 0.05, 0.30),
)
MEAN_SCENARIOS = (
    judge_like("mean: no difference, skewed integers {-3,0,+1}", [-3, 0, 1], [0.2, 0.2, 0.6]),
    mean_scenario("mean: no difference, gamma(2)-2", _gamma(0.0), 0.0),
    judge_like("mean: +0.2, skewed integers {-3,0,+1}", [-3, 0, 1], [0.15, 0.2, 0.65]),
    mean_scenario("mean: +0.5, gamma(2)-1.5", _gamma(0.5), 0.5),
    judge_like("mean: no difference, most unchanged {-1,0,+1}", [-1, 0, 1], [0.1, 0.8, 0.1]),
    mean_scenario("mean: no difference, heavy tails t(3)",
                  lambda rng, n: rng.standard_t(3, n), 0.0),
)
"""Skewed differences both ways, which fool the t test, and two kinds of noise that fool
the empirical likelihood at 20 or 30 cases: few cases moved, and symmetric heavy tails."""
RARE_LOSS = judge_like("mean: no difference, a rare loss {-4 (10%),0,+1}", [-4, 0, 1],
                       [0.1, 0.5, 0.4])
"""Beyond any test's reach, so outside the band: one case in ten loses 4 points, and
0.9^20 = 12% of 20-case samples hold no loss at all and show a clean gain."""


@cache
def _effect(n: int, b_only: int, a_only: int) -> Effect:
    """Once per distinct table: the effect depends on nothing else."""
    return measure("pass_rate", DiscordantPairs(n, b_only, a_only), ALPHA)


def pass_rate_comparison(a: np.ndarray, b: np.ndarray) -> PairedComparison:
    """The full comparison, with its verdict line."""
    return _comparison(len(a), int(np.sum(a & b)), int(np.sum(a & ~b)), int(np.sum(~a & b)))


@cache
def _comparison(n: int, both: int, a_only: int, b_only: int) -> PairedComparison:
    cells = [(True, True)] * both + [(True, False)] * a_only + [(False, True)] * b_only
    cells += [(False, False)] * (n - both - a_only - b_only)
    a = {f"q{i}": x for i, (x, _) in enumerate(cells)}
    b = {f"q{i}": y for i, (_, y) in enumerate(cells)}
    return compare_paired(a, b, kind="pass_fail", alpha=ALPHA)


def mean_effect(a: np.ndarray, b: np.ndarray) -> Effect:
    """The headline of a score comparison, as `compare_paired` builds it (scale 0..10)."""
    return mean_effect_of(b - a)


def mean_effect_of(differences: np.ndarray) -> Effect:
    """The headline of a score comparison with these per-case differences B - A."""
    return measure("mean", Differences.of(differences, 10.0), ALPHA)


def mean_comparison(a: np.ndarray, b: np.ndarray) -> PairedComparison:
    """The full comparison, with its verdict line."""
    return compare_paired({f"q{i}": x for i, x in enumerate(a)},
                          {f"q{i}": y for i, y in enumerate(b)}, kind="score", scale=(0, 10),
                          alpha=ALPHA)


def disagrees(effect: Effect, verdict: str | None = None) -> bool:
    """A line whose verdict and interval tell different stories, in its numbers or as
    printed: the bounds and the p-value as a reader sees them, rounded."""
    says_significant = effect.test.p_value < effect.level
    if verdict is not None:
        says_significant = "within noise" not in verdict
        if ("significant" in verdict) == ("within noise" in verdict):
            return True
        low, high = printed_bounds(verdict)
        if says_significant != (low > 0 or high < 0):
            return True
        if says_significant != (printed_p(verdict) < effect.level):
            return True
    return says_significant != (not effect.interval.contains(0.0))


def printed_bounds(line: str) -> tuple[float, float]:
    """The interval as printed: `95% CI -0.0047..+0.52` -> (-0.0047, 0.52)."""
    match = re.search(r"CI ([-+]?[\d.]+(?:e[-+]?\d+)?)\.\.([-+]?[\d.]+(?:e[-+]?\d+)?)", line)
    assert match, line
    return float(match[1]), float(match[2])


def printed_p(line: str) -> float:
    """The p-value as printed; `p<0.001` reads as just under its bound."""
    match = re.search(r"p([=<])([\d.]+(?:e-\d+)?)", line)
    assert match, line
    return float(match[2]) - (1e-12 if match[1] == "<" else 0.0)


def run(scenario: Scenario, n: int, *, replicates: int = REPLICATES, lines: int = LINES,
        seed: int = 0) -> Rates:
    """Exact rates for a pass-rate scenario, simulated ones for a mean scenario; `lines`
    seeded runs of either go through the whole comparison, verdict line and all."""
    rng = np.random.default_rng([seed, n, zlib.crc32(scenario.name.encode())])
    if scenario.cells is not None:
        return _exact_pass_rates(scenario, n, rng, lines)
    if scenario.support is not None:
        return _exact_mean_rates(scenario, n, rng, lines)
    significant = covered = disagreements = 0
    for i in range(replicates):
        a, b = scenario.draw(rng, n)
        verdict = None
        if i < lines:
            comparison = mean_comparison(a, b)
            effect, verdict = comparison.headline, comparison.verdict
        else:
            effect = mean_effect(a, b)
        significant += effect.significant
        covered += effect.interval.contains(scenario.true_delta)
        disagreements += disagrees(effect, verdict)
    return Rates(scenario.name, n, significant / replicates, covered / replicates, disagreements)


def plain_t_rates(scenario: Scenario, n: int, *, replicates: int = 5 * REPLICATES,
                  seed: int = 0) -> Rates:
    """A mean scenario read by scipy's plain paired t test alone: what the mean's verdicts
    would be without the empirical likelihood's check."""
    return reference_rates(scenario, n, lambda d, mu: stats.ttest_1samp(d, mu, axis=1).pvalue,
                           replicates=replicates, seed=seed)


def likelihood_rates(scenario: Scenario, n: int, *, replicates: int = 5 * REPLICATES,
                     seed: int = 0) -> Rates:
    """A mean scenario read by Owen's empirical likelihood alone (chi-square calibrated),
    without the t test's check on it."""
    def p_values(d: np.ndarray, mu: float) -> np.ndarray:
        return stats.chi2.sf(statistics_at_zero(d - mu), 1)
    return reference_rates(scenario, n, p_values, replicates=replicates, seed=seed)


@dataclass(frozen=True)
class Alone:
    """How often each of the two tests the mean's verdict needs calls noise significant on
    its own (the checked test's rate is `run`'s)."""

    scenario: str
    n: int
    plain_t: float
    likelihood: float


def alone(scenario: Scenario, n: int) -> Alone:
    """A no-difference mean scenario read by the plain t test alone and by the likelihood
    alone: the false alarms the README quotes for each."""
    assert scenario.true_delta == 0
    return Alone(scenario.name, n, plain_t_rates(scenario, n).significant,
                 likelihood_rates(scenario, n).significant)


def false_alarms(scenario: Scenario, n: int, *, replicates: int, seed: int = 1) -> float:
    """How often the mean's test calls a continuous scenario's noise significant, over more
    seeded runs than `run` makes: its p-value only (the verdict follows it exactly, as
    `run` checks), so a rate near the band's edge is known to a tenth of a point."""
    assert scenario.true_delta == 0 and scenario.support is None
    rng = np.random.default_rng([seed, n, zlib.crc32(scenario.name.encode())])
    hits = 0
    for _ in range(replicates):
        a, b = scenario.draw(rng, n)
        hits += Differences.of(b - a, 10.0).test().p_value < ALPHA
    return hits / replicates


def reference_rates(scenario: Scenario, n: int,
                    p_values: Callable[[np.ndarray, float], np.ndarray], *,
                    replicates: int = 5 * REPLICATES, seed: int = 0) -> Rates:
    """A mean scenario read by another test, given as the p-values it gives each row of
    differences at a tested mean. Summed exactly over every sample where the scenario has a
    `support`, else over simulated runs, five times as many as `run`'s (Monte Carlo SD of a
    rate near 6%: 0.17pp). A sample whose cases all moved alike has no t: not counted."""
    if scenario.support is not None:
        samples, chances = zip(*value_counts(n, scenario))
        differences, weights = np.array(samples), np.array(chances)
    else:
        rng = np.random.default_rng([seed, n, zlib.crc32(scenario.name.encode())])
        differences = np.array([np.subtract(*scenario.draw(rng, n)[::-1])
                                for _ in range(replicates)])
        weights = np.full(replicates, 1 / replicates)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        at_zero = p_values(differences, 0.0)
        at_truth = p_values(differences, scenario.true_delta)
    return Rates(scenario.name, n, float(np.dot(weights, at_zero < ALPHA)),
                 float(np.dot(weights, at_truth >= ALPHA)), 0)


def _exact_pass_rates(scenario: Scenario, n: int, rng: np.random.Generator,
                      lines: int) -> Rates:
    """Sum over every (B-only, A-only) table of n cases, each weighted by its chance."""
    assert scenario.cells is not None
    effects = ((_effect(n, b_only, a_only), chance)
               for (b_only, a_only), chance in discordant_tables(n, scenario.cells))
    return _summed(scenario, n, effects, (pass_rate_comparison(*scenario.draw(rng, n))
                                          for _ in range(lines)))


def _exact_mean_rates(scenario: Scenario, n: int, rng: np.random.Generator,
                      lines: int) -> Rates:
    """Sum over every count of each difference value in n cases, each weighted by its chance."""
    effects = ((mean_effect_of(differences), chance)
               for differences, chance in value_counts(n, scenario))
    return _summed(scenario, n, effects, (mean_comparison(*scenario.draw(rng, n))
                                          for _ in range(lines)))


def _summed(scenario: Scenario, n: int, effects: Iterable[tuple[Effect, float]],
            comparisons: Iterable[PairedComparison]) -> Rates:
    """The rates over every possible sample's effect, weighted by its chance; every effect
    and every simulated comparison's printed line checked for disagreement."""
    significant = covered = 0.0
    disagreements = 0
    for effect, chance in effects:
        significant += chance * effect.significant
        covered += chance * effect.interval.contains(scenario.true_delta)
        disagreements += disagrees(effect)
    for comparison in comparisons:
        disagreements += disagrees(comparison.headline, comparison.verdict)
    return Rates(scenario.name, n, significant, covered, disagreements)


def value_counts(n: int, scenario: Scenario) -> list[tuple[np.ndarray, float]]:
    """Every sample of n differences up to order (as counts of each value), with its
    multinomial chance, bar the negligible ones."""
    assert scenario.support is not None
    values, weights = scenario.support
    counts = np.array([c for c in _compositions(n, len(values))])
    chances = stats.multinomial.pmf(counts, n, weights)
    return [(np.repeat(np.array(values, dtype=float), row), float(p))
            for row, p in zip(counts, chances) if p > NEGLIGIBLE]


def _compositions(n: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write n as `parts` counts of 0 or more, in order."""
    if parts == 1:
        return [(n,)]
    return [(first, *rest) for first in range(n + 1) for rest in _compositions(n - first,
                                                                                parts - 1)]


def discordant_tables(n: int, cells: tuple[float, float, float]
                      ) -> list[tuple[tuple[int, int], float]]:
    """Every (B-only, A-only) count pair of n cases with its multinomial chance, bar the
    negligible ones."""
    b_only, a_only = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    possible = b_only + a_only <= n
    counts = np.stack([b_only[possible], a_only[possible], n - b_only[possible]
                       - a_only[possible]], axis=1)
    chances = stats.multinomial.pmf(counts, n, cells)
    return [((int(b), int(a)), float(p)) for (b, a, _), p in zip(counts, chances)
            if p > NEGLIGIBLE]


def all_rates() -> list[Rates]:
    return [run(s, n) for s in PASS_SCENARIOS + MEAN_SCENARIOS for n in SIZES]


def main() -> None:
    print(f"{'scenario':50} {'n':>4} {'significant':>12} {'95% coverage':>13} {'disagree':>9}")
    for r in all_rates():
        print(f"{r.scenario:50} {r.n:>4} {r.significant:>12.2%} {r.coverage:>13.2%} "
              f"{r.disagreements:>9}")
    print("pass rates and integer means: exact sums over every sample; continuous means: "
          f"{REPLICATES:,} seeded runs each")
    print(f"continuous noise, false alarms over {REMEASURED:,} runs (other seeds):")
    for scenario in MEAN_SCENARIOS:
        if scenario.support is None and scenario.true_delta == 0:
            for n in SIZES:
                rate = false_alarms(scenario, n, replicates=REMEASURED)
                print(f"{scenario.name:50} {n:>4} {rate:>12.2%}")
    print("noise read by each test alone (the verdict needs both to reject):")
    for scenario in MEAN_SCENARIOS:
        if scenario.true_delta == 0:
            for n in SIZES:
                each = alone(scenario, n)
                print(f"{scenario.name:50} {n:>4}   plain t: {each.plain_t:.2%}   "
                      f"likelihood: {each.likelihood:.2%}")
    print("a limit no test of the mean reaches (the sample may hold none of the rare losses):")
    for n in SIZES:
        r, plain = run(RARE_LOSS, n), plain_t_rates(RARE_LOSS, n)
        print(f"{r.scenario:50} {r.n:>4} {r.significant:>12.2%} {r.coverage:>13.2%} "
              f"{r.disagreements:>9}   plain t: {plain.significant:.2%} significant, "
              f"{0.9 ** n:.1%} of samples without a loss")


if __name__ == "__main__":
    main()
