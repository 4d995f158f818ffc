"""How a suite starts: a new suite, or the stopped one `--resume` goes on with.

The runs themselves are run one by one by its caller (`assay run`); this decides the
suite's record, the options its runs take, where its summary goes, what to say of a stopped
suite a new one starts beside and of a run left unfinished outside the suite that a config's
new run starts beside, and refuses a resume with nothing left to do.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import UserError

if TYPE_CHECKING:
    from assay.api.suite_runs import ExperimentRuns, SuiteRecord, SuiteResume
    from assay.config.loading import LoadedConfig
    from assay.runner.options import RunOptions
    from assay.store import Store
    from assay.store.run_ending import Unfinished


@dataclass
class SuiteStart:
    """A suite about to run: its record, the options its runs take, and, for a resume, the
    runs it already has."""

    record: SuiteRecord
    options: RunOptions
    resumed: SuiteResume | None
    folder: Path
    """Where suite.json and suite.md go."""
    runs_folder: Path | None
    """The `--output` the runs' folders go under (None: each run's default)."""
    note: str
    """For a new suite, one line on the stopped suite of this command line it starts beside
    (`--resume` would continue that one); else empty."""
    runs: ExperimentRuns
    """The runs of the configs' experiments, read as the suite started."""
    held: set[str] = field(default_factory=set)
    """The experiments a config of this suite has held a run of (new or resumed) since the
    suite started: their latest run is now the suite's own."""

    def options_for(self, path: Path) -> RunOptions:
        """The options `path`'s run takes (see `SuiteResume.options_for`)."""
        return self.resumed.options_for(path, self.options) if self.resumed else self.options

    def unfinished_for(self, experiment: str) -> Unfinished | None:
        """The run of `experiment` left unfinished outside this suite, until a config of the
        experiment holds a run: a config refused before its run started leaves the note of
        that run to the next config of the experiment, and after one held a run, the
        experiment's previous run is the suite's own."""
        from assay.api.suite_runs import SuiteRecord

        if experiment in self.held:
            return None
        unfinished = self.runs.unfinished(experiment)
        suite = SuiteRecord.of(unfinished.run) if unfinished is not None else None
        return None if suite is not None and suite.id == self.record.id else unfinished

    def held_run_of(self, experiment: str) -> None:
        """A config of `experiment` has held a run of this suite (see `unfinished_for`)."""
        self.held.add(experiment)


def suite_started(store: Store, arguments: Sequence[str],
                  configs: Sequence[tuple[Path, LoadedConfig]], options: RunOptions,
                  resume: str | None, output: Path | None) -> SuiteStart:
    """A new suite, or with `--resume` the stopped one of this command line, checked to have
    the same configs and options, and with something left to do."""
    from assay.api.suite_runs import (
        ExperimentRuns,
        find_suite,
        new_suite,
        refuse_changed,
        suite_key,
    )
    from assay.review.suite import DEFAULT_SUITES_DIR, runs_summarised
    from assay.runner.session import resumed_options

    key = suite_key(arguments)
    runs = ExperimentRuns(store)
    if not resume:
        note = _stopped_suite_note(runs, key, configs, arguments, options.store_words)
        record = new_suite(key, configs, options, output)
        return SuiteStart(record, replace(options, suite=record.to_dict()), None,
                          output or DEFAULT_SUITES_DIR / record.id, output, note, runs)
    found = find_suite(runs, key, configs, None if resume == "latest" else resume,
                       store_words=options.store_words)
    record = found.record
    refuse_changed(found, configs)
    options = replace(resumed_options(f"suite {record.id}", record.options, options),
                      suite=record.to_dict())
    given = output or (Path(record.output) if record.output else None)
    folder = given or DEFAULT_SUITES_DIR / record.id
    if not found.left_to_run and (runs_summarised(folder / "suite.json")
                                  == {run.id for run in found.runs.values()}):
        ids = ", ".join(run.id for run in found.runs.values())
        raise UserError(f"nothing to resume: every config of suite {record.id} completed "
                        f"(runs {ids}); its summary is {folder / 'suite.md'}, and `assay "
                        f"report RUN{options.store_words}` shows each run; run without "
                        f"--resume to start a new suite{_errored_left(store, found, options)}")
    return SuiteStart(record, options, found, folder, given, "", runs)


def _stopped_suite_note(runs: ExperimentRuns, key: list[str],
                        configs: Sequence[tuple[Path, LoadedConfig]],
                        arguments: Sequence[str], store_words: str) -> str:
    """One line when the latest suite of this command line did not finish and no live process
    holds it: a new suite starts beside it, running again what that one had done, and
    without this line it would be forgotten."""
    from assay.api.suite_runs import suite_lock_key, suite_of

    stopped = suite_of(runs, key, configs, None)
    if stopped is None:
        return ""  # no suite of this command line yet
    record = stopped.record
    if not stopped.left_to_run or not runs.store.run_lock().is_free(suite_lock_key(record)):
        return ""
    done = sum(run.status == "completed" for run in stopped.runs.values())
    return (f"note: the previous suite {record.id} of these configs did not finish ({done} "
            f"of {len(record.configs)} configs completed); this is a new suite: "
            f"`{suite_resume_command(arguments, store_words)}` continues that one instead")


def _errored_left(store: Store, found: SuiteResume, options: RunOptions) -> str:
    """With `--retry-errors`, how to run again the errored trials of the suite's completed
    runs, which a suite's resume leaves as they are."""
    if not options.retry_errors:
        return ""
    errored = [(path, run) for path, run in found.runs.items()
               if store.count_errored_trials(run.id)]
    commands = "; ".join(f"`assay run {shlex.quote(path)} --resume {run.id} --retry-errors"
                         f"{options.store_words}`" for path, run in errored)
    return (f" (--retry-errors leaves a completed run's errored trials as they are: "
            f"{commands} runs them again)" if errored else "")


def suite_resume_command(arguments: Sequence[str], store_words: str) -> str:
    """The command that resumes the suite of these command-line configs, on this store."""
    return f"assay run {shlex.join(arguments)} --resume{store_words}"
