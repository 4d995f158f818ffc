"""`assay.evaluate`: an eval from Python code, on the same engine as `assay run`.

The arguments become a config (`arguments`), validated by the same loader
as a YAML file; the run goes through the same runner and store, and ends
with the same review (`assay.review`): conditions compared, the diff with
the previous run of the experiment, gates, and the same `results.json`,
`report.md` and `report.html`. Nothing is printed unless asked:
`verbose=True` prints what `assay run` prints.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from assay.api.arguments import Data, ScorerSpec, Task, config_data
from assay.errors import UserError
from assay.review.result import Review

if TYPE_CHECKING:
    from pydantic import BaseModel

    from assay.analysis.run_diff import RunDiff
    from assay.records import TrialRecord
    from assay.store import Store

SOURCE = "assay.evaluate"
"""How problems with the arguments are located, in place of a config file's name."""


@dataclass
class EvalResult(Review):
    """One finished run of an experiment, reviewed: what `assay run` prints and writes.

    `files` names the `results.json`, `report.md` and `report.html` written for it
    (None with `reports=False`).
    """

    store_url: str = field(default="", repr=False)
    """The store the run is kept in, its URL as given, a password included: left out of
    the result's repr, which a notebook shows and a log keeps."""
    reopened_url: str = field(default="", repr=False, compare=False)
    """`store_url` with a relative SQLite path made absolute when the run ended: `trials`
    opens it, wherever the program's working directory has moved since (a notebook's
    `%cd`), where it failed to open `.assay/assay.db` there."""

    @classmethod
    def of(cls, review: Review, store_url: str) -> EvalResult:
        """The result of a review of a run kept in the store at `store_url`."""
        return cls(**{f.name: getattr(review, f.name) for f in fields(Review)},
                   store_url=store_url, reopened_url=_absolute(store_url))

    @property
    def run_id(self) -> str:
        return self.run.id

    @property
    def compare_previous(self) -> RunDiff | None:
        """The diff against the previous run (the same as `previous`)."""
        return self.previous

    def trials(self) -> Iterator[TrialRecord]:
        """Every stored trial of the run (case, condition, output, scores), streamed."""
        from assay.store import Store

        store = Store(self.reopened_url or self.store_url)
        try:
            yield from store.iter_trials(self.run.id)
        finally:
            store.close()


def _absolute(url: str) -> str:
    """`url`, a SQLite file's relative path made absolute from the working directory now."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database \
            or os.path.isabs(parsed.database):
        return url
    return parsed.set(database=os.path.abspath(parsed.database)).render_as_string(
        hide_password=False)


async def evaluate_async(
    experiment: str,
    *,
    data: Data,
    task: Task,
    scorers: Iterable[ScorerSpec],
    conditions: Mapping[str, Mapping[str, Any] | None] | None = None,
    baseline: str | None = None,
    gates: Iterable[Mapping[str, Any] | BaseModel] = (),
    fail_on_regression: bool = False,
    epochs: int = 1,
    concurrency: int = 8,
    timeout: float | None = 300.0,
    seed: int = 0,
    sample: int | None = None,
    max_errors: int | None = None,
    max_cost_usd: float | None = None,
    description: str | None = None,
    judge: Mapping[str, Any] | None = None,
    providers: Mapping[str, Any] | None = None,
    mcp_servers: Mapping[str, Any] | None = None,
    packs: Mapping[str, Any] | None = None,
    store: str | os.PathLike[str] | Store | None = None,
    resume: bool | str = False,
    use_cache: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
    output: str | os.PathLike[str] | None = None,
    reports: bool = True,
    verbose: bool = False,
) -> EvalResult:
    """Run `task` on every case of `data` under every condition, score it, store the run.

    The run is kept under `experiment` in the store (`.assay/assay.db`, or `ASSAY_STORE`,
    like the CLI), so `assay runs`, `assay history` and `assay compare` see it, and the
    result carries its diff against the previous run of the experiment.

    - data: records in memory (dicts with `input`, `expected`, ... or `Case`s), a dataset
      file, or a dataset spec as in a config: `{"path": ..., "fields": {...}}`, or
      `{"hf": ..., "split": ...}` for a Hugging Face dataset.
    - task: a function `(case)` or `(case, condition)`, sync or async, returning text, a
      dict or an `Output`; or a target spec such as `{"type": "model", "model": ...}`.
    - scorers: kind names (`"exact_match"`), specs (`{"type": "contains", ...}`) or
      functions `(case, output)` returning a bool, a number, a `Score` or a dict.
    - conditions: named variants, e.g. `{"baseline": {}, "v2": {"args": {"prompt": 2}}}`;
      the others are compared with `baseline` (the first when not named).
    - gates: thresholds (`{"scorer": ..., "min_pass_rate": 0.8}`) or regressions
      (`{"regression": {...}}`); `fail_on_regression` adds one over every metric.
    - timeout: seconds for each trial's answer (and again for its scoring); None for no
      deadline. max_errors, max_cost_usd: stop the run (`assay.RunFailed`) after that many
      failed trials, or once its LLM calls cost that many US dollars; a resume with a
      higher `max_cost_usd` goes on.

    The run's `results.json`, `report.md` and `report.html` are written as `assay run`
    writes them: into `output` (default `.assay/runs/<run id>/`), unless `reports=False`.

    `resume=True` finishes the latest unfinished run of the experiment (a run id: that run)
    when the arguments and data are unchanged, running only its missing trials.

    Relative paths (dataset, `module:function` references) are resolved against `base_dir`,
    the working directory by default. Bad arguments or data raise `assay.UserError` naming
    each problem; a run that cannot complete raises `assay.RunFailed`. Use this coroutine
    inside a running event loop (Jupyter, async code); `evaluate` is its blocking form.
    """
    from assay.api.running import run_and_review
    from assay.config.loading import load_config_data
    from assay.config.yaml_source import SourceMap
    from assay.datasets.memory import memory_dataset
    from assay.review.finish import ReviewRequest
    from assay.runner.options import RunOptions
    from assay.store import Store
    from assay.user_code.ctrl_c import ctrl_c_watched

    built = config_data(
        experiment, data=data, task=task, scorers=scorers, conditions=conditions, gates=gates,
        run={"epochs": epochs, "concurrency": concurrency, "timeout": timeout, "seed": seed,
             "sample": sample, "max_errors": max_errors, "max_cost_usd": max_cost_usd},
        sections={"description": description, "judge": judge, "providers": providers,
                  "mcp_servers": mcp_servers, "packs": packs})
    root = Path(base_dir) if base_dir is not None else Path.cwd()
    loaded = load_config_data(built.data, SourceMap(SOURCE, None), root / SOURCE,
                              described=built.described)
    settings = loaded.config.run
    dataset = None if built.records is None else memory_dataset(
        built.records, sample=settings.sample, seed=settings.seed)
    options = RunOptions(resume=resume or None, use_cache=use_cache,
                         progress=None if verbose else False, dataset=dataset)
    request = ReviewRequest(baseline=baseline, fail_on_regression=fail_on_regression,
                            output=None if output is None else Path(output),
                            write_files=reports)
    opened = store if isinstance(store, Store) else Store(
        None if store is None else os.fspath(store))
    try:
        # Ctrl-C watched for the whole run, as `run_loop` watches it for `evaluate`, not
        # around each call: swapping the handler per call cost fast trials half their time
        with ctrl_c_watched():
            review = await run_and_review(loaded, opened, options, request)
    finally:
        if opened is not store:
            opened.close()
    if verbose:
        from assay.reports.console import make_console
        from assay.reports.terminal import print_review

        print_review(make_console(), review)
    return EvalResult.of(review, opened.url)


P = ParamSpec("P")
R = TypeVar("R")


def _blocking(coroutine: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """The blocking form of `coroutine`: runs it on a loop of its own, as `assay run` does
    (`run_loop`), so a `sys.exit()` in a task user code left running fails the run with
    `RunFailed`; it ended the caller's program with the code the user code asked for."""

    @functools.wraps(coroutine)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        from assay.user_code.calls import run_loop

        if loop_running():
            raise UserError("assay.evaluate() cannot block inside a running event loop "
                            "(Jupyter, async code): use `await assay.evaluate_async(...)`")
        # outside the `except` that found no loop: what the run raises is not shown as
        # raised "during handling of" a RuntimeError('no running event loop')
        return run_loop(coroutine(*args, **kwargs))

    return run


def loop_running() -> bool:
    """Whether this thread runs an event loop (Jupyter, async code), which nothing may block."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


evaluate = _blocking(evaluate_async)
evaluate.__name__ = evaluate.__qualname__ = "evaluate"
evaluate.__doc__ = ("Run an eval from Python and return its `EvalResult`; blocks until done.\n\n"
                    "Takes the arguments of `evaluate_async` (see there), which is the form to "
                    "use inside a running event loop.")
