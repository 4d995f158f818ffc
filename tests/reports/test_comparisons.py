"""Comparison lines and tables: one quantity per line, and no word "significant" twice.

Regression: a line read "no significant difference · pack reading: significant
regression"; the band's name is a size, and now reads as one ("large drop").
"""

from __future__ import annotations

import re
from decimal import Decimal

from assay.analysis.conditions import ConditionComparisons, finish_family
from assay.analysis.paired import compare_paired
from assay.analysis.pass_rate_delta import tango_interval
from assay.analysis.verdict import shown_effect
from assay.reports.comparisons import (
    comparison_lines,
    condition_comparisons_markdown,
    detail_lines,
    exclusions,
    markdown_table,
    print_condition_comparisons,
    shown_advice,
)


def all_flipped(n: int = 3):
    a = {f"q{i}": True for i in range(n)}
    b = {f"q{i}": False for i in range(n)}
    [entry] = finish_family([compare_paired(a, b, kind="pass_fail", label_a="base",
                                            label_b="pack", scorer="exact")])
    return entry


def test_a_large_drop_within_noise_reads_as_a_size_and_says_within_noise():
    entry = all_flipped()
    [line] = comparison_lines([entry], lambda e: "exact · pack")
    assert "-100.0pp[/red] (large drop)" in line
    assert line.count("significant") == 0 and "within noise" in line


def test_lines_stay_aligned_after_names_with_wide_characters_emoji_or_accents():
    """Regression: names were padded by their count of characters, so the figures after
    `漢字` or `🎉` (two columns each) sat further right than after `é́` (one column, two
    characters)."""
    from rich.cells import cell_len

    entry = all_flipped()
    names = ["exact · 漢字漢字", "exact · 🎉🎉", "exact · e\u0301\u0301x", "exact · plain"]
    lines = comparison_lines([entry] * len(names), lambda e: names.pop(0))
    assert len({cell_len(line.split(" → ")[0]) for line in lines}) == 1, lines


def test_three_flipped_cases_get_an_interval_that_holds_zero_never_a_point():
    entry = all_flipped()
    _, _, delta, ci = shown_effect(entry.comparison)[:4]
    low, high = tango_interval(3, 0, 3, 0.95)
    assert delta == "-100.0pp" and low == -1.0 and high > 0
    assert ci == f"-100.0..{high * 100:+.1f}pp"
    [line] = comparison_lines([entry], lambda e: "exact · pack")
    assert f"95% CI {ci}  p=0.083  within noise" in line


def test_the_markdown_table_has_a_size_column_and_one_verdict_column():
    header, _, row = markdown_table([all_flipped()], "scorer", "condition",
                                    lambda e: ("exact", "pack"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert columns[-4:] == ["size", "CI", "p", "verdict"]
    assert cells[-4] == "large drop" and cells[-1] == "within noise"
    assert "significant" not in row


def test_the_verdict_sentence_is_about_one_quantity_and_its_size():
    entry = all_flipped()
    ci = shown_effect(entry.comparison).interval
    assert entry.comparison.verdict == (f"pass rate -100.0pp, 95% CI {ci}, within noise "
                                        "(asymptotic McNemar p=0.083); size: large drop")


def test_a_significant_line_names_its_correction_and_its_level():
    def pair(b_only: int):
        a = {f"q{i}": i < 20 for i in range(60)}
        b = {f"q{i}": i < 20 + b_only for i in range(60)}
        return compare_paired(a, b, kind="pass_fail", scorer="s", label_b=f"c{b_only}")

    entries = finish_family([pair(15), pair(1), pair(2)])
    strong = entries[0].comparison
    assert strong.significant
    assert "98.3% CI" in strong.verdict  # decided at Holm's first step: alpha / 3
    assert "(Holm, family of 3), significant" in strong.verdict
    lines = comparison_lines(entries, lambda e: e.comparison.label_b)
    assert "98.3% CI" in lines[0] and "97.5% CI" in lines[1] and "97.5% CI" in lines[2]


def test_cases_left_out_of_several_comparisons_for_one_reason_are_named_once() -> None:
    """Regression: a run over 3 of the 15 cases compared with one over all 15 listed the same
    12 cases under each of its six metrics."""
    from rich.console import Console

    from assay.reports.comparisons import print_exclusions

    a = {f"q{i}": True for i in range(6)}
    b = {f"q{i}": True for i in range(3)}
    named = [(f"{scorer}@docs", compare_paired(a, b, kind="pass_fail", scale=(0, 1),
                                               label_a="before", label_b="after",
                                               scorer=scorer))
             for scorer in ("contains", "token_f1")]
    console = Console(width=200, record=True, color_system=None)
    print_exclusions(console, named)
    assert console.export_text().splitlines() == [
        "  every comparison: left out, only in before (3): q3, q4, q5"]
    print_exclusions(console, named[:1])
    assert "contains@docs: left out, only in before (3)" in console.export_text()


def one_family(*pairs: tuple[int, int]):
    """Pass/fail comparisons over n cases, every case failing on A and the first `gains`
    passing on B, Holm-adjusted together."""
    comparisons = []
    for n, gains in pairs:
        a = {f"q{i}": False for i in range(n)}
        b = {f"q{i}": i < gains for i in range(n)}
        comparisons.append(compare_paired(a, b, kind="pass_fail", scorer="verdict",
                                          label_a="base", label_b=f"gains{gains}of{n}"))
    return ConditionComparisons(entries=finish_family(comparisons), skipped=[], alpha=0.05,
                                baseline="base")


def test_a_significant_pass_rate_gets_no_sample_size_advice_on_its_mean() -> None:
    """Regression: report.md and report.html said "significant" for +80.0pp and, two lines
    below, "about 11 cases would detect +0.80 with 100% power": the mean of the same 0/1
    verdicts, whose t test (not the verdict's) had not rejected."""
    from rich.console import Console

    comps = one_family((4, 4))  # 4 of 4 gained: McNemar p=0.046; the mean's bound p=0.125
    [entry] = comps.entries
    assert entry.comparison.significant and not entry.comparison.mean.significant
    assert shown_advice(entry) is None
    section = condition_comparisons_markdown(comps)
    console = Console(width=200, record=True, color_system=None)
    print_condition_comparisons(console, comps)
    for text in (section, console.export_text()):
        assert "significant" in text
        assert "sample size" not in text and "would detect" not in text


def test_a_comparison_within_noise_is_advised_on_the_quantity_its_verdict_is_about() -> None:
    from rich.console import Console

    comps = one_family((10, 2))
    [entry] = comps.entries
    assert not entry.comparison.significant
    advice = shown_advice(entry)
    assert advice is not None and advice.metric == "pass_rate" and advice.cases_needed
    assert advice.cases_needed > 10
    section = condition_comparisons_markdown(comps)
    console = Console(width=200, record=True, color_system=None)
    print_condition_comparisons(console, comps)
    assert f"- sample size (pass rate): {advice.summary()}" in section.splitlines()
    assert section.count("sample size") == 1
    assert advice.summary() in console.export_text().replace("\n", "")


def test_a_case_errored_on_both_sides_is_left_out_once_and_cases_are_named_in_order() -> None:
    """Regression: a case whose every epoch errored in both conditions was named under each
    ("errored in training (1): ge_010" and "errored in pack (2): ge_009, ge_010"), so the
    lists counted 3 cases left out where 2 were, and a case whose target failed came last
    ("ge_009, ge_010, ge_003")."""
    a = {"ge_002": True, "ge_009": False, "ge_010": None, "ge_011": False, "ge_003": None}
    b = {"ge_002": True, "ge_009": None, "ge_010": None, "ge_011": True, "ge_003": None}
    c = compare_paired(a, b, kind="pass_fail", label_a="training", label_b="pack",
                       scorer="verdict")
    parts = exclusions(c)
    assert parts == [("errored in pack", ("ge_009",)),
                     ("errored in both training and pack", ("ge_003", "ge_010"))]
    assert sum(len(ids) for _, ids in parts) == c.excluded.count == 5 - c.n
    assert c.excluded.errored_in_a == ("ge_003", "ge_010")


def test_errored_cases_are_said_to_have_errored_every_epoch_only_when_there_were_several(
        ) -> None:
    """A one-epoch run's comparison said 'errored in pack (every epoch)': it had no epochs
    to speak of."""
    one = compare_paired({"q1": True, "q2": True, "q3": False},
                         {"q1": True, "q2": None, "q3": True}, kind="pass_fail",
                         label_a="training", label_b="pack", scorer="verdict")
    assert exclusions(one) == [("errored in pack", ("q2",))]
    several = compare_paired({"q1": [True, False], "q2": [True, True], "q3": [False, False]},
                             {"q1": [True, True], "q2": [None, None], "q3": [True, False]},
                             kind="pass_fail",
                             label_a="training", label_b="pack", scorer="verdict")
    assert exclusions(several) == [("errored in pack (every epoch)", ("q2",))]


def test_the_html_report_and_the_viewer_write_a_comparison_with_the_same_words():
    """The report's delta rows and the viewer's comparison lines are one ComparisonText each
    (they were built by two copies of the same code)."""
    from dataclasses import fields

    from assay.reports.comparisons import ComparisonText
    from assay.reports.meters import delta_table
    from assay.view.review_parts import comparison_lines as viewer_lines

    entry = all_flipped(6)
    [row] = delta_table([entry], lambda e: "pack", {}).rows
    [line] = viewer_lines([entry], lambda e: "pack")
    text = ComparisonText.of(entry.comparison)
    for field in fields(ComparisonText):
        assert getattr(row, field.name) == getattr(line, field.name) == getattr(text, field.name)
    assert text.direction == "down" and text.interval.startswith("95% CI -100.0..")
    assert (line.losses, line.wins, line.significant) == (6, 0, entry.comparison.significant)


def test_the_rates_before_and_after_add_up_to_the_delta_printed_beside_them() -> None:
    """Regression: a comparison over epochs read '77.4% → 70.2%  -7.1pp'; at one decimal
    3/7 → 5/7 reads 42.9% → 71.4% beside +28.6pp. The sides get a digit more, whose
    difference (28.57) rounds to the delta; the delta and its interval keep one decimal, as
    spelling them out to match (+28.571pp) would give 7 cases digits they do not have."""
    a = {f"q{i}": [j < passes for j in range(3)] for i, passes in enumerate([1, 1, 2, 2, 2, 0, 1])}
    b = {f"q{i}": [j < passes for j in range(3)] for i, passes in enumerate([3, 1, 1, 2, 3, 2, 3])}
    c = compare_paired(a, b, kind="pass_fail", label_a="base", label_b="pack", scorer="judge")
    before, after, delta, ci = shown_effect(c)[:4]
    assert (before, after, delta) == ("42.86%", "71.43%", "+28.6pp")
    assert re.fullmatch(r"[-+]\d+\.\d\.\.[-+]\d+\.\dpp", ci)  # the delta's digits
    same = compare_paired({"q": True, "r": False}, {"q": True, "r": True}, kind="pass_fail")
    assert shown_effect(same)[:3] == ("50.0%", "100.0%", "+50.0pp")


def test_means_before_and_after_add_up_to_the_delta_printed_beside_them() -> None:
    c = compare_paired({"q1": 0.1234, "q2": 0.1234}, {"q1": 0.2236, "q2": 0.2236},
                       kind="score", scale=(0, 1))
    before, after, delta, _ = shown_effect(c)[:4]
    assert f"{Decimal(after) - Decimal(before):+.3f}" == delta
    assert (before, after, delta) == ("0.1234", "0.2236", "+0.100")


def test_rates_that_never_add_up_get_a_digit_more_than_their_delta() -> None:
    """Regression: thirds add up at no length, and 33.3% → 66.7% read beside +33.3pp, a
    slip of 0.1pp any reader sees (66.7 - 33.3 = 33.4); so did a mean's 0.633 → 0.617 beside
    -0.017. The sides get one digit more than the delta, which their difference rounds to."""
    a = {"q1": True, "q2": False, "q3": False}
    b = {"q1": True, "q2": True, "q3": False}
    assert shown_effect(compare_paired(a, b, kind="pass_fail"))[:3] == ("33.33%", "66.67%",
                                                                    "+33.3pp")
    means = compare_paired({"q1": 0.6, "q2": 0.7, "q3": 0.6}, {"q1": 0.55, "q2": 0.7, "q3": 0.6},
                           kind="score", scale=(0, 1))
    before, after, delta, _ = shown_effect(means)[:4]
    assert (before, after, delta) == ("0.6333", "0.6167", "-0.017")
    assert round(Decimal(after) - Decimal(before), 3) == Decimal(delta)


def test_the_other_metric_is_described_with_both_sides_and_a_delta_that_adds_up() -> None:
    """Regression: a pass-rate comparison's mean line read `mean: +0.00 (described only ...)`
    beside means of 0.735 and 0.738 in the score table: a difference rounded away."""
    a = {f"q{i}": 0.7345 if i % 2 else 0.7355 for i in range(20)}
    b = {f"q{i}": 0.7345 if i % 3 else 0.7455 for i in range(20)}
    c = compare_paired(a, b, kind="pass_fail", scale=(0, 1),
                       passed_a={k: True for k in a}, passed_b={k: True for k in b})
    line = next(line for line in detail_lines(c) if line.startswith("- mean: "))
    shown = shown_effect(c, "mean")
    assert line.startswith(f"- mean: {shown.before} → {shown.after}, {shown.delta} (described")
    assert Decimal(shown.after) - Decimal(shown.before) == Decimal(shown.delta) != 0


def test_a_delta_that_is_not_0_is_coloured_by_its_sign_as_its_text_reads() -> None:
    """Regression: one case of 2,000 scoring a billionth higher printed its non-zero delta
    (`+0.000000000001`) in the dim colour of no change, as anything within 1e-12 of 0 was."""
    from assay.reports.comparisons import ComparisonText

    a = {f"q{i}": 0.5 for i in range(2000)}
    b = {**a, "q0": 0.500000001}
    c = compare_paired(a, b, kind="score", scale=(0, 1))
    text = ComparisonText.of(c)
    assert c.headline.estimate > 0 and "0000" in text.delta and text.delta.startswith("+")
    assert text.direction == "up"
    assert ComparisonText.of(compare_paired(a, dict(a), kind="score", scale=(0, 1))
                             ).direction == "flat"


def test_a_comparison_that_could_not_run_is_one_line_of_text_in_report_md() -> None:
    """Regression: the reason quoted an exception and the conditions' names as written, so
    a line break in it began a section of report.md and `<img onerror>` was raw HTML."""
    comps = ConditionComparisons(entries=[], skipped=["exact: <img src=x> vs base: no\n## x"],
                                 alpha=0.05, baseline="base")
    text = condition_comparisons_markdown(comps)
    assert "- not compared: exact: \\<img src=x\\> vs base: no ## x" in text
