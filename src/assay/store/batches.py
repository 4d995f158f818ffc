"""Batches of trials written whole, or row by row when the database refuses one of them.

A batch is one transaction: fast, and all or nothing. When the database
refuses a row's values (`RowRejected`: a value too long for its column, a
constraint), the batch is written again one trial per transaction, so the
good trials are kept and the refused one is stored as an errored trial
whose error says why (`--resume --retry-errors` runs it again). A trial
that cannot be stored even so (its key itself is refused) stops the run
with a `StoreError` naming it, once the others are stored. Faults of the
store itself (full, read-only, unreachable) are not retried: each row
would fail the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine

from assay.errors import StoreError
from assay.store import schema
from assay.store.failures import RowRejected
from assay.store.inserts import insert_rows
from assay.store.trial_rows import TrialRows
from assay.trial import TrialKey, epoch_label

ErroredRows = Callable[[TrialKey, str], TrialRows]
"""The rows recording a trial as errored, given its key and why it was not stored."""


@dataclass
class StoredBatch:
    """What a batch write kept."""

    stored: int = 0
    """Trials stored, as they were or as errors."""
    refused: dict[TrialKey, str] = field(default_factory=dict)
    """Trials stored as errors because the database refused their rows, with the reason."""


def write_batch(engine: Engine, batch: Sequence[TrialRows],
                errored: ErroredRows) -> StoredBatch:
    """Insert `batch` in one transaction, or row by row when a row is refused (module notes)."""
    try:
        _insert(engine, batch)
    except RowRejected:
        return _one_by_one(engine, batch, errored)
    return StoredBatch(stored=len(batch))


def _one_by_one(engine: Engine, batch: Sequence[TrialRows], errored: ErroredRows) -> StoredBatch:
    outcome = StoredBatch()
    unstorable: list[tuple[TrialKey, str]] = []
    for rows in batch:
        try:
            _insert(engine, [rows])
            outcome.stored += 1
            continue
        except RowRejected as exc:
            reason = exc.cause
        try:
            _insert(engine, [errored(rows.key, f"the database refused its row: {reason}")])
        except RowRejected as exc:
            unstorable.append((rows.key, exc.cause))
            continue
        outcome.stored += 1
        outcome.refused[rows.key] = reason
    if unstorable:
        (case_id, condition, epoch), cause = unstorable[0]
        more = f" (and {len(unstorable) - 1} more)" if len(unstorable) > 1 else ""
        raise StoreError(f"the trial of case '{case_id[:80]}' under '{condition[:80]}' "
                         f"({epoch_label(epoch, None)}) could not be stored, not even as an error{more}: "
                         f"{cause}; the other trials of its batch are stored")
    return outcome


def _insert(engine: Engine, batch: Sequence[TrialRows]) -> None:
    trials = [rows.trial for rows in batch]
    scores = [row for rows in batch for row in rows.scores]
    with engine.begin() as conn:
        insert_rows(conn, schema.trials, trials)
        insert_rows(conn, schema.scores, scores)
