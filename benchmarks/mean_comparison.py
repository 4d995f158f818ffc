"""How long one mean comparison takes: the checked t test, its interval and a Holm step.

A score comparison runs the paired t test and Owen's empirical likelihood
on the per-case differences, finds the interval (the union of the two
tests' intervals), and sets it again at a stricter Holm step. The
likelihood reads every distinct difference, so its cost grows with the
cases for continuous scores (token_f1, similarity) and stays small for a
judge's integer scores. Each size is timed `--repeat` times after one
warm-up; the median is reported.

    uv run python benchmarks/mean_comparison.py [--sizes 30,1000,10000,60000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from assay.analysis.effect import measure
from assay.analysis.mean_delta import Differences


def timed(differences: np.ndarray, repeat: int) -> float:
    """Median seconds to test, bound and re-level one comparison of these differences."""
    def once() -> float:
        start = time.perf_counter()
        effect = measure("mean", Differences.of(differences, 10.0), 0.05)
        effect.at(0.025)
        return time.perf_counter() - start

    once()
    return statistics.median(once() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,1000,10000,60000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'cases':>7}  {'continuous (gamma)':>18}  {'integers -10..10':>16}")
    for n in (int(size) for size in args.sizes.split(",")):
        continuous = rng.gamma(2.0, 1.0, n) - 2.0
        integers = rng.integers(-10, 11, n).astype(float)
        print(f"{n:>7,}  {timed(continuous, args.repeat) * 1e3:>15.1f} ms  "
              f"{timed(integers, args.repeat) * 1e3:>13.1f} ms")


if __name__ == "__main__":
    main()
