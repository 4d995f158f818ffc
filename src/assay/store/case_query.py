"""The SQL behind a page of cases: which case ids a `CaseFilter` keeps, in id order.

One run compares its conditions; two runs (A, then B) compare each
condition across the runs. Every query reads an index (migration 5) within
bounds of case ids, never the wide trial rows (inputs, outputs,
transcripts).

Callers step through the run a window of case ids at a time (`Window`),
so a filter that matches few cases does not make one query read them all.

A verdict's pass share per side (condition, or run) is `avg(passed)` over
the epochs, so with several epochs "flipped" and "regressed" mean what the
paired comparisons' wins and losses mean.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import CompoundSelect, Select, and_, case, func, literal, select, union

from assay.store import schema
from assay.store.filters import CaseFilter
from assay.store.rows import dumps

Window = Callable[[Any], Any]
"""The bounds of the case ids one query looks at (`after < column <= end`), or None."""

UNSTABLE_JUDGE = schema.UNSTABLE_JUDGE
"""A repeated judge that disagreed with itself, as its score's stored details read."""


def matching_cases(runs: Sequence[str], wanted: CaseFilter, *, baseline: str | None,
                   window: Window, repeats: bool = True) -> Any:
    """A subquery with one column, `case_id`: every case id `wanted` keeps (may repeat).

    `repeats` False says the runs have one epoch, so no verdict can change between epochs."""
    shown = _shown(list(runs), wanted, baseline, window, repeats)
    sub = shown.subquery()
    query = select(sub.c.case_id)
    if wanted.tag:
        query = query.where(sub.c.case_id.in_(_tagged(runs, wanted.tag, window)))
    if wanted.text:
        query = query.where(sub.c.case_id.like(f"%{_escape_like(wanted.text)}%", escape="\\"))
    return query.subquery()


def _shown(runs: list[str], wanted: CaseFilter, baseline: str | None, window: Window,
           repeats: bool) -> Select[Any] | CompoundSelect[Any]:
    t, s = schema.trials, schema.scores
    if wanted.show == "errored":
        return union(
            _bounded(select(t.c.case_id).where(t.c.run_id.in_(runs), t.c.error.is_not(None)),
                     t.c.case_id, window),
            _bounded(select(s.c.case_id).where(s.c.run_id.in_(runs), s.c.error.is_not(None)),
                     s.c.case_id, window))
    if wanted.show == "unstable":
        judges = select(s.c.case_id).where(
            _bounded_clause(and_(s.c.run_id.in_(runs), UNSTABLE_JUDGE,
                                 *_scorer(wanted.scorer)), s.c.case_id, window))
        if not repeats:
            return judges
        epochs = (select(s.c.case_id).where(_verdicts(runs, wanted.scorer, window))
                  .group_by(s.c.case_id, s.c.run_id, s.c.condition, s.c.scorer)
                  .having(func.min(s.c.passed) != func.max(s.c.passed)))
        return union(epochs, judges)
    if wanted.show in ("flipped", "regressed"):
        if len(runs) == 1:
            return _across_conditions(runs[0], wanted, baseline, window)
        return _across_runs(runs[0], runs[1], wanted, window)
    return _bounded(select(t.c.case_id).where(t.c.run_id.in_(runs)).distinct(), t.c.case_id,
                    window)


def _across_conditions(run: str, wanted: CaseFilter, baseline: str | None,
                       window: Window) -> Select[Any]:
    """Cases whose pass share differs between conditions (or falls below the baseline's)."""
    s = schema.scores
    shares = (select(s.c.case_id, s.c.scorer, s.c.condition,
                     func.avg(s.c.passed).label("share"))
              .where(_verdicts([run], wanted.scorer, window))
              .group_by(s.c.case_id, s.c.scorer, s.c.condition)).subquery()
    query = select(shares.c.case_id).group_by(shares.c.case_id, shares.c.scorer)
    if wanted.show == "flipped":
        return query.having(func.min(shares.c.share) < func.max(shares.c.share))
    is_base = shares.c.condition == literal(baseline)
    base_share = func.max(case((is_base, shares.c.share)))
    other_share = func.min(case((~is_base, shares.c.share)))
    return query.having(other_share < base_share)


def _across_runs(run_a: str, run_b: str, wanted: CaseFilter, window: Window) -> Select[Any]:
    """Cases whose pass share under a condition differs between the runs (or drops in B)."""
    s = schema.scores
    shares = (select(s.c.case_id, s.c.scorer, s.c.condition, s.c.run_id,
                     func.avg(s.c.passed).label("share"))
              .where(_verdicts([run_a, run_b], wanted.scorer, window))
              .group_by(s.c.case_id, s.c.scorer, s.c.condition, s.c.run_id)).subquery()
    query = (select(shares.c.case_id)
             .group_by(shares.c.case_id, shares.c.scorer, shares.c.condition)
             .having(func.count() == 2))
    if wanted.show == "flipped":
        return query.having(func.min(shares.c.share) < func.max(shares.c.share))
    share_a = func.max(case((shares.c.run_id == run_a, shares.c.share)))
    share_b = func.max(case((shares.c.run_id == run_b, shares.c.share)))
    return query.having(share_b < share_a)


def _tagged(runs: Sequence[str], tag: str, window: Window) -> Select[Any]:
    """Case ids with `tag` among their tags (the JSON list as stored, matched as a string)."""
    t = schema.trials
    pattern = f"%{_escape_like(dumps(tag) or '')}%"
    return _bounded(select(t.c.case_id).where(t.c.run_id.in_(list(runs)),
                                              t.c.tags_json.like(pattern, escape="\\")),
                    t.c.case_id, window)


def _verdicts(runs: Sequence[str], scorer: str | None, window: Window) -> Any:
    s = schema.scores
    return _bounded_clause(and_(s.c.run_id.in_(list(runs)), s.c.passed.is_not(None),
                                *_scorer(scorer)), s.c.case_id, window)


def _scorer(scorer: str | None, table: Any = None) -> list[Any]:
    columns = (table if table is not None else schema.scores).c
    return [] if scorer is None else [columns.scorer == scorer]


def _bounded(query: Select[Any], column: Any, window: Window) -> Select[Any]:
    bound = window(column)
    return query if bound is None else query.where(bound)


def _bounded_clause(clause: Any, column: Any, window: Window) -> Any:
    bound = window(column)
    return clause if bound is None else and_(clause, bound)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def repeated(runs: Sequence[str]) -> Select[Any]:
    """Any trial of these runs past the first epoch (one row or none)."""
    t = schema.trials
    return select(t.c.epoch).where(t.c.run_id.in_(list(runs)), schema.LATER_EPOCH).limit(1)
