"""What a run may change from its config: sample, epochs, conditions, resume, cache, gates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.config.models import GateConfig
    from assay.datasets.dataset import Dataset


@dataclass
class RunOptions:
    resume: str | bool | None = None
    """True: the latest unfinished run of this experiment; a string: that run id."""
    retry_errors: bool = False
    sample: int | None = None
    epochs: int | None = None
    concurrency: int | None = None
    conditions: list[str] | None = None
    use_cache: bool = True
    progress: bool | None = None
    extra_gates: list[GateConfig] = field(default_factory=list)
    dataset: Dataset | None = None
    """Cases given in memory (the Python API) in place of the config's dataset file."""
