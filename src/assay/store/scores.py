"""Scores read and written apart from their trials: what judging stored outputs needs.

The runner writes a trial and its scores together. Judging after the
trials are stored (pairwise across conditions, `assay rejudge`,
`assay calibrate --run`) adds scores to stored trials, and reads one
scorer's scores, or the details of judged scores, without loading the
trials' texts.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from sqlalchemy import Engine, and_, select

from assay.redaction import redact_rows
from assay.score import Score
from assay.store import schema
from assay.store.rows import SCORE_FIELDS, score_of
from assay.store.storable import Replacements, Storable
from assay.store.trial_rows import SCORE_TEXT_COLUMNS, score_row
from assay.trial import TrialKey

ScoredKey = tuple[str, str, int, str]
"""(case id, condition, epoch, scorer)."""


class ScoreAccess:
    """Store methods over the `scores` table alone (mixed into `Store`)."""

    engine: Engine
    storable: Storable
    _lock: threading.Lock

    def write_scores(self, run_id: str, scores: Iterable[tuple[TrialKey, str, Score]]) -> int:
        """Add scores to stored trials in one transaction: (trial key, scorer, score), made
        storable and with known secrets masked, as the runner's rows are."""
        rows = [score_row({"run_id": run_id, "case_id": key[0], "condition": key[1],
                           "epoch": key[2]}, name, score, self.storable, Replacements())
                for key, name, score in scores]
        if not rows:
            return 0
        redact_rows(rows, SCORE_TEXT_COLUMNS)
        with self._lock, self.engine.begin() as conn:
            conn.execute(schema.scores.insert(), rows)
        return len(rows)

    def scored_keys(self, run_id: str, scorer: str) -> set[TrialKey]:
        """The trials that already have a score of `scorer`."""
        s = schema.scores
        query = select(s.c.case_id, s.c.condition, s.c.epoch).where(
            and_(s.c.run_id == run_id, s.c.scorer == scorer))
        with self.engine.connect() as conn:
            return {(row[0], row[1], row[2]) for row in conn.execute(query)}

    def iter_scores(self, run_id: str, scorer: str | None = None, *,
                    judged: bool = False) -> Iterator[tuple[TrialKey, str, Score]]:
        """(trial key, scorer, score) of a run, of one scorer, or of LLM judges only."""
        s = schema.scores
        where = [s.c.run_id == run_id]
        if scorer is not None:
            where.append(s.c.scorer == scorer)
        if judged:
            where.append(s.c.details_json.like('%"judge_model"%'))
        query = (select(s.c.case_id, s.c.condition, s.c.epoch, s.c.scorer,
                        *(s.c[name] for name in SCORE_FIELDS))
                 .where(and_(*where)).order_by(s.c.case_id, s.c.condition, s.c.epoch))
        with self.engine.connect() as conn:  # unpacked by position: a run's review reads all
            for row in conn.execution_options(stream_results=True).execute(query):
                yield (row[0], row[1], row[2]), row[3], score_of(row[4:])
