"""Metrics without a model: wiki hits, wasted reads, most-read files."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay.traces.exchanges import Exchange
from assay.traces.metrics import compute_metrics, is_wiki


@pytest.mark.parametrize(("path", "patterns", "expected"), [
    ("/kb/.llm-kb/wiki/wiki.md", ("index.md", "wiki.md"), True),
    ("sources/index.md", ("index.md", "wiki.md"), True),
    ("sources/reindex.md", ("index.md", "wiki.md"), False),
    ("kb/wiki/topics/leases.md", ("wiki/*",), True),
    ("kb/sources/leases.md", ("wiki/*",), False),
])
def test_wiki_paths_are_configurable(path: str, patterns: tuple[str, ...], expected: bool) -> None:
    assert is_wiki(path, patterns) is expected


def test_hit_rate_counts_answers_that_read_only_the_wiki(make_exchange: Callable[..., Exchange]) -> None:
    exchanges = [
        make_exchange(answer="from the wiki", reads=("wiki.md",)),
        make_exchange(answer="no reads at all"),
        make_exchange(answer="see leases.md", reads=("src/leases.md", "src/fuel.md")),
        make_exchange(answer="", reads=("src/fuel.md",)),  # unanswered: not in the rate
    ]
    metrics = compute_metrics(exchanges, sessions=1)
    assert metrics.answered == 3
    assert metrics.wiki_hits == 2
    assert metrics.wiki_hit_rate == pytest.approx(2 / 3)
    # fuel.md is read twice and never named (once for no answer); leases.md is cited by name.
    assert metrics.wasted_reads == 1
    assert metrics.most_read[0] == ("src/fuel.md", 2)


def test_citing_the_stem_is_a_citation(make_exchange: Callable[..., Exchange]) -> None:
    metrics = compute_metrics([make_exchange(answer="Per the leases file", reads=("leases.md",))],
                              sessions=1)
    assert metrics.wasted_reads == 0


def test_repeated_reads_in_one_exchange_count_once(make_exchange: Callable[..., Exchange]) -> None:
    exchange = make_exchange(answer="x", reads=("a.md", "a.md"))
    metrics = compute_metrics([exchange], sessions=1)
    assert metrics.source_reads == 1 and metrics.most_read == [("a.md", 1)]


def test_no_answers_means_no_rate_not_zero(make_exchange: Callable[..., Exchange]) -> None:
    metrics = compute_metrics([make_exchange(answer="")], sessions=1)
    assert metrics.wiki_hit_rate is None
    assert metrics.to_dict()["wiki_hit_rate"] is None


def test_reads_of_a_question_left_unanswered_are_not_wasted_reads(
        make_exchange: Callable[..., Exchange]) -> None:
    """Regression: a question interrupted before any answer counted every file it read as a
    wasted read ("read, never cited in the answer"), though there was no answer to cite it
    in: 10 of the 22 wasted reads of the real fixture sessions, which also fed the
    guidelines' "open fewer files"."""
    exchanges = [make_exchange(answer="", reads=("src/a.md", "src/b.md")),
                 make_exchange(answer="see a.md", reads=("src/a.md", "src/c.md"))]
    metrics = compute_metrics(exchanges, sessions=1)
    assert metrics.wasted_reads == 1  # c.md, read for an answer that never names it
    assert metrics.source_reads == 4 and metrics.most_read[0] == ("src/a.md", 2)


def test_the_stored_token_counts_add_up_to_the_tokens_per_question(
        make_exchange: Callable[..., Exchange]) -> None:
    """Stored were the uncached input and the output alone (1,134 and 83,203 beside 529,001
    tokens per question over 90 questions, in `assay history`): the prompt cache's reads and
    writes, most of a coding agent's tokens, are stored beside them."""
    exchanges = [make_exchange(answer="a"), make_exchange(answer="b")]
    for exchange, (fresh, out, read, written) in zip(exchanges, [(3, 10, 900, 50),
                                                                 (5, 20, 1200, 0)]):
        exchange.input_tokens, exchange.output_tokens = fresh, out
        exchange.cache_read_tokens, exchange.cache_write_tokens = read, written
    stored = compute_metrics(exchanges, sessions=1).to_dict()
    parts = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    assert [stored[name] for name in parts] == [8, 30, 2100, 50]
    assert sum(stored[name] for name in parts) == stored["tokens_per_exchange"] * 2


def test_regression_logs_without_token_usage_store_no_token_counts_rather_than_0(
        make_exchange: Callable[..., Exchange]) -> None:
    """Sessions whose model responses logged no usage were stored as 0 tokens per question
    (and 0 input, output and cache tokens in `assay history`): spending nothing, when the
    logs only did not say."""
    stored = compute_metrics([make_exchange(answer="a"), make_exchange(answer="b")],
                             sessions=1).to_dict()
    assert stored["tokens_per_exchange"] is None
    assert [stored[name] for name in ("input_tokens", "output_tokens", "cache_read_tokens",
                                      "cache_write_tokens")] == [None] * 4


def test_wasted_reads_are_out_of_the_reads_of_answered_questions(
        make_exchange: Callable[..., Exchange]) -> None:
    exchanges = [make_exchange(answer="", reads=("src/a.md", "src/b.md")),
                 make_exchange(answer="see a.md", reads=("src/a.md", "src/c.md"))]
    metrics = compute_metrics(exchanges, sessions=1)
    assert (metrics.wasted_reads, metrics.answered_source_reads, metrics.source_reads) == (1, 2, 4)
    assert metrics.to_dict()["answered_source_reads"] == 2
