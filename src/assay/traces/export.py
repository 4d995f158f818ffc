"""Real questions as regression cases: exchanges written as a dataset draft.

Each row is a Case (`id`, `input`, `expected`, `reference`, `metadata`):

- `reference` is the answer recorded in the session: what the agent said
  then, the answer a replay compares each new answer with (the
  `vs_recorded` judge). It stays as it was.
- `expected` starts as the same answer, there for a person to review and
  correct before the dataset is trusted as ground truth.
- `metadata` keeps where the question came from (`source`: session file,
  line, id, format), the `model` that answered, the `files_read` (paths)
  with the start of what each read returned (`file_excerpts`, with every key
  and every value given under a secret's name masked: an agent that read a
  `.env` must not put its keys in a draft meant to be shared), and the
  `tools` the agent called, in the order first used, with how often.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from assay.case import Case
from assay.errors import UserError
from assay.redaction import redact_file_text
from assay.reports.atomic import atomic_writer
from assay.traces.exchanges import Exchange
from assay.traces.sessions import discover, real_path


def exchange_case(exchange: Exchange) -> Case:
    excerpts: dict[str, str] = {}
    for read in exchange.files_read:  # a key in a file read (a `.env`) stays out of drafts
        excerpts.setdefault(read.path, redact_file_text(read.content))
    tools = Counter(call.name for call in exchange.tool_calls)
    return Case(
        id=exchange.id,
        input=exchange.question,
        expected=exchange.answer,
        reference=exchange.answer,
        tags=["from-traces", "needs-review"],
        metadata={
            "source": {"session": exchange.session.path, "line": exchange.line,
                       "session_id": exchange.session.id, "format": exchange.session.format},
            "model": exchange.model,
            "files_read": list(excerpts),
            "file_excerpts": excerpts,
            "tools": [{"name": name, "calls": count} for name, count in tools.items()],
        },
    )


def check_not_a_log(output: Path, paths: Sequence[str | Path]) -> None:
    """Refuse, before any log is read, an output that is one of the session logs to export:
    the drafts would replace the log they are read from."""
    target = real_path(output)
    for log in discover(paths):
        if real_path(log) == target:
            raise UserError(f"-o {output} is one of the session logs being exported, so the "
                            "dataset would replace it: write the dataset to another file")


def write_dataset(exchanges: Iterable[Exchange], path: Path,
                  include_unanswered: bool = False) -> int:
    """Write one JSON line per exchange; returns how many were written. With none to write,
    nothing is written: an empty file is no dataset (`assay validate` refuses it)."""
    written = seen = 0
    with atomic_writer(path) as handle:  # a dataset half written would read as a whole one
        for exchange in exchanges:
            seen += 1
            if not exchange.answered and not include_unanswered:
                continue
            row: dict[str, Any] = exchange_case(exchange).to_dict()
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            written += 1
        if not written:
            raise UserError(f"no question to export: {seen} found, none answered "
                            "(--include-unanswered exports questions without an answer too); "
                            f"{path} was not written" if seen else
                            f"no question to export: the sessions hold none; {path} was not "
                            "written")
    return written
