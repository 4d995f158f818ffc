"""What a run may change from its config: sample, epochs, conditions, resume, cache, progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.datasets.dataset import Dataset
    from assay.runner.progress import Mode


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
    progress: bool | Mode | None = None
    """None: the live bar on a terminal, else nothing; True: the bar on a terminal, else plain
    lines on stdout; False: nothing; or a mode by name (see `runner.progress`)."""
    dataset: Dataset | None = None
    """Cases given in memory (the Python API) in place of the config's dataset file."""
    report_dir: Callable[[str], str | None] | None = None
    """The folder asked for a run's files (`--output`), by run id: kept on a new run from
    its start, so a resume that asks for none writes them there, even after a kill."""
    warnings: list[str] = field(default_factory=list)
    """Said before the run began (a gate on a condition `--condition` left out), stored with
    the run's own warnings."""
    store_words: str = ""
    """` --store URL` when the command line named the store, for a command the run suggests
    (`assay calibrate ...`) to read the store this run reads."""
    suite: dict[str, object] | None = None
    """The record of the suite this run is part of (`api.suite_runs.SuiteRecord`), kept
    with the run so `assay run SUITE --resume` finds it."""
    on_run: Callable[[str], None] | None = None
    """Told the run's id once this process holds it (a new run or the one resumed), before
    its first trial: a caller stopped by Ctrl-C or an error names that run, not the
    experiment's latest, which is another process's when two run one experiment at once."""
