"""The tables of the store, named for people who open the database by hand.

    sqlite3 .assay/assay.db "select condition, scorer, avg(value) from scores group by 1, 2"

JSON columns are plain TEXT so the same schema works on SQLite and PostgreSQL.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    exists,
    literal_column,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import Exists

metadata = MetaData()

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("applied_at", String(40), nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("experiment", String(200), nullable=False, index=True),
    Column("kind", String(20), nullable=False, default="eval"),
    Column("status", String(20), nullable=False),
    Column("started_at", String(40), nullable=False),
    Column("finished_at", String(40)),
    Column("config_json", Text),
    Column("config_hash", String(64)),
    Column("config_path", Text),
    Column("dataset_path", Text),
    Column("dataset_hash", String(64)),
    Column("git_commit", String(64)),
    Column("assay_version", String(40)),
    Column("total_trials", Integer),
    Column("summary_json", Text),
    Column("error", Text),
    Column("options_json", Text),
    Column("report_dir", Text),
    Column("review_json", Text),
    Column("pack_hashes_json", Text),
)

trials = Table(
    "trials",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("case_id", String(300), primary_key=True),
    Column("condition", String(200), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("input_json", Text),
    Column("expected_json", Text),
    Column("tags_json", Text),
    Column("difficulty", String(40)),
    Column("output_text", Text),
    Column("output_json", Text),
    Column("error", Text),
    Column("latency_ms", Float),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("cost_usd", Float),
    Column("cache_hits", Integer),
    Column("finished_at", String(40)),
    ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE"),
)

scores = Table(
    "scores",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("case_id", String(300), primary_key=True),
    Column("condition", String(200), primary_key=True),
    Column("epoch", Integer, primary_key=True),
    Column("scorer", String(200), primary_key=True),
    Column("value", Float),
    Column("scale_min", Float),
    Column("scale_max", Float),
    Column("passed", Integer),
    Column("reason", Text),
    Column("details_json", Text),
    Column("error", Text),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("cost_usd", Float),
    Column("cache_hits", Integer),
    Column("shared_cost_usd", Float),
    ForeignKeyConstraint(
        ["run_id", "case_id", "condition", "epoch"],
        ["trials.run_id", "trials.case_id", "trials.condition", "trials.epoch"],
        ondelete="CASCADE",
    ),
)
Index("scores_by_scorer", scores.c.run_id, scores.c.condition, scores.c.scorer)

SCORE_OF_TRIAL = and_(scores.c.run_id == trials.c.run_id, scores.c.case_id == trials.c.case_id,
                      scores.c.condition == trials.c.condition, scores.c.epoch == trials.c.epoch)
"""A score row of a trial row: the same run, case, condition and epoch (what a join of the
two tables, or a score looked for from a trial, is on)."""


def trial_has_score(*criteria: ColumnElement[bool]) -> Exists:
    """Whether the trial of the enclosing query has a score meeting every one of `criteria`
    (any score, given none): the one trial-to-scores test of the reads and deletes."""
    return exists().where(SCORE_OF_TRIAL, *criteria)


UNSTABLE_JUDGE = scores.c.details_json.like(literal_column("""'%"unstable":true%'"""))
"""A score whose repeated judge disagreed with itself (a literal, so its index serves it)."""
LATER_EPOCH = trials.c.epoch > literal_column("0")
"""A trial past the first epoch (a literal, so its index serves it)."""


@cache
def browsing_indexes(dialect: str) -> tuple[Index, ...]:
    """What `assay view` filters cases by, in case order, without reading the wide rows.

    Each index holds every column its query reads (migration 5). SQLite uses a partial
    index only when it also holds the column of its condition, so the errored ones hold
    the error on SQLite (few rows); PostgreSQL, whose index entries are bounded in size,
    does without. Built for one dialect when migration 5 runs: a partial index's
    `<dialect>_where` loads that dialect, which a SQLite store never needs.
    """
    partial = dialect in ("sqlite", "postgresql")

    def where(condition: ColumnElement[bool]) -> dict[str, Any]:
        return {f"{dialect}_where": condition} if partial else {}

    errored: tuple[Index, ...] = ()
    if dialect == "sqlite":
        errored = (Index("trials_errored", trials.c.run_id, trials.c.case_id, trials.c.error,
                         **where(trials.c.error.is_not(None))),
                   Index("scores_errored", scores.c.run_id, scores.c.case_id, scores.c.error,
                         **where(scores.c.error.is_not(None))))
    elif dialect == "postgresql":
        errored = (Index("trials_errored_pg", trials.c.run_id, trials.c.case_id,
                         **where(trials.c.error.is_not(None))),
                   Index("scores_errored_pg", scores.c.run_id, scores.c.case_id,
                         **where(scores.c.error.is_not(None))))
    return (
        Index("trials_tags", trials.c.run_id, trials.c.case_id, trials.c.tags_json),
        Index("scores_verdicts", scores.c.run_id, scores.c.case_id, scores.c.scorer,
              scores.c.condition, scores.c.passed),
        *errored,
        Index("scores_unstable", scores.c.run_id, scores.c.case_id, **where(UNSTABLE_JUDGE)),
        Index("trials_later_epochs", trials.c.run_id, trials.c.epoch, **where(LATER_EPOCH)),
        Index("runs_by_start", runs.c.started_at, runs.c.id),
    )


response_cache = Table(
    "response_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("provider", String(100)),
    Column("model", String(200)),
    Column("response_json", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
)
Index("response_cache_by_provider", response_cache.c.provider)

exports = Table(
    "exports",
    metadata,
    Column("run_id", String(64), nullable=False),
    Column("format", String(40), nullable=False),
    Column("location", Text, nullable=False),
    Column("files_json", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="CASCADE"),
)
Index("exports_by_run", exports.c.run_id)

calibrations = Table(
    "calibrations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("created_at", String(40), nullable=False),
    Column("experiment", String(200)),
    Column("scorer", String(200)),
    Column("judge_model", String(200), index=True),
    Column("prompt_hash", String(64)),
    Column("rubric_version", String(64)),
    Column("kind", String(20), nullable=False),
    Column("n", Integer, nullable=False),
    Column("agreement", Float),
    Column("kappa", Float),
    Column("min_agreement", Float),
    Column("min_kappa", Float),
    Column("passed", Integer, nullable=False),
    Column("labels_path", Text),
    Column("labels_hash", String(64)),
    Column("source", Text),
    Column("result_json", Text),
)
"""One row per `assay calibrate`: a judge (model, prompt hash, rubric version) against
people's labels, with the bar it was held to and whether it passed."""

run_locks = Table(
    "run_locks",
    metadata,
    Column("run_id", String(64), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("pid", Integer),
    Column("host", String(255)),
    Column("pid_scope", String(200)),
    Column("taken_at", String(40), nullable=False),
    Column("heartbeat_at", String(40), nullable=False),
)
"""One row per run being run, resumed or rewritten: the process that holds it (see
`assay.store.run_lock`)."""

DECLARED_INDEXES = tuple(index for table in metadata.sorted_tables for index in table.indexes)
"""The indexes declared with the tables above (`browsing_indexes`, made per dialect, are not)."""
