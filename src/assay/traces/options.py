"""What an analysis is asked to do: which files, which sessions, what counts as the wiki."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.traces.metrics import DEFAULT_WIKI_PATHS, HIT_RATE_TARGET
from assay.traces.selection import SessionFilter


@dataclass
class TraceOptions:
    format: str | None = None
    filter: SessionFilter = field(default_factory=SessionFilter)
    knowledge: Path | None = None
    wiki_paths: Sequence[str] = DEFAULT_WIKI_PATHS
    hit_rate_target: float = HIT_RATE_TARGET
