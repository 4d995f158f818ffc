"""A stored run's config and cases, rebuilt to judge its outputs again.

The store keeps the config as written (`${VAR}` references kept), so it is
validated again here, with today's environment, relative paths resolved
beside the original config file. The cases come from the run's dataset
when the file is still the one the run read (same sha256): a judge may
need fields the trials do not store (expected traits, the reference,
metadata its template names). Otherwise the trials' own input and
expected answer stand in, and the caller is told so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay.case import Case
from assay.config.loading import LoadedConfig, load_config_data
from assay.config.yaml_source import SourceMap
from assay.errors import UserError

if TYPE_CHECKING:
    from assay.records import RunRecord, TrialRecord


def stored_config(run: RunRecord) -> LoadedConfig:
    """The run's config, validated again (relative paths beside its original file)."""
    if not isinstance(run.config, dict):
        raise UserError(f"run {run.id} has no stored config to rebuild its scorers from")
    path = Path(run.config_path or "assay.yaml")
    return load_config_data(dict(run.config), SourceMap(str(path), None), path)


@dataclass
class StoredCases:
    """The run's cases by id, when its dataset is still the one it read."""

    cases: dict[str, Case] = field(default_factory=dict)
    note: str | None = None
    """Why the stored trials' input and expected answer stand in for the cases."""

    def case_of(self, trial: TrialRecord) -> Case:
        found = self.cases.get(trial.case_id)
        if found is not None:
            return found
        return Case(id=trial.case_id, input=trial.input, expected=trial.expected,
                    tags=list(trial.tags), difficulty=trial.difficulty)


def stored_cases(run: RunRecord, loaded: LoadedConfig) -> StoredCases:
    """The run's dataset read again if it is unchanged; else an explanation."""
    from assay.datasets.dataset import open_dataset

    dataset = loaded.config.dataset
    if run.dataset_path is None or dataset.path is None:
        return StoredCases(note="the run's dataset cannot be read again; judging with the "
                                "input and expected answer stored with each trial")
    path = Path(run.dataset_path)
    try:
        reader = open_dataset(path, format=dataset.format, fields=dataset.fields,
                              tags=dataset.tags)
        if reader.scan().sha256 != run.dataset_hash:
            return StoredCases(note=f"the dataset {path} changed since the run; judging with "
                                    "the input and expected answer stored with each trial")
        return StoredCases({case.id: case for case in reader})
    except UserError:
        return StoredCases(note=f"the dataset {path} can no longer be read; judging with the "
                                "input and expected answer stored with each trial")
