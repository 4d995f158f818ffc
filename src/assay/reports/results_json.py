"""`results.json`: every trial and score of a run, plus its summary, schema-versioned.

The `summary` block has the shape of the Knowledge Packs all-packs output
(see `knowledge_packs.summary`); `stats` has every figure of the summary;
`gates`, `comparisons` and `previous_run` are the review's conclusions.
Trials are streamed into the file, so a 100k-trial run is never held in
memory to be written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any

import orjson

from assay.knowledge_packs.summary import knowledge_packs_summary

if TYPE_CHECKING:
    from assay.records import TrialRecord
    from assay.review.result import Review

SCHEMA_VERSION = 1


def write_results_json(handle: IO[str], review: Review, trials: Iterable[TrialRecord]) -> int:
    """Stream the document to `handle`; returns the number of trials written."""
    head = {
        "schema_version": SCHEMA_VERSION,
        "run": review.run.header(),
        "summary": knowledge_packs_summary(review.summary),
        "stats": review.summary.to_dict(),
        "gates": [g.to_dict() for g in review.gates],
        "comparisons": review.comparisons.to_dict(),
        "previous_run": None if review.previous is None else review.previous.to_dict(),
    }
    text = json.dumps(head, ensure_ascii=False, indent=2, default=str)
    handle.write(text[:-2] + ',\n  "trials": [')  # reopen the object to stream the trials
    count = 0
    for trial in trials:
        handle.write(",\n    " if count else "\n    ")
        handle.write(trial_json(trial.to_dict()))
        count += 1
    handle.write("\n  ]\n}\n" if count else "]\n}\n")
    return count


def trial_json(record: dict[str, Any]) -> str:
    """One trial as one line of JSON. orjson writes it several times faster than `json`, which
    matters at 100k trials; it refuses integers past 64 bits, and those go through `json`."""
    try:
        return orjson.dumps(record, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(record, ensure_ascii=False, default=str)
