"""Comparison lines and tables: the test's verdict and the pack reading can never be confused.

Regression: a line read "no significant difference · significant regression";
the second phrase is the Knowledge Packs size band, not a second test.
"""

from __future__ import annotations

from assay.analysis.conditions import finish_family
from assay.analysis.paired import compare_paired
from assay.reports.comparisons import comparison_lines, headline, markdown_table


def all_flipped(n: int = 4):
    a = {f"q{i}": True for i in range(n)}
    b = {f"q{i}": False for i in range(n)}
    [entry] = finish_family([compare_paired(a, b, kind="pass_fail", label_a="base",
                                            label_b="pack", scorer="exact")])
    return entry


def test_the_terminal_line_labels_the_pack_reading_apart_from_the_test():
    entry = all_flipped()
    [line] = comparison_lines([entry], lambda e: "exact · pack")
    assert "no significant difference · pack reading: significant regression" in line
    assert "difference · significant regression" not in line


def test_a_computed_small_sample_interval_is_shown_with_its_method_never_as_a_point():
    entry = all_flipped()
    _, _, delta, ci = headline(entry.comparison)
    assert delta == "-100.0pp"
    assert ci == "-100.0..-30.7pp (Newcombe)"
    [line] = comparison_lines([entry], lambda e: "exact · pack")
    assert "95% CI -100.0..-30.7pp (Newcombe)" in line


def test_the_markdown_table_heads_the_two_columns_as_test_verdict_and_size_band():
    header, _, row = markdown_table([all_flipped()], "scorer", "condition",
                                    lambda e: ("exact", "pack"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert columns[-2:] == ["test verdict", "pack reading (size band)"]
    assert cells[-2:] == ["no significant difference", "significant regression"]


def test_the_verdict_sentence_puts_the_test_first_and_the_labelled_reading_last():
    verdict = all_flipped().comparison.verdict
    assert verdict.startswith("-100.0pp: no significant difference (exact McNemar")
    assert verdict.endswith("; pack reading: significant regression")
    assert "significant regression by" not in verdict
