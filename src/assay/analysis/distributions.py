"""The few distributions assay's tests and intervals use, computed directly.

The normal (and the chi-square with one degree of freedom, its square), Student's t and
the binomial come from the regularized
incomplete beta function (a continued fraction, Lentz's method) and the
error function, to about 1e-12 relative; the tests check them against
scipy over a grid. Computing them here keeps `scipy.stats` (over a second
of imports) out of every run: a comparison of two conditions needs a
handful of values, not the library.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

_SQRT2 = math.sqrt(2.0)
_TINY = 1e-300
_EPS = 1e-15


# -- normal -----------------------------------------------------------------------------------

def normal_cdf(x: float) -> float:
    """P(Z <= x), accurate in the far tails too (erfc, never 1 - erf)."""
    return 0.5 * math.erfc(-x / _SQRT2)


def normal_sf(x: float) -> float:
    """P(Z > x)."""
    return 0.5 * math.erfc(x / _SQRT2)


def normal_pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def normal_ppf(p: float) -> float:
    """The p quantile of the standard normal: a rational start, then Halley steps to full precision."""
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        raise ValueError(f"a probability must be in [0, 1], got {p}")
    if p == 0.5:
        return 0.0
    return _upper_ppf(1.0 - p) if p > 0.5 else -_upper_ppf(p)


def _upper_ppf(q: float) -> float:
    """The x > 0 with P(Z > x) = q, for 0 < q <= 1/2 (Abramowitz & Stegun 26.2.23, refined)."""
    t = math.sqrt(-2.0 * math.log(q))
    x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (
        1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3)
    for _ in range(4):
        density = normal_pdf(x)
        if density == 0.0:
            break
        error = (normal_sf(x) - q) / density  # -f/f' of f(x) = sf(x) - q
        x += error / (1.0 + x * error / 2.0)  # Halley
    return x


# -- incomplete beta ----------------------------------------------------------------------------

def log_beta(a: float, b: float) -> float:
    """log B(a, b); for large arguments by Stirling's series, where lgamma(a) - lgamma(a + b)
    would cancel away the digits of a tail probability."""
    small, big = min(a, b), max(a, b)
    if big < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # (big - 1/2) log(big) - (big + small - 1/2) log(big + small), without the cancellation
    shared = -(big - 0.5) * math.log1p(small / big) - small * math.log(big + small)
    if small < 10.0:
        return (math.lgamma(small) + shared + small
                + _stirling_tail(big) - _stirling_tail(big + small))
    return (0.5 * math.log(2 * math.pi) + (small - 0.5) * math.log(small) + shared
            + _stirling_tail(small) + _stirling_tail(big) - _stirling_tail(big + small))


def _stirling_tail(x: float) -> float:
    """lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2), for x >= 10."""
    inverse = 1.0 / x
    square = inverse * inverse
    return inverse * (1 / 12 - square * (1 / 360 - square * (1 / 1260 - square * (
        1 / 1680 - square / 1188))))


def beta_inc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                          -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = d * c
            h *= step
        if abs(step - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


# -- Student's t ----------------------------------------------------------------------------------

def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with `df` degrees of freedom."""
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    tail = 0.5 * beta_inc(df / 2.0, 0.5, df / (df + x * x))  # P(T > |x|)
    return tail if x < 0 else 1.0 - tail


def t_sf(x: float, df: float) -> float:
    return t_cdf(-x, df)


def t_pdf(x: float, df: float) -> float:
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
                    - 0.5 * math.log(df * math.pi) - (df + 1) / 2 * math.log1p(x * x / df))


def t_ppf(p: float, df: float) -> float:
    """The p quantile of Student's t: Newton's method on the cdf, kept inside a shrinking bracket."""
    if not 0.0 < p < 1.0:
        if p in (0.0, 1.0):
            return math.inf if p else -math.inf
        raise ValueError(f"a probability must be in [0, 1], got {p}")
    if p > 0.5:
        return -t_ppf(1.0 - p, df)
    if p == 0.5:
        return 0.0
    low, high = -1.0, 0.0
    while t_cdf(low, df) > p:
        low *= 2.0
    x = max(low, min(high, normal_ppf(p)))
    for _ in range(200):
        error = t_cdf(x, df) - p
        if error > 0:
            high = x
        else:
            low = x
        step = error / t_pdf(x, df)
        candidate = x - step
        if not low < candidate < high:
            candidate = (low + high) / 2
        if abs(candidate - x) <= 1e-15 * max(1.0, abs(x)):
            return candidate
        x = candidate
    return x


# -- binomial ----------------------------------------------------------------------------------

def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return beta_inc(n - k, k + 1, 1.0 - p)


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X > k)."""
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    return beta_inc(k + 1, n - k, p)


def binom_logpmf(k: int, n: int, p: float) -> float:
    """log P(X = k); -inf where it is 0."""
    if not 0 <= k <= n:
        return -math.inf
    if p <= 0.0 or p >= 1.0:
        return 0.0 if k == (0 if p <= 0.0 else n) else -math.inf
    return (log_factorial(n) - log_factorial(k) - log_factorial(n - k)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_pmf(k: int, n: int, p: float) -> float:
    return math.exp(binom_logpmf(k, n, p))


@lru_cache(maxsize=65_536)
def log_factorial(n: int) -> float:
    return math.lgamma(n + 1.0)


def binom_two_sided_half(k: int, n: int) -> float:
    """The two-sided p-value of k successes in n fair-coin trials: 2 P(X <= min(k, n - k)), at most 1."""
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * binom_cdf(min(k, n - k), n, 0.5))


# -- Wilcoxon signed-rank ------------------------------------------------------------------------

@lru_cache(maxsize=64)
def signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign patterns of ranks 1..n give each sum of positive ranks (exact)."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    top = 0
    for rank in range(1, n + 1):
        top += rank
        for total in range(top, rank - 1, -1):
            counts[total] += counts[total - rank]
    return tuple(counts)


def signed_rank_exact_p(r_plus: float, n: int) -> float:
    """Two-sided exact p-value of the signed-rank sum `r_plus` over n untied, non-zero differences."""
    counts = signed_rank_counts(n)
    whole = 1 << n
    at_most = sum(counts[: math.ceil(r_plus) + 1])
    at_least = sum(counts[math.floor(r_plus):])
    return min(1.0, 2 * min(at_most, at_least) / whole)


def average_ranks(values: list[float]) -> tuple[list[float], list[int]]:
    """Ranks from 1 with ties given their average rank, and the size of each tie group."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    groups: list[int] = []
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        groups.append(end - start + 1)
        start = end + 1
    return ranks, groups


# -- chi-square with one degree of freedom ------------------------------------------------

def chi2_1_sf(statistic: float) -> float:
    """P(X > statistic) for X chi-square with one degree of freedom: P(|Z| > sqrt(s))."""
    return math.erfc(math.sqrt(statistic / 2)) if statistic > 0 else 1.0


def chi2_1_ppf(level: float) -> float:
    """The statistic whose upper tail is `level`: the two-sided normal critical value squared."""
    return normal_ppf(1 - level / 2) ** 2


# -- noncentral t ------------------------------------------------------------------------------

def t_test_power(critical: float, df: float, shift: float) -> float:
    """P(T > critical) + P(T < -critical) for T noncentral t with `df` and noncentrality `shift`."""
    return t_outside(-critical, critical, df, shift)


def t_outside(lower: float, upper: float, df: float, shift: float) -> float:
    """P(T < lower) + P(T > upper) for T noncentral t with `df` and noncentrality `shift`:
    the power of a test that rejects outside [lower, upper] (lower <= 0 <= upper).

    T = (Z + shift) / S with S = sqrt(V / df), V chi-square with `df`, so the power is the
    mean over S of Phi(shift - upper S) + Phi(lower S - shift): one smooth integral,
    taken by Gauss-Legendre over the range where S has mass and divided by the integral of
    S's density on the same nodes (which cancels the error of its normalising constant).
    """
    spread = 1.0 / math.sqrt(2.0 * df)
    low, high = max(0.0, 1.0 - 16.0 * spread), 1.0 + 16.0 * spread + 12.0 / df
    # panels: even over S's range, and fine where each Phi turns over (S = shift / bound)
    edges = {low + (high - low) * i / 24 for i in range(25)}
    for bound in (upper, lower):
        if bound != 0:
            edges.update(shift / bound + j / (2 * abs(bound)) for j in range(-24, 25))
    points = sorted(e for e in edges if low <= e <= high)
    nodes, weights = _gauss_legendre(20)
    log_norm = (math.log(2.0) + df / 2 * math.log(df / 2) - math.lgamma(df / 2))
    mass = total = 0.0
    for start, end in itertools.pairwise(points):
        centre, half = (start + end) / 2, (end - start) / 2
        for node, weight in zip(nodes, weights):
            s = centre + node * half
            if s <= 0.0:
                continue
            density = math.exp(log_norm + (df - 1) * math.log(s) - df * s * s / 2) * weight * half
            mass += density
            total += density * (normal_cdf(shift - upper * s) + normal_cdf(lower * s - shift))
    return min(1.0, total / mass)


@lru_cache(maxsize=4)
def _gauss_legendre(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Nodes and weights of n-point Gauss-Legendre on [-1, 1] (Newton on P_n)."""
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            derivative = n * (x * p1 - p0) / (x * x - 1)
            step = p1 / derivative
            x -= step
            if abs(step) < 1e-16:
                break
        nodes.append(x)
        weights.append(2 / ((1 - x * x) * derivative * derivative))
    return tuple(nodes), tuple(weights)
