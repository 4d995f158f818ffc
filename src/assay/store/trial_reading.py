"""A run's stored trials read back whole, streamed in key order, for its review and files.

A 100k-trial run is read in batches of trials by key (keyset paging on the
primary key, never OFFSET), each with one query for the scores of the same
key range. The statements are built once per process and the rows unpacked
by position: this read is most of what a large run's review costs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select, tuple_

from assay.records import TrialRecord
from assay.score import Score
from assay.store import schema
from assay.store.rows import SCORE_FIELDS, TRIAL_FIELDS, score_of, trial_of


@cache
def _statements() -> tuple[Select[Any], Select[Any], Select[Any]]:
    """(first batch of trials, batch after a key, scores within a key range), each ordered
    by key: a trial's scores come by scorer name."""
    t, s = schema.trials, schema.scores
    key = (t.c.case_id, t.c.condition, t.c.epoch)
    trials = (select(*(t.c[name] for name in TRIAL_FIELDS)).where(
        t.c.run_id == bindparam("run_id")).order_by(*key).limit(bindparam("size")))
    after = trials.where(tuple_(*key) > tuple_(
        bindparam("case_id"), bindparam("condition"), bindparam("epoch")))
    score_key = (s.c.case_id, s.c.condition, s.c.epoch)
    scores = (select(*score_key, s.c.scorer, *(s.c[name] for name in SCORE_FIELDS)).where(and_(
        s.c.run_id == bindparam("run_id"),
        tuple_(*score_key) >= tuple_(bindparam("first_case"), bindparam("first_condition"),
                                     bindparam("first_epoch")),
        tuple_(*score_key) <= tuple_(bindparam("last_case"), bindparam("last_condition"),
                                     bindparam("last_epoch")),
    )).order_by(*score_key, s.c.scorer))
    return trials, after, scores


def iter_trials(conn: Connection, run_id: str, batch_size: int) -> Iterator[TrialRecord]:
    """Every stored trial of `run_id` with its scores, in key order."""
    first_batch, after, score_range = _statements()
    params: dict[str, Any] = {"run_id": run_id, "size": batch_size}
    rows = conn.execute(first_batch, params).all()
    while rows:
        first, last = rows[0], rows[-1]
        scores = conn.execute(score_range, {
            "run_id": run_id, "first_case": first[0], "first_condition": first[1],
            "first_epoch": first[2], "last_case": last[0], "last_condition": last[1],
            "last_epoch": last[2]}).all()
        yield from _joined(rows, scores)
        params.update(case_id=last[0], condition=last[1], epoch=last[2])
        rows = conn.execute(after, params).all()


def _joined(rows: Sequence[Any], scores: Sequence[Any]) -> Iterator[TrialRecord]:
    """Each trial row with the score rows of its key."""
    by_key: dict[tuple[Any, Any, Any], dict[str, Score]] = {}
    for score in scores:
        key = (score[0], score[1], score[2])
        found = by_key.get(key)
        if found is None:
            found = by_key[key] = {}
        found[score[3]] = score_of(score[4:])
    for row in rows:
        yield trial_of(row, by_key.get((row[0], row[1], row[2])) or {})
