"""The calibrations table: every `assay calibrate`, found again by judge.

A judge is known by its model, its prompt hash and its rubric version. A
run's report asks whether its judge (model, prompt hash) has a passing
calibration; `judge: {require_calibration: true}` asks the same of the
config's judge before a run, and, when there is none, what the last
passing calibration of that scorer was, to say what changed since.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine, and_, select

from assay.records import CalibrationRecord
from assay.store import schema
from assay.store.rows import dumps, loads

_COLUMNS = ("id", "created_at", "experiment", "scorer", "judge_model", "prompt_hash",
            "rubric_version", "kind", "n", "agreement", "kappa", "min_agreement", "min_kappa",
            "labels_path", "labels_hash", "source")


class Calibrations:
    """Stored calibrations, newest first."""

    def __init__(self, engine: Engine, lock: threading.Lock) -> None:
        self.engine = engine
        self._lock = lock

    def save(self, record: CalibrationRecord) -> None:
        row: dict[str, Any] = {name: getattr(record, name) for name in _COLUMNS}
        row["passed"] = int(record.passed)
        row["result_json"] = dumps(record.result)
        with self._lock, self.engine.begin() as conn:
            conn.execute(schema.calibrations.insert().values(**row))

    def list(self, *, scorer: str | None = None, experiment: str | None = None,
             judge_model: str | None = None, prompt_hash: str | None = None,
             passed: bool | None = None, limit: int | None = 50) -> list[CalibrationRecord]:
        table = schema.calibrations
        conditions = []
        for column, value in ((table.c.scorer, scorer), (table.c.experiment, experiment),
                              (table.c.judge_model, judge_model),
                              (table.c.prompt_hash, prompt_hash)):
            if value is not None:
                conditions.append(column == value)
        if passed is not None:
            conditions.append(table.c.passed == int(passed))
        query = select(table).order_by(table.c.created_at.desc(), table.c.id.desc())
        if conditions:
            query = query.where(and_(*conditions))
        if limit:
            query = query.limit(limit)
        with self.engine.connect() as conn:
            return [_record(row._mapping) for row in conn.execute(query)]

    def passing(self, judge_model: str | None, prompt_hash: str | None,
                rubric_version: str | None = None) -> CalibrationRecord | None:
        """The newest passing calibration of exactly this judge (the rubric version too,
        when given)."""
        if judge_model is None or prompt_hash is None:
            return None
        for record in self.list(judge_model=judge_model, prompt_hash=prompt_hash, passed=True,
                                limit=20):
            if rubric_version is None or record.rubric_version in (None, rubric_version):
                return record
        return None


def _record(m: Any) -> CalibrationRecord:
    return CalibrationRecord(
        **{name: m[name] for name in _COLUMNS}, passed=bool(m["passed"]),
        result=loads(m["result_json"]) if m["result_json"] else None)
