"""Metrics over exchanges that need no LLM: how the agent used its knowledge.

- wiki hit: an answered exchange that read no source file (only wiki/index
  files, or nothing), i.e. the agent answered from what it already had;
  the rate is over answered exchanges.
- wasted read: a distinct source file read in an answered exchange whose
  answer names neither its file name nor its stem. A question left without
  an answer (interrupted, aborted) has no answer to cite a file in: its
  reads are counted as reads, not as wasted ones.
- most-read files: in how many exchanges each source file was read.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from assay.traces.exchanges import Exchange

DEFAULT_WIKI_PATHS = ("index.md", "wiki.md")
HIT_RATE_TARGET = 0.8


PATH_CACHE = 65_536
"""Distinct paths whose name and wiki status are remembered: reads repeat the same
files, and parsing a path costs more than the rest of an exchange's metrics."""


def is_wiki(path: str, patterns: Sequence[str]) -> bool:
    """A pattern without `/` matches the file name; one with `/` matches the path's end."""
    return _is_wiki(path, tuple(patterns))


@lru_cache(maxsize=PATH_CACHE)
def _is_wiki(path: str, patterns: tuple[str, ...]) -> bool:
    posix = path.replace("\\", "/")
    name = _name_and_stem(path)[0]
    for pattern in patterns:
        if "/" in pattern:
            if fnmatch.fnmatchcase(posix, pattern) or fnmatch.fnmatchcase(posix, "*/" + pattern):
                return True
        elif fnmatch.fnmatchcase(name, pattern):
            return True
    return False


@lru_cache(maxsize=PATH_CACHE)
def _name_and_stem(path: str) -> tuple[str, str]:
    pure = PurePosixPath(path.replace("\\", "/"))
    return pure.name, pure.stem


def source_reads(exchange: Exchange, wiki_paths: Sequence[str]) -> list[str]:
    """The distinct non-wiki paths an exchange read, in first-read order."""
    patterns = tuple(wiki_paths)
    seen: dict[str, None] = {}
    for read in exchange.files_read:
        if not _is_wiki(read.path, patterns):
            seen.setdefault(read.path, None)
    return list(seen)


def is_cited(path: str, answer: str) -> bool:
    name, stem = _name_and_stem(path)
    return name in answer or (len(stem) > 2 and stem in answer)


TOKEN_COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
"""The parts of `TraceMetrics.tokens`, stored each on its own."""


@dataclass
class TraceMetrics:
    sessions: int = 0
    exchanges: int = 0
    answered: int = 0
    wiki_hits: int = 0
    source_reads: int = 0
    answered_source_reads: int = 0
    """Source-file reads of answered questions: what `wasted_reads` is out of (a question
    with no answer has none to cite a file in)."""
    wasted_reads: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    turns: int = 0
    tokens: int = 0
    """Every token of the model responses: the four counts below added up."""
    input_tokens: int = 0
    """Input tokens not read from or written to the prompt cache."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    """The cost of the model responses that logged one; None when none did."""
    unpriced_turns: int = 0
    """Model responses that logged no cost, so are not in `cost_usd`."""
    most_read: list[tuple[str, int]] = field(default_factory=list)

    @property
    def wiki_hit_rate(self) -> float | None:
        return self.wiki_hits / self.answered if self.answered else None

    @property
    def tool_error_rate(self) -> float | None:
        return self.tool_errors / self.tool_calls if self.tool_calls else None

    @property
    def turns_per_exchange(self) -> float | None:
        return self.turns / self.exchanges if self.exchanges else None

    @property
    def tokens_logged(self) -> bool:
        """Whether any model response logged its token usage: a call always reads some
        input, so no token at all means the logs did not say, not that nothing was spent."""
        return self.tokens > 0

    @property
    def tokens_per_exchange(self) -> float | None:
        return self.tokens / self.exchanges if self.exchanges and self.tokens_logged else None

    def to_dict(self) -> dict[str, Any]:
        """Flat numbers, ready to store as a run's metrics."""
        return {
            "sessions": self.sessions, "exchanges": self.exchanges, "answered": self.answered,
            "wiki_hits": self.wiki_hits, "wiki_hit_rate": self.wiki_hit_rate,
            "source_reads": self.source_reads,
            "answered_source_reads": self.answered_source_reads,
            "wasted_reads": self.wasted_reads,
            "tool_calls": self.tool_calls, "tool_errors": self.tool_errors,
            "tool_error_rate": self.tool_error_rate,
            "turns_per_exchange": self.turns_per_exchange,
            "tokens_per_exchange": self.tokens_per_exchange,
            **{name: getattr(self, name) if self.tokens_logged else None
               for name in TOKEN_COUNTS},
            "cost_usd": self.cost_usd, "unpriced_turns": self.unpriced_turns,
        }


class MetricsTally:
    """Metrics built one exchange at a time, so no exchange has to be kept.

    State is counters plus one count per distinct source file read (bounded
    by the knowledge folder, not by how many sessions are read).
    """

    def __init__(self, wiki_paths: Sequence[str] = DEFAULT_WIKI_PATHS) -> None:
        self.wiki_paths = tuple(wiki_paths)
        self.metrics = TraceMetrics()
        self.reads: Counter[str] = Counter()
        self._cost = 0.0
        self._costed = False

    def add(self, exchange: Exchange) -> None:
        m = self.metrics
        m.exchanges += 1
        sources = source_reads(exchange, self.wiki_paths)
        self.reads.update(sources)
        m.source_reads += len(sources)
        if exchange.answered:
            m.answered += 1
            m.wiki_hits += not sources
            m.answered_source_reads += len(sources)
            m.wasted_reads += sum(not is_cited(p, exchange.answer) for p in sources)
        m.tool_calls += len(exchange.tool_calls)
        m.tool_errors += exchange.tool_errors
        m.turns += exchange.turns
        m.tokens += exchange.tokens
        m.input_tokens += exchange.input_tokens
        m.output_tokens += exchange.output_tokens
        m.cache_read_tokens += exchange.cache_read_tokens
        m.cache_write_tokens += exchange.cache_write_tokens
        m.unpriced_turns += exchange.unpriced_turns
        if exchange.cost_usd is not None:
            self._cost += exchange.cost_usd
            self._costed = True

    def result(self, sessions: int, top: int = 10) -> TraceMetrics:
        """The totals so far, for `sessions` sessions, with the `top` most-read files."""
        return replace(self.metrics, sessions=sessions,
                       cost_usd=self._cost if self._costed else None,
                       most_read=self.reads.most_common(top))


def compute_metrics(exchanges: Iterable[Exchange], sessions: int,
                    wiki_paths: Sequence[str] = DEFAULT_WIKI_PATHS, top: int = 10) -> TraceMetrics:
    tally = MetricsTally(wiki_paths)
    for exchange in exchanges:
        tally.add(exchange)
    return tally.result(sessions, top)
