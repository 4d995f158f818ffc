"""`results.json`: every trial and score of a run, plus its summary, schema-versioned.

The `summary` block has the shape of the Knowledge Packs all-packs output
(per condition: `avg`, `accuracy` in percent, `n`; and per-condition score
arrays), one block per scorer. Trials are streamed into the file, so a
100k-trial run is never held in memory to be written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, Any

from assay.analysis.summary import RunSummary
from assay.records import RunRecord, TrialRecord

SCHEMA_VERSION = 1


def knowledge_packs_summary(summary: RunSummary) -> dict[str, Any]:
    """scorer -> {condition: {avg, accuracy (%), n, errors}} and the score arrays."""
    out: dict[str, Any] = {}
    for scorer in summary.scorer_names:
        block: dict[str, Any] = {}
        for condition in summary.condition_names:
            stats = summary.get(scorer, condition)
            if stats is None:
                continue
            block[condition] = {
                "avg": stats.mean,
                "accuracy": None if stats.pass_rate is None else stats.pass_rate * 100,
                "n": stats.n,
                "errors": stats.errors,
            }
        out[scorer] = {"conditions": block, "scores": summary.values.get(scorer, {})}
    return out


def write_results_json(handle: IO[str], run: RunRecord, summary: RunSummary,
                       trials: Iterable[TrialRecord], *,
                       extra: dict[str, Any] | None = None) -> int:
    """Stream the document to `handle`; returns the number of trials written."""
    head = {
        "schema_version": SCHEMA_VERSION,
        "run": run.header(),
        "summary": knowledge_packs_summary(summary),
        "stats": summary.to_dict(),
        **(extra or {}),
    }
    text = json.dumps(head, ensure_ascii=False, indent=2, default=str)
    handle.write(text[:-2] + ',\n  "trials": [')  # reopen the object to stream the trials
    count = 0
    for trial in trials:
        handle.write(",\n    " if count else "\n    ")
        handle.write(json.dumps(trial.to_dict(), ensure_ascii=False, default=str))
        count += 1
    handle.write("\n  ]\n}\n" if count else "]\n}\n")
    return count
