"""The runs of one suite invocation, and what `assay run SUITE --resume` does with each config.

Every run a suite starts keeps the suite's record in its options (`suite`): the suite's
id, the configs the command line named (`key`, resolved), each config it expanded to with
its hash and experiment, the options that shape its trials, and its `--output`. A resume
of the same command line finds the newest such suite through the runs of its configs,
refuses when its configs changed since, and gives each config what it needs: its completed
run reviewed again (nothing run or paid), its stopped run resumed, or a new run of the
suite when the suite never reached it.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import Problem, RunLocked, UserError

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.records import RunRecord
    from assay.runner.options import RunOptions
    from assay.store import Store
    from assay.store.run_ending import Unfinished

RUNS_LOOKED_AT = 200
"""How many of each experiment's newest runs are searched for the suite's."""


@dataclass
class SuiteRecord:
    """What a suite's runs keep of it, so `--resume` can finish it as it started."""

    id: str
    key: list[str]
    """The configs, globs and suite files of the command line, resolved: the same command
    line gives the same key, whatever the configs they expand to now."""
    configs: list[dict[str, str]]
    """Each config run, in order: its `path` (as the suite names it), `config_path` (as
    its run stores it), `config_hash` and `experiment`."""
    options: dict[str, Any] = field(default_factory=dict)
    """The choices that shape the trials (sample, epochs, conditions), for the configs a
    resume starts."""
    output: str | None = None
    """The `--output` folder given, or None: the summary goes to `.assay/suites/<id>/`."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def of(cls, run: RunRecord) -> SuiteRecord | None:
        """The record of the suite `run` belongs to; None for a run of no suite."""
        data = (run.options or {}).get("suite")
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            return None
        return cls(id=data["id"], key=list(data.get("key") or []),
                   configs=list(data.get("configs") or []),
                   options=dict(data.get("options") or {}), output=data.get("output"))

    @property
    def files(self) -> list[str]:
        """Each config's file, as its run stores it (resolved: the same from any folder)."""
        return [config["config_path"] for config in self.configs]


def suite_key(arguments: Sequence[str]) -> list[str]:
    """The command line's configs as one key: each path resolved, a glob kept as a pattern
    from the working directory."""
    key = []
    for argument in arguments:
        path = Path(argument) if Path(argument).is_absolute() else Path.cwd() / argument
        key.append(os.path.normpath(path) if glob.has_magic(argument) else str(path.resolve()))
    return key


def new_suite(key: list[str], configs: Sequence[tuple[Path, LoadedConfig]],
              options: RunOptions, output: Path | None) -> SuiteRecord:
    """The record of a suite about to start."""
    from assay.runner.session import new_run_id, recorded_options

    return SuiteRecord(
        id=new_run_id(), key=key,
        configs=[{"path": str(path), "config_path": str(loaded.path),
                  "config_hash": loaded.hash, "experiment": loaded.name}
                 for path, loaded in configs],
        options=recorded_options(options), output=str(output) if output else None)


@dataclass
class SuiteResume:
    """A stopped suite found again: its record, and each config's run of it (by path)."""

    record: SuiteRecord
    runs: dict[str, RunRecord]

    def options_for(self, path: Path, options: RunOptions) -> RunOptions:
        """How to run `path` now: its completed run reviewed again (no errored trial run
        again: a completed run is kept as it is), its stopped run resumed, or a new run."""
        run = self.runs.get(str(path))
        if run is None:
            return replace(options, resume=None, retry_errors=False)
        if run.status == "completed":
            return replace(options, resume=run.id, retry_errors=False)
        return replace(options, resume=run.id)

    @property
    def left_to_run(self) -> bool:
        return len(self.runs) < len(self.record.configs) or any(
            run.status != "completed" for run in self.runs.values())


class ExperimentRuns:
    """Each experiment's newest eval runs, read from the store once, however often the start
    of a suite looks: for the suite it resumes or warns of, and for each config's unfinished
    run. Read as the suite starts, before its own runs exist."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._newest: dict[str, list[RunRecord]] = {}

    def newest(self, experiment: str) -> list[RunRecord]:
        """The experiment's newest eval runs (`RUNS_LOOKED_AT` of them), newest first."""
        if experiment not in self._newest:
            self._newest[experiment] = self.store.list_runs(experiment, kind="eval",
                                                            limit=RUNS_LOOKED_AT)
        return self._newest[experiment]

    def unfinished(self, experiment: str) -> Unfinished | None:
        """`left_unfinished` of the experiment, from its runs read here."""
        from assay.store.run_ending import unfinished_latest

        newest = self.newest(experiment)
        return unfinished_latest(self.store, newest[0] if newest else None)


def find_suite(runs: ExperimentRuns, key: list[str],
               configs: Sequence[tuple[Path, LoadedConfig]], wanted: str | None, *,
               store_words: str = "") -> SuiteResume:
    """`suite_of`, or a `UserError` when there is none to resume."""
    found = suite_of(runs, key, configs, wanted)
    if found is not None:
        return found
    if wanted is not None:
        raise UserError(f"nothing to resume: no suite or run of it named {wanted} is in the "
                        f"store, of these configs (`assay runs{store_words}` shows the runs)")
    raise UserError("nothing to resume: no run of this suite is in the store (run it "
                    "without --resume to start it)" + _stopped_alone(runs, configs, store_words))


def suite_of(runs: ExperimentRuns, key: list[str],
             configs: Sequence[tuple[Path, LoadedConfig]], wanted: str | None
             ) -> SuiteResume | None:
    """The newest suite of this command line (or the suite `wanted` names, by its id or
    one of its runs'), with its runs; None when there is none."""
    found: dict[str, SuiteRecord] = {}
    of_suite: dict[str, list[RunRecord]] = {}
    experiments = dict.fromkeys(loaded.name for _, loaded in configs)
    for experiment in experiments:
        for run in runs.newest(experiment):
            record = SuiteRecord.of(run)
            if record is None:
                continue
            if record.key == key or (wanted is not None and wanted in (record.id, run.id)):
                found.setdefault(record.id, record)
                of_suite.setdefault(record.id, []).append(run)
    chosen = _chosen(found, of_suite, wanted)
    if chosen is None:
        return None
    record = found[chosen]
    for experiment in dict.fromkeys(c["experiment"] for c in record.configs):
        if experiment in experiments:
            continue  # searched above
        for run in runs.newest(experiment):
            if (other := SuiteRecord.of(run)) is not None and other.id == chosen:
                of_suite[chosen].append(run)
    by_file: dict[str, RunRecord] = {}
    for run in sorted(of_suite[chosen], key=lambda r: (r.started_at, r.id)):  # newest last
        by_file[run.config_path or ""] = run
    return SuiteResume(record, {str(path): by_file[str(loaded.path)] for path, loaded in configs
                                if str(loaded.path) in by_file and
                                str(loaded.path) in record.files})


def _stopped_alone(runs: ExperimentRuns, configs: Sequence[tuple[Path, LoadedConfig]],
                   store_words: str) -> str:
    """How to resume the latest run of each config that did not finish, when no suite holds
    them (a suite started by an assay that did not record suites, or runs started alone)."""
    import shlex

    commands = []
    for path, loaded in configs:
        # not one a live process still holds: that one is running, not to be resumed
        unfinished = runs.unfinished(loaded.name)
        if unfinished is not None and unfinished.run.config_path == str(loaded.path):
            commands.append(f"`assay run {shlex.quote(str(path))} --resume "
                            f"{unfinished.run.id}{store_words}`")
    if not commands:
        return ""
    return ("; the latest run of a config of it did not finish, and is not recorded as "
            f"this suite's: resume it alone with {', '.join(commands)}")


def _chosen(found: dict[str, SuiteRecord], runs: dict[str, list[RunRecord]],
            wanted: str | None) -> str | None:
    if wanted is not None:
        return next((sid for sid, rs in runs.items()
                     if wanted == sid or any(r.id == wanted for r in rs)), None)
    # The suite whose latest run started last: ids begin with the second a suite started,
    # and two suites in one second (a kill, then the same command again) compared by their
    # random tails, so the newest was picked half the time.
    return max(found, key=lambda sid: (max(r.started_at for r in runs[sid]), sid),
               default=None)


def refuse_changed(resume: SuiteResume, configs: Sequence[tuple[Path, LoadedConfig]]) -> None:
    """A `UserError` naming each config added, removed or edited since the suite started:
    resuming would mix two suites."""
    from assay.config.changes import config_changes

    record = resume.record
    now = {str(loaded.path): (path, loaded) for path, loaded in configs}
    problems = [Problem("added since the suite started", file=str(path))
                for file, (path, _) in now.items() if file not in record.files]
    problems += [Problem("in the suite when it started, not now", file=config["path"])
                 for config in record.configs if config["config_path"] not in now]
    for config in record.configs:
        path, loaded = now.get(config["config_path"], (None, None))
        if loaded is None or loaded.hash == config["config_hash"]:
            continue
        run = resume.runs.get(str(path))
        changes = config_changes(run.config, loaded.stored, loaded.source) if run else []
        problems += changes or [Problem("edited since the suite started (or a ${VAR} in it "
                                        "now has another value)", file=str(path))]
    if not problems and list(now) != record.files:
        problems.append(Problem("the configs run in another order: "
                                f"{', '.join(c['path'] for c in record.configs)} when it "
                                "started"))
    if problems:
        raise UserError(f"cannot resume suite {record.id}: its configs changed since it "
                        "started (resuming would mix two suites); put them back, or run "
                        "without --resume to start a new suite:", problems)


def suite_lock_key(record: SuiteRecord) -> str:
    """The suite's row in the store's run locks (a run's id never begins so)."""
    return f"suite-{record.id}"


@contextmanager
def suite_held(store: Store, record: SuiteRecord) -> Iterator[None]:
    """Hold the suite, as a run is held, while this process runs it: a second `--resume` of
    it meanwhile would start the configs this one has not reached yet, and run them twice.
    `RunLocked` when another live process holds it."""
    lock = store.run_lock()
    key = suite_lock_key(record)
    try:
        lock.acquire(key)
    except RunLocked:
        holder = lock.holder(key)
        who = f" ({holder.describe()})" if holder is not None else ""
        raise RunLocked(f"suite {record.id} is being run by another assay{who}; wait for it "
                        "to finish, or stop it and resume again") from None
    with lock:
        yield
