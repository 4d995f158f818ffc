"""A run's stored trials read back: whole (its review and files), as flat score and trial
rows (analysis), and the judges its scores name.

A 100k-trial run is read in batches of trials by key (keyset paging on the
primary key, never OFFSET), each with one query for the scores of the same
key range. The statements are built once per process and the rows unpacked
by position: this read is most of what a large run's review costs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    case,
    func,
    or_,
    select,
    tuple_,
)

from assay.records import JudgeIdentity, ScoreRow, TrialRecord, TrialRow
from assay.score import Score
from assay.store import schema
from assay.store.rows import (
    SCORE_FIELDS,
    SCORE_ROW_FIELDS,
    TRIAL_FIELDS,
    TRIAL_ROW_FIELDS,
    loads,
    score_of,
    score_row_of,
    trial_of,
    trial_row,
)

CaseValue = tuple[str, str, str, float | None, int | None, str | None, float | None,
                  float | None]
"""A score as `TrialReading.iter_case_values` reads it: (case id, condition, scorer, value,
passed, error, scale min, scale max)."""


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


def _iter_trials(conn: Connection, run_id: str, batch_size: int) -> Iterator[TrialRecord]:
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
    """Each trial row with the score rows of its key: both come in key order, so each trial
    takes the score rows from where the one before it stopped."""
    at, end = 0, len(scores)
    keys: set[tuple[Any, Any, Any]] | None = None
    for row in rows:
        found: dict[str, Score] = {}
        case_id, condition, epoch = row[0], row[1], row[2]
        while at < end:
            score = scores[at]
            if score[0] == case_id and score[1] == condition and score[2] == epoch:
                found[score[3]] = score_of(score[4:])
                at += 1
                continue
            if keys is None:
                keys = {(r[0], r[1], r[2]) for r in rows}
            if (score[0], score[1], score[2]) in keys:
                break  # a later trial's
            at += 1  # a score of no trial read here: left out
        yield trial_of(row, found)


class TrialReading:
    """Store methods reading a run's stored trials back (mixed into `Store`)."""

    engine: Engine

    def iter_trials(self, run_id: str, *, batch_size: int = 2000) -> Iterator[TrialRecord]:
        """Every stored trial of a run with its scores, streamed in key order (a trial's
        scores by scorer name)."""
        with self.engine.connect() as conn:
            yield from _iter_trials(conn, run_id, batch_size)

    def count_usable_trials(self, run_id: str) -> int:
        """The run's stored trials that gave a verdict: the target answered, and at least one
        scorer did not fail on it (or it has no scorer); the runner's `trial_unusable`,
        counted by the database."""
        t = schema.trials
        query = select(func.count()).where(t.c.run_id == run_id, _usable())
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def conditions_without_verdict(self, run_id: str) -> list[tuple[str, int, str]]:
        """(condition, its trials, the first error) for each condition of the run none of
        whose trials gave a verdict (`count_usable_trials`), by name."""
        t = schema.trials
        query = (select(t.c.condition, func.count()).where(t.c.run_id == run_id)
                 .group_by(t.c.condition)
                 .having(func.sum(case((_usable(), 1), else_=0)) == 0).order_by(t.c.condition))
        with self.engine.connect() as conn:
            found = []
            for condition, trials in conn.execute(query):
                found.append((str(condition), int(trials),
                              _first_error(conn, run_id, str(condition))))
        return found

    def scorers_without_value(self, run_id: str) -> list[tuple[str, int, str]]:
        """(scorer, its errors, the first of them) for each scorer of the run that errored on
        every trial it scored and gave no value anywhere, by name."""
        return [(scorer, errors, first) for (scorer,), errors, first
                in self._without_value(run_id, schema.scores.c.scorer)]

    def scorer_conditions_without_value(self, run_id: str) -> list[tuple[str, str, int, str]]:
        """(scorer, condition, its errors there, the first of them) for each scorer that
        errored on every trial it scored under a condition, by scorer and condition."""
        s = schema.scores
        return [(scorer, condition, errors, first) for (scorer, condition), errors, first
                in self._without_value(run_id, s.c.scorer, s.c.condition)]

    def _without_value(self, run_id: str, *keys: Column[Any]
                       ) -> list[tuple[tuple[str, ...], int, str]]:
        """(the `keys`' values, the scores' errors, the first of them) for each group of the
        run's scores by `keys` of which none has a value."""
        s = schema.scores
        valued = func.sum(case((s.c.error.is_(None), 1), else_=0))
        query = (select(*keys, func.count()).where(s.c.run_id == run_id)
                 .group_by(*keys).having(valued == 0).order_by(*keys))
        with self.engine.connect() as conn:
            found = []
            for row in conn.execute(query):
                values = tuple(str(value) for value in row[:-1])
                first = _first_score_error(conn, run_id, *(key == value for key, value
                                                           in zip(keys, values, strict=True)))
                found.append((values, int(row[-1]), first[1] if first else ""))
        return found

    def spent_usd(self, run_id: str) -> float:
        """What the run's stored trials and scores cost: its targets' and judges' calls."""
        total = 0.0
        with self.engine.connect() as conn:
            for table in (schema.trials, schema.scores):
                query = select(func.sum(table.c.cost_usd)).where(table.c.run_id == run_id)
                total += float(conn.execute(query).scalar() or 0.0)
        return total

    def count_errored_trials(self, run_id: str) -> int:
        """The run's stored trials with an error: the target's, or any scorer's; the runner's
        `trial_error`, counted by the database."""
        t, s = schema.trials, schema.scores
        query = select(func.count()).where(
            t.c.run_id == run_id,
            or_(t.c.error.is_not(None), schema.trial_has_score(s.c.error.is_not(None))))
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def iter_score_rows(self, run_id: str) -> Iterator[ScoreRow]:
        """Flat score rows with the trial's tags and difficulty, for analysis, in key order
        (case, condition, epoch, scorer): whatever order the trials finished in, the
        analysis lists cases the same way for two runs of one config."""
        t, s = schema.trials, schema.scores
        query = (
            select(*(t.c[name] if name in ("tags_json", "difficulty") else s.c[name]
                     for name in SCORE_ROW_FIELDS))
            .join(t, schema.SCORE_OF_TRIAL)
            .where(s.c.run_id == run_id)
            .order_by(s.c.case_id, s.c.condition, s.c.epoch, s.c.scorer)
        )
        with self.engine.connect() as conn:
            for row in conn.execution_options(stream_results=True).execute(query):
                yield score_row_of(row)

    def iter_case_values(self, run_id: str) -> Iterator[CaseValue]:
        """(case id, condition, scorer, value, passed, error, scale min, scale max) of every
        score of the run, in key order as `iter_score_rows` reads them: the columns the
        per-case tables of comparisons take, read as tuples (a 500k-trial run's comparison
        and diff built a million ScoreRows they did not need)."""
        t, s = schema.trials, schema.scores
        query = (select(s.c.case_id, s.c.condition, s.c.scorer, s.c.value, s.c.passed,
                        s.c.error, s.c.scale_min, s.c.scale_max)
                 .join(t, schema.SCORE_OF_TRIAL).where(s.c.run_id == run_id)
                 .order_by(s.c.case_id, s.c.condition, s.c.epoch, s.c.scorer))
        with self.engine.connect() as conn:
            yield from conn.execution_options(stream_results=True).execute(query)

    def failed_trial_keys(self, run_id: str) -> list[tuple[str, str]]:
        """(condition, case id) of each trial of the run whose target failed, by case: the
        trials `iter_trial_rows` gives with an error, without reading the others."""
        t = schema.trials
        query = (select(t.c.condition, t.c.case_id, t.c.error)
                 .where(t.c.run_id == run_id, t.c.error.is_not(None))
                 .order_by(t.c.case_id, t.c.condition, t.c.epoch))
        with self.engine.connect() as conn:
            return [(condition, case_id) for condition, case_id, error in conn.execute(query)
                    if error]

    def judge_identities(self, run_id: str) -> dict[str, set[JudgeIdentity]]:
        """Per judged scorer, every (judge model, prompt hash) its scores carry.

        Only score rows whose details name a judge are read, so a run graded by
        deterministic scorers costs one indexed scan and no JSON decoding.
        """
        s = schema.scores
        query = select(s.c.scorer, s.c.details_json).where(and_(
            s.c.run_id == run_id, s.c.details_json.like('%"judge_model"%')))
        out: dict[str, set[JudgeIdentity]] = {}
        with self.engine.connect() as conn:
            for scorer, text in conn.execution_options(stream_results=True).execute(query):
                details = loads(text)
                out.setdefault(scorer, set()).add(
                    (details.get("judge_model"), details.get("prompt_hash")))
        return out

    def iter_trial_rows(self, run_id: str) -> Iterator[TrialRow]:
        """Flat trial rows (no texts, no scores): errors, latency, tokens, cost, tool use, in
        key order (case, condition, epoch)."""
        t = schema.trials
        # an output's JSON is read only where an agent target wrote its tool use there
        agent_output = case((t.c.output_json.like('%"agent"%'), t.c.output_json),
                            else_=None).label("output_json")
        # in key order, as `iter_trials` gives them: a summary read from these rows lists a
        # case's errors (and sums its costs) in the order the run's own review did
        query = (select(*(agent_output if name == "output_json" else t.c[name]
                          for name in TRIAL_ROW_FIELDS)).where(t.c.run_id == run_id)
                 .order_by(t.c.case_id, t.c.condition, t.c.epoch))
        with self.engine.connect() as conn:
            for row in conn.execution_options(stream_results=True).execute(query):
                yield trial_row(row)


def _usable() -> ColumnElement[bool]:
    """A trial that gave a verdict: the target answered, and a scorer did not fail on it (or
    it has no scorer)."""
    t, s = schema.trials, schema.scores
    return and_(t.c.error.is_(None),
                or_(~schema.trial_has_score(), schema.trial_has_score(s.c.error.is_(None))))


def _first_error(conn: Connection, run_id: str, condition: str) -> str:
    """The first error of a condition's trials, the target's, else a scorer's (by case and
    epoch), as `runner.pipeline.trial_error` reads it."""
    t, s = schema.trials, schema.scores
    where = (t.c.run_id == run_id, t.c.condition == condition)
    error = conn.execute(select(t.c.error).where(*where, t.c.error.is_not(None))
                         .order_by(t.c.case_id, t.c.epoch).limit(1)).scalar()
    if error is None:
        first = _first_score_error(conn, run_id, s.c.condition == condition)
        error = f"{first[0]}: {first[1]}" if first else ""
    return str(error)


def _first_score_error(conn: Connection, run_id: str, *where: ColumnElement[bool]
                       ) -> tuple[str, str] | None:
    """(scorer, error) of the run's first failed score among those `where` picks, by case,
    condition, epoch and scorer; None when none failed."""
    s = schema.scores
    row = conn.execute(select(s.c.scorer, s.c.error)
                       .where(s.c.run_id == run_id, s.c.error.is_not(None), *where)
                       .order_by(s.c.case_id, s.c.condition, s.c.epoch, s.c.scorer)
                       .limit(1)).first()
    return (str(row[0]), str(row[1])) if row else None
