"""One `assay calibrate`: read the spec, get the judge's verdicts, measure, store.

The spec is an eval config with a `calibration:` section, or a calibration
file alone (`labels:`, `verdicts:`, the bar). The judge's verdicts come,
in this order of precedence, from a stored run (`--run`), from a file of
recorded verdicts (`verdicts:`), or from judging the labelled items now
with the config's judge scorer.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from assay.calibration.judging import judge_items, pick_scorer
from assay.calibration.labels import read_labels
from assay.calibration.measure import Calibration, calibrate
from assay.calibration.verdicts import verdicts_from_file, verdicts_from_run
from assay.config.calibration import CalibrationSpec, LabelsFile
from assay.errors import UserError
from assay.records import CalibrationRecord

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.store import Store


@dataclass
class CalibrationRequest:
    """What the command line asks beyond the spec file."""

    spec: Path
    run: str | None = None
    """A stored run whose verdicts to calibrate (id, prefix, `latest`)."""
    scorer: str | None = None
    condition: str | None = None
    labels: Path | None = None
    """A labels file in place of the spec's (its `fields:` kept)."""
    min_agreement: float | None = None
    min_kappa: float | None = None
    use_cache: bool = True
    save: bool = True


@dataclass
class Spec:
    """The calibration spec and, when it came from an eval config, the config."""

    calibration: CalibrationSpec
    base_dir: Path
    loaded: LoadedConfig | None


def read_spec(path: Path, labels: Path | None = None) -> Spec:
    """An eval config's `calibration:` section, or a calibration file."""
    from assay.config.validation import problems_from
    from assay.config.yaml_source import load_yaml

    data, source = load_yaml(path)
    if isinstance(data, dict) and "scorers" in data:
        from assay.config import load_config

        loaded = load_config(path)
        spec = loaded.config.calibration
        if spec is None:
            if labels is None:
                raise UserError(f"{path} has no `calibration:` section: add one with the labels "
                                "file, or give --labels FILE")
            spec = CalibrationSpec(labels=LabelsFile(path=str(labels)))
        return Spec(_with_labels(spec, labels), path.parent, loaded)
    try:
        spec = CalibrationSpec.model_validate(data)
    except ValidationError as exc:
        raise UserError(f"invalid calibration file {path}",
                        problems_from(exc, CalibrationSpec, source)) from None
    return Spec(_with_labels(spec, labels), path.parent, None)


def _with_labels(spec: CalibrationSpec, labels: Path | None) -> CalibrationSpec:
    if labels is None:
        return spec
    return spec.model_copy(update={"labels": spec.labels.model_copy(
        update={"path": str(labels.resolve())})})


def run_calibration(request: CalibrationRequest, store: Store) -> Calibration:
    """Measure the judge against the labels (and store the result unless told not to)."""
    spec = read_spec(request.spec, request.labels)
    settings = spec.calibration.model_copy(update={
        key: value for key, value in (("min_agreement", request.min_agreement),
                                      ("min_kappa", request.min_kappa)) if value is not None})
    labels = read_labels(settings.labels, spec.base_dir,
                         kind="score" if settings.metric else settings.kind)
    scorer: str | None = request.scorer or settings.scorer
    experiment: str | None
    if request.run is not None:
        run = store.resolve_run(request.run)
        if scorer is None:
            scorer = _only_judged_scorer(store, run.id)
        verdicts = verdicts_from_run(store, run, scorer, labels, condition=request.condition,
                                     metric=settings.metric)
        experiment = run.experiment
    elif settings.verdicts is not None:
        verdicts = verdicts_from_file(settings.verdicts, spec.base_dir, labels.kind,
                                      settings.judge)
        experiment = spec.loaded.name if spec.loaded else None
    elif spec.loaded is not None:
        picked = scorer = pick_scorer(spec.loaded, scorer)
        verdicts = judge_items(spec.loaded, picked, labels, store, metric=settings.metric,
                               use_cache=request.use_cache)
        experiment = spec.loaded.name
    else:
        raise UserError(f"{request.spec}: say where the judge's verdicts are: `verdicts:` "
                        "in the file, --run RUN, or an eval config whose judge scorer to run")
    result = calibrate(labels, verdicts, settings)
    result.scorer, result.experiment = scorer, experiment
    result.labels_hash = _sha256(labels.path)
    if request.save:
        store.calibrations.save(record_of(result))
    return result


def record_of(result: Calibration) -> CalibrationRecord:
    """The calibration as a row of the store."""
    now = datetime.now(UTC)
    return CalibrationRecord(
        id=now.strftime("cal-%Y%m%d-%H%M%S-") + secrets.token_hex(3),
        created_at=now.isoformat(timespec="microseconds"), kind=result.kind, n=result.n,
        passed=result.passed, judge_model=result.identity.model,
        prompt_hash=result.identity.prompt_hash, rubric_version=result.identity.rubric_version,
        experiment=result.experiment, scorer=result.scorer, agreement=result.agreement,
        kappa=result.kappa, min_agreement=result.min_agreement, min_kappa=result.min_kappa,
        labels_path=result.labels_path, labels_hash=result.labels_hash, source=result.source,
        result=result.to_dict())


def _only_judged_scorer(store: Store, run_id: str) -> str:
    names = sorted({name for _key, name, _score in store.iter_scores(run_id, judged=True)})
    if len(names) != 1:
        raise UserError(f"run {run_id} has {len(names)} judged scorers "
                        f"({', '.join(names) or 'none'}); name one with --scorer")
    return names[0]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
