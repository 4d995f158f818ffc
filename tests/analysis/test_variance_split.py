"""Agent and judge variance recovered from planted noise, and the judge's share of a delta."""

from __future__ import annotations

import numpy as np
import pytest

from assay.analysis.variance_split import delta_noise, split_variance


def planted(cases: int, epochs: int, repeats: int, agent_sd: float, judge_sd: float,
            shift: float, seed: int) -> dict[str, dict[int, list[float]]]:
    rng = np.random.default_rng(seed)
    base = rng.normal(5, 2, cases)
    out: dict[str, dict[int, list[float]]] = {}
    for c in range(cases):
        out[f"c{c}"] = {e: list(base[c] + shift + rng.normal(0, agent_sd)
                                + rng.normal(0, judge_sd, repeats))
                        for e in range(epochs)}
    return out


def test_the_planted_agent_and_judge_variances_are_recovered() -> None:
    scores = planted(400, 3, 4, agent_sd=1.0, judge_sd=0.5, shift=0, seed=1)
    split = split_variance("new", scores)
    assert (split.cases, split.epochs, split.repeats) == (400, 3, 4)
    assert split.judge_variance == pytest.approx(0.25, rel=0.1)
    assert split.agent_variance == pytest.approx(1.0, rel=0.15)
    assert split.judge_share == pytest.approx(0.2, abs=0.05)


def test_with_one_epoch_the_agent_part_is_not_claimed() -> None:
    split = split_variance("x", planted(50, 1, 3, 1.0, 0.5, 0, seed=2))
    assert split.agent_variance is None and split.judge_share is None
    assert split.judge_variance is not None


def test_the_judge_share_of_a_delta_shrinks_with_more_asks_per_answer() -> None:
    a = planted(300, 2, 3, agent_sd=0.5, judge_sd=1.0, shift=0, seed=3)
    b = planted(300, 2, 3, agent_sd=0.5, judge_sd=1.0, shift=1, seed=4)
    split_a, split_b = split_variance("a", a), split_variance("b", b)
    once = delta_noise(split_a, split_b, a, b, asks=1)
    thrice = delta_noise(split_a, split_b, a, b, asks=3)
    assert once is not None and thrice is not None
    assert once.judge_share is not None and thrice.judge_share is not None
    # judge part per condition 1/2 at one ask; the rest is case spread (2*4) and agent (2*0.25/2)
    assert once.judge_share == pytest.approx(1.0 / (8 + 0.25 + 1.0), abs=0.04)
    assert thrice.judge_share < once.judge_share


def test_the_split_is_the_nested_analysis_of_variance_statsmodels_computes() -> None:
    """Balanced design: the judge variance is the residual mean square of score ~ case /
    epoch, and the agent variance (epoch-within-case mean square - residual) / asks."""
    import pandas as pd
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    scores = planted(30, 3, 4, agent_sd=1.0, judge_sd=0.5, shift=0, seed=5)
    rows = [{"case": case, "epoch": epoch, "score": value}
            for case, by_epoch in scores.items() for epoch, values in by_epoch.items()
            for value in values]
    table = anova_lm(ols("score ~ C(case) + C(case):C(epoch)", data=pd.DataFrame(rows)).fit())
    mean_square = table["sum_sq"] / table["df"]
    split = split_variance("new", scores)
    assert split.judge_variance == pytest.approx(mean_square["Residual"], rel=1e-9)
    assert split.agent_variance == pytest.approx(
        (mean_square["C(case):C(epoch)"] - mean_square["Residual"]) / 4, rel=1e-9)
