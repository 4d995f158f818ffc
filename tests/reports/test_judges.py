"""The judges' sections: what each figure is of, said beside it."""

from __future__ import annotations

import re

from assay.analysis.judge_consistency import JudgeConsistency
from assay.analysis.judgements import JudgeFindings, UnstableStats
from assay.analysis.krippendorff import Alpha
from assay.analysis.pairwise_verdicts import OrderedVerdicts, pairwise_result
from assay.analysis.variance_split import DeltaNoise, VarianceSplit
from assay.reports.judges import judges_markdown
from assay.review.judges import JudgeReview


def findings() -> JudgeFindings:
    splits = [("quality", VarianceSplit(c, 8, 2, 2, 2.0, 0.0)) for c in ("pack5", "pack1")]
    return JudgeFindings(variance=splits,
                         deltas=[("quality", DeltaNoise("pack5", "pack1", 8, 2.4, 0.72, 3))])


def test_regression_a_rejudge_says_whose_asks_its_share_of_a_delta_is_at() -> None:
    """A rejudge with 2 asks printed 'asks 2' per condition and, below it, the judge's share
    of the delta 'with 3 asks per answer', without saying the 3 are the judged run's."""
    text = judges_markdown(JudgeReview(findings=findings(), rejudge_of="run-1"))
    assert "| quality | pack5 | 2 | 2 |" in text
    assert "the judge gives 30% of the delta's uncertainty (its variance over 8 cases) " \
           "with 3 asks per answer, as run run-1 asked" in text


def test_a_run_s_own_share_names_no_other_run() -> None:
    text = judges_markdown(JudgeReview(findings=findings()))
    assert "with 3 asks per answer" in text and "as run" not in text


def test_pairs_that_all_errored_give_no_verdict_rather_than_within_noise() -> None:
    """Ten pairs the judge's replies could not be read for read 'sign test p=1, verdict
    within noise', as if ten pairs had been compared and found even; and their win rate,
    with no interval, read 'win rate [CI] - , sign test'."""
    result = pairwise_result([OrderedVerdicts(f"c{i}", None, None) for i in range(10)],
                             label_a="training", label_b="pack", scorer="pairwise")
    text = judges_markdown(JudgeReview(findings=JudgeFindings(pairwise=[result])))
    row = next(line for line in text.splitlines() if line.startswith("| pairwise |"))
    assert "within noise" not in row and "p=1" not in row
    assert "| 0 | 0/0/0 | - | - |" in row and "no verdict: no pair was judged" in row
    assert "pairwise pack vs training: 10 pairs without a verdict (a judge error)" in text


def test_an_alpha_without_an_interval_is_shown_alone_with_no_dangling_space() -> None:
    """Regression: a judge whose asks all agreed printed 'alpha (scores) 1.00 , alpha
    (verdicts) 1.00 ' (its interval, undefined, left a space behind)."""
    agreed = Alpha(value=1.0, interval=None, level="nominal", items=20, values=60, raters=3)
    consistency = JudgeConsistency("judge_score", 20, 3, 0, 0.0, None, 0.0, 0.0, agreed,
                                   agreed, ())
    text = judges_markdown(JudgeReview(findings=JudgeFindings(consistency=[consistency])))
    row = next(line for line in text.splitlines() if line.startswith("| judge_score |"))
    assert row.endswith("| 0.0% | 0.0% | 0.00 | 1.00 | 1.00 |"), row


def test_case_ids_and_names_in_the_judges_tables_are_text_on_one_line() -> None:
    """Regression: the unstable verdicts' case ids were listed as written, so an id holding
    a line break and `## ...` began a section of report.md, and `<img onerror>` in an id or
    a condition's name was raw HTML there."""
    unstable = UnstableStats("judge", "<img src=x onerror=y>", 4, 2,
                             ("q1\n## injected", "<b>q2</b>"))
    text = judges_markdown(JudgeReview(findings=JudgeFindings(unstable=[unstable])))
    assert "| judge | \\<img src=x onerror=y\\> | 2 | 4 |" in text
    assert "- judge · \\<img src=x onerror=y\\>: q1 ## injected, \\<b\\>q2\\</b\\>" in text
    assert not any(line.startswith("## injected") for line in text.splitlines())


def test_a_rates_interval_in_the_pairwise_table_has_the_rates_decimal() -> None:
    """Regression: the pairwise table read `first-position rate 70.8% [61%–81%]`, bounds
    in whole percents beside a rate at one decimal, where the score tables give a rate's
    interval the rate's decimal."""
    verdicts = [OrderedVerdicts(f"c{i}", "b", "b" if i % 3 else "a") for i in range(24)]
    result = pairwise_result(verdicts, label_a="training", label_b="pack", scorer="pairwise")
    text = judges_markdown(JudgeReview(findings=JudgeFindings(pairwise=[result])))
    row = next(line for line in text.splitlines() if line.startswith("| pairwise |"))
    bounds = re.findall(r"\[([\d.]+)%–([\d.]+)%\\?\]", row)  # `\]`: escaped in Markdown
    assert bounds and all("." in low and "." in high for low, high in bounds), row
