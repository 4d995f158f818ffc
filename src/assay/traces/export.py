"""Real questions as regression cases: exchanges written as a dataset draft.

Each row is a Case (`id`, `input`, `expected`, `reference`, `metadata`).
`expected` is the agent's own answer, there for a person to review and
correct before the dataset is trusted as ground truth.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assay.case import Case
from assay.traces.exchanges import Exchange


def exchange_case(exchange: Exchange) -> Case:
    reference = "\n\n".join(f"[{read.path}]\n{read.content}" for read in exchange.files_read)
    return Case(
        id=exchange.id,
        input=exchange.question,
        expected=exchange.answer,
        reference=reference or None,
        tags=["from-traces", "needs-review"],
        metadata={
            "source": {"session": exchange.session.path, "line": exchange.line,
                       "session_id": exchange.session.id, "format": exchange.session.format},
            "model": exchange.model,
            "files_read": [read.path for read in exchange.files_read],
        },
    )


def write_dataset(exchanges: Iterable[Exchange], path: Path,
                  include_unanswered: bool = False) -> int:
    """Write one JSON line per exchange; returns how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        for exchange in exchanges:
            if not exchange.answered and not include_unanswered:
                continue
            row: dict[str, Any] = exchange_case(exchange).to_dict()
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            written += 1
    return written
