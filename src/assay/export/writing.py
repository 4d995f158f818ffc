"""`assay export RUN --format eee`: a stored run written as Every Eval Ever files.

For each condition of the run, under `DIR/data/<experiment>/<developer>/<model>/`:
`<uuid>.json`, the aggregate (every scorer's pass rate and mean with their
intervals), and `<uuid>_samples.jsonl`, one instance record per trial and
scorer with a verdict. Every document is checked against the vendored
schemas before it is written; the trials are streamed from the store in
one pass. The export is recorded with the run, so `results.json` links to
the files. Exporting a run again to the same place replaces its files.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from assay.errors import UserError
from assay.export.eee_aggregate import PASS_RATE, Evaluation, aggregate_document, metrics_of
from assay.export.eee_identity import condition_identity, dataset_source
from assay.export.eee_instances import instance_records
from assay.export.eee_schema import Kind, schema_errors
from assay.reports.atomic import atomic_writer, write_text

if TYPE_CHECKING:
    from assay.records import ExportRecord, RunRecord
    from assay.store import Store

Relationship = Literal["first_party", "third_party", "collaborative", "other"]
RELATIONSHIPS: tuple[Relationship, ...] = ("first_party", "third_party", "collaborative", "other")


class ExportInvalid(RuntimeError):
    """A document failed the format's schema: a bug of ours, never a file shipped."""


@dataclass
class _Condition:
    """One condition's evaluation being written: its files and running counts."""

    evaluation: Evaluation
    folder: Path
    file_id: str
    verdict_scorers: set[str]
    handle: IO[str] | None = None
    rows: int = 0
    digest: Any = field(default_factory=hashlib.sha256)

    @property
    def samples_path(self) -> Path:
        return self.folder / f"{self.file_id}_samples.jsonl"


def export_eee(store: Store, run: RunRecord, directory: Path, *,
               organization: str = "unknown", relationship: Relationship = "other",
               now: Callable[[], datetime] = lambda: datetime.now(UTC),
               recorded: bool = True) -> ExportRecord:
    """Write `run` as Every Eval Ever files under `directory`; the export, as recorded with
    the run (unless `recorded` is False: a store that can only be read)."""
    from assay.review.summary import stored_order, summarize_run
    from assay.store.run_ending import how_unfinished

    if run.kind != "eval":
        raise UserError(f"run {run.id} is a {run.kind} analysis, not an eval run: only eval "
                        "runs export to Every Eval Ever")
    unfinished = how_unfinished(store, run)
    if unfinished is not None:  # a part of the dataset would read as the whole
        raise UserError(f"run {run.id} is not completed ({unfinished.how}): only a completed "
                        f"run is exported, and it has {unfinished.stored_trials} stored")
    scorers, conditions = stored_order(run)
    summary = summarize_run(store, run.id, scorers=scorers, conditions=conditions)
    if not summary.condition_names:
        raise UserError(f"run {run.id} has no stored trials to export")
    judges = store.judge_identities(run.id)
    source = dataset_source(run.config, run.dataset_path, run.dataset_hash)
    started = str(int(datetime.fromisoformat(run.started_at).timestamp()))
    plans: dict[str, _Condition] = {}
    earlier: dict[Path, dict[str, str]] = {}  # per folder, read once: condition -> file id
    for condition in summary.condition_names:
        identity = condition_identity(run.config, condition)
        evaluation = Evaluation(run, condition, identity,
                                f"{run.experiment}/{identity.id.replace('/', '_')}/"
                                f"{condition}/{started}", source)
        verdicts = {stats.scorer for stats in summary.scores
                    if stats.condition == condition and PASS_RATE in metrics_of(stats)}
        folder = directory / identity.folder(run.experiment)
        if folder not in earlier:
            earlier[folder] = earlier_file_ids(folder, run.id)
        plans[condition] = _Condition(evaluation, folder,
                                      earlier[folder].get(condition) or str(uuid.uuid4()),
                                      verdicts)
    written: list[str] = []
    with ExitStack() as stack:
        for trial in store.iter_trials(run.id):
            plan = plans.get(trial.condition)
            if plan is None:
                continue
            for record in instance_records(plan.evaluation, trial,
                                           verdict_scorers=plan.verdict_scorers):
                _check(record, "instance", f"{trial.case_id} · {trial.condition}")
                line = json.dumps(record, ensure_ascii=False) + "\n"
                if plan.handle is None:
                    plan.handle = stack.enter_context(atomic_writer(plan.samples_path))
                plan.handle.write(line)
                plan.digest.update(line.encode())
                plan.rows += 1
    for condition, plan in plans.items():
        samples = None
        if not plan.rows:  # an earlier export's samples of this evaluation would be left over
            plan.samples_path.unlink(missing_ok=True)
        else:
            relative = plan.samples_path.relative_to(directory).as_posix()
            samples = {"format": "jsonl", "file_path": relative, "hash_algorithm": "sha256",
                       "checksum": plan.digest.hexdigest(), "total_rows": plan.rows}
            written.append(relative)
        document = aggregate_document(
            plan.evaluation, [s for s in summary.scores if s.condition == condition], judges,
            organization=organization, relationship=relationship, retrieved=now(),
            samples=samples)
        _check(document, "aggregate", condition)
        plan.folder.mkdir(parents=True, exist_ok=True)
        path = plan.folder / f"{plan.file_id}.json"
        write_text(path, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
        written.append(path.relative_to(directory).as_posix())
    if not recorded:
        from assay.records import ExportRecord
        from assay.store.rows import now_iso

        return ExportRecord("eee", str(directory.resolve()), sorted(written), now_iso())
    return store.record_export(run.id, "eee", str(directory.resolve()), sorted(written))


def earlier_file_ids(folder: Path, run_id: str) -> dict[str, str]:
    """Per condition, the file id an earlier export of this run has in `folder` (the first
    by name), so exporting again replaces those files: two files of one evaluation would
    count the run twice. The folder is read once for all the conditions that share it."""
    found: dict[str, str] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.json")):
        try:
            details = json.loads(path.read_text(encoding="utf-8"))["source_metadata"][
                "additional_details"]
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not an aggregate of ours: someone else's file, left alone
        if isinstance(details, dict) and details.get("assay_run_id") == run_id \
                and isinstance(details.get("condition"), str):
            found.setdefault(details["condition"], path.stem)
    return found


def _check(document: dict[str, Any], kind: Kind, where: str) -> None:
    problems = schema_errors(document, kind)
    if problems:
        raise ExportInvalid(f"the Every Eval Ever {kind} record for {where} breaks the "
                            f"schema (a bug in assay's export): {'; '.join(problems[:5])}")
