"""Reading the store a page at a time: runs by filter, cases side by side, one trial.

What `assay view` asks of the store. Every method reads a bounded number of
rows through an index (see `case_query` and migration 5), whatever the size
of the run: a page of a 100,000-trial run costs about what a page of a
100-trial run does. Nothing here writes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, LargeBinary, and_, cast, func, select

from assay.records import RunRecord, ScoreRow, TrialPreview, TrialRecord
from assay.store import schema
from assay.store.case_query import matching_cases, repeated
from assay.store.filters import CaseFilter, CasePage, RunFilter
from assay.store.rows import (
    PREVIEW_CHARS,
    loads,
    run_record,
    score_row,
    stored_score,
    trial_preview,
    trial_record,
)
from assay.trial import TrialKey

MAX_PAGE = 500
"""The most rows one page may ask for."""
FIRST_WINDOW_ROWS = 500
MAX_WINDOW_ROWS = 64_000
"""How many trial rows (in case order) the first and the widest window of a case search span."""
SEARCH_BUDGET_S = 0.2
"""How long a case search may look for a page before it stops and says how far it got."""


class Browsing:
    """The paged, read-only queries of the store (mixed into `Store`)."""

    engine: Engine

    # -- runs -----------------------------------------------------------------

    def runs_page(self, wanted: RunFilter, *, limit: int = 50, offset: int = 0
                  ) -> list[RunRecord]:
        """Runs newest first that match `wanted`, `limit` of them from `offset`."""
        r = schema.runs
        query = (select(r).where(*_run_clauses(wanted))
                 .order_by(r.c.started_at.desc(), r.c.id.desc())
                 .limit(_page_size(limit)).offset(max(0, offset)))
        with self.engine.connect() as conn:
            return [run_record(row) for row in conn.execute(query)]

    def count_runs(self, wanted: RunFilter) -> int:
        query = select(func.count()).select_from(schema.runs).where(*_run_clauses(wanted))
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    def experiments(self) -> list[str]:
        """Every experiment name in the store, sorted."""
        r = schema.runs
        query = select(r.c.experiment).distinct().order_by(r.c.experiment)
        with self.engine.connect() as conn:
            return list(conn.execute(query).scalars())

    def trial_counts(self, run_ids: Sequence[str]) -> dict[str, int]:
        """Trials stored so far per run: the progress of runs in flight."""
        t = schema.trials
        query = (select(t.c.run_id, func.count()).where(t.c.run_id.in_(list(run_ids)))
                 .group_by(t.c.run_id))
        with self.engine.connect() as conn:
            return {run_id: int(count) for run_id, count in conn.execute(query)}

    def condition_counts(self, run_id: str) -> dict[str, tuple[int, int]]:
        """condition -> (trials stored, trials whose target failed), conditions by name."""
        t = schema.trials
        stored = (select(t.c.condition, func.count()).where(t.c.run_id == run_id)
                  .group_by(t.c.condition).order_by(t.c.condition))
        errored = (select(t.c.condition, func.count())
                   .where(t.c.run_id == run_id, t.c.error.is_not(None)).group_by(t.c.condition))
        with self.engine.connect() as conn:
            failed = {name: int(count) for name, count in conn.execute(errored)}
            return {name: (int(count), failed.get(name, 0))
                    for name, count in conn.execute(stored)}

    # -- cases ----------------------------------------------------------------

    def case_page(self, runs: Sequence[str], wanted: CaseFilter, *, after: str | None = None,
                  before: str | None = None, limit: int = 25,
                  budget_s: float = SEARCH_BUDGET_S) -> CasePage:
        """A page of the case ids of `runs` that `wanted` keeps, in id order.

        One run lists its conditions side by side; two runs (A, B) list each condition
        in both. `after` gives the page after that case id, `before` the page before it.
        The cases are searched a window at a time, each window twice the last; a
        search that has not filled the page after `budget_s` stops at a window's end
        and says so (`CasePage.searched_to`), so a filter that matches little never
        holds a page up for long.
        """
        size = _page_size(limit)
        backwards = before is not None and after is None
        baseline = wanted.baseline
        if wanted.show == "regressed" and len(runs) == 1 and baseline is None:
            baseline = self._first_condition(runs[0])
        found: list[str] = []
        start = before if backwards else after
        rows, deadline = FIRST_WINDOW_ROWS, time.monotonic() + budget_s
        searched_to: str | None = None
        with self.engine.connect() as conn:
            repeats = wanted.show == "unstable" and conn.execute(repeated(runs)).first() is not None
            # Errors, and a judge's disagreement with itself, are read off partial indexes that
            # hold only those rows: one query looks through the whole run at once.
            sparse = wanted.tag is None and (
                wanted.show == "errored" or (wanted.show == "unstable" and not repeats))
            while True:
                end = None if sparse else _window_end(conn, runs[-1], start, rows, backwards)
                cases = matching_cases(runs, wanted, baseline=baseline, repeats=repeats,
                                       window=_window(start, end, backwards))
                order = cases.c.case_id.desc() if backwards else cases.c.case_id
                query = (select(cases.c.case_id).distinct().order_by(order)
                         .limit(size + 1 - len(found)))
                found += conn.execute(query).scalars()
                if len(found) > size or end is None:
                    break
                start = end
                if time.monotonic() > deadline:
                    searched_to = end
                    break
                rows = min(2 * rows, MAX_WINDOW_ROWS)
        more = len(found) > size or searched_to is not None
        found = found[:size]
        edge = searched_to if searched_to is not None else found[-1] if found else None
        if backwards:
            found.reverse()
            return CasePage(found, after=found[-1] if found else before,
                            before=edge if more else None, searched_to=searched_to)
        return CasePage(found, after=edge if more else None,
                        before=found[0] if found and after is not None else None,
                        searched_to=searched_to)

    def trial_previews(self, runs: Sequence[str], case_ids: Sequence[str]
                       ) -> list[TrialPreview]:
        """Every trial of these cases in these runs, texts cut short, with their scores."""
        if not case_ids:
            return []
        t, s = schema.trials, schema.scores
        where = and_(t.c.run_id.in_(list(runs)), t.c.case_id.in_(list(case_ids)))
        query = select(
            t.c.run_id, t.c.case_id, t.c.condition, t.c.epoch, t.c.tags_json, t.c.error,
            t.c.latency_ms, t.c.input_tokens, t.c.output_tokens, t.c.cost_usd,
            func.substr(t.c.input_json, 1, PREVIEW_CHARS).label("input_json"),
            func.length(t.c.input_json).label("input_chars"),
            func.substr(t.c.expected_json, 1, PREVIEW_CHARS).label("expected_json"),
            func.length(t.c.expected_json).label("expected_chars"),
            *self._output_start(),
        ).where(where).order_by(t.c.case_id, t.c.run_id, t.c.condition, t.c.epoch)
        score_query = (
            select(s.c.run_id, s.c.case_id, s.c.condition, s.c.epoch, s.c.scorer, s.c.value,
                   s.c.passed, s.c.error, s.c.scale_min, s.c.scale_max, s.c.input_tokens,
                   s.c.output_tokens, s.c.cost_usd, s.c.cache_hits, s.c.shared_cost_usd,
                   t.c.tags_json,
                   t.c.difficulty)
            .join(t, schema.SCORE_OF_TRIAL)
            .where(s.c.run_id.in_(list(runs)), s.c.case_id.in_(list(case_ids))))
        with self.engine.connect() as conn:
            scores: dict[tuple[str, str, str, int], dict[str, ScoreRow]] = {}
            for row in conn.execute(score_query):
                m = row._mapping
                scores.setdefault((m["run_id"], m["case_id"], m["condition"], m["epoch"]),
                                  {})[m["scorer"]] = score_row(m)
            return [trial_preview(m, scores.get((m["run_id"], m["case_id"], m["condition"],
                                                 m["epoch"]), {}))
                    for m in (row._mapping for row in conn.execute(query))]

    def _output_start(self) -> tuple[Any, Any]:
        """The start of each output and its length. SQLite keeps a NUL in text, and its
        substr() and length() stop at the first one, so an answer `ab\\x00...` of 1,000
        characters would read as `ab`, whole: there its bytes are read (4 per character at
        most) and `trial_preview` cuts them. PostgreSQL holds no NUL (the store replaced it)."""
        output: Any = schema.trials.c.output_text
        chars = PREVIEW_CHARS
        if self.engine.dialect.name == "sqlite":
            output, chars = cast(output, LargeBinary), 4 * PREVIEW_CHARS
        return (func.substr(output, 1, chars).label("output_text"),
                func.length(output).label("output_length"))

    def get_trial(self, run_id: str, key: TrialKey) -> TrialRecord | None:
        """One stored trial whole (output, transcript, every score's details); None if absent."""
        t, s = schema.trials, schema.scores
        case_id, condition, epoch = key
        with self.engine.connect() as conn:
            row = conn.execute(select(t).where(
                t.c.run_id == run_id, t.c.case_id == case_id, t.c.condition == condition,
                t.c.epoch == epoch)).first()
            if row is None:
                return None
            scores = {m["scorer"]: stored_score(m) for m in (r._mapping for r in conn.execute(
                select(s).where(s.c.run_id == run_id, s.c.case_id == case_id,
                                s.c.condition == condition, s.c.epoch == epoch)
                .order_by(s.c.scorer)))}
        return trial_record(row._mapping, scores)

    def trial_keys(self, run_id: str, case_id: str) -> list[TrialKey]:
        """The keys of one case's trials in a run (its conditions and epochs)."""
        t = schema.trials
        query = (select(t.c.case_id, t.c.condition, t.c.epoch)
                 .where(t.c.run_id == run_id, t.c.case_id == case_id)
                 .order_by(t.c.condition, t.c.epoch))
        with self.engine.connect() as conn:
            return [(row[0], row[1], row[2]) for row in conn.execute(query)]

    def _first_condition(self, run_id: str) -> str | None:
        """The run's first condition as its summary lists them (else by name)."""
        r = schema.runs
        with self.engine.connect() as conn:
            text = conn.execute(select(r.c.summary_json).where(r.c.id == run_id)).scalar()
        summary = loads(text) if text else {}
        listed = [c.get("condition") for c in summary.get("conditions") or []
                  if isinstance(c, dict)]
        if listed:
            return str(listed[0])
        names = self.condition_counts(run_id)
        return next(iter(names), None)


def _window_end(conn: Any, run_id: str, start: str | None, rows: int,
                backwards: bool) -> str | None:
    """The case id `rows` trial rows past `start` in `run_id` (None: the run ends first)."""
    t = schema.trials
    query = select(t.c.case_id).where(t.c.run_id == run_id)
    if start is not None:
        query = query.where(t.c.case_id < start if backwards else t.c.case_id > start)
    order = t.c.case_id.desc() if backwards else t.c.case_id
    end = conn.execute(query.order_by(order).limit(1).offset(rows)).scalar()
    return None if end is None else str(end)


def _window(start: str | None, end: str | None, backwards: bool) -> Any:
    """The bounds of one window: after `start` up to `end` (before and down to, backwards)."""
    def bounds(column: Any) -> Any:
        clauses = []
        if start is not None:
            clauses.append(column < start if backwards else column > start)
        if end is not None:
            clauses.append(column >= end if backwards else column <= end)
        return and_(*clauses) if clauses else None

    return bounds


def _run_clauses(wanted: RunFilter) -> list[Any]:
    r = schema.runs
    clauses: list[Any] = []
    if wanted.experiment:
        clauses.append(r.c.experiment == wanted.experiment)
    if wanted.kind:
        clauses.append(r.c.kind == wanted.kind)
    if wanted.status:
        clauses.append(r.c.status == wanted.status)
    if wanted.since:
        clauses.append(r.c.started_at >= wanted.since)
    if wanted.until:
        clauses.append(r.c.started_at <= wanted.until + "~")  # '~' sorts after any time part
    return clauses


def _page_size(limit: int) -> int:
    return max(1, min(int(limit), MAX_PAGE))

